package io.dimstream.db.sql;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The one place identifiers become SQL text. Every table and column name goes through
 * {@link #ident} or {@link #table}; every value is a bind parameter or goes through COPY.
 */
public final class Sql {

    private Sql() {
    }

    /** Quotes one identifier: {@code my"col} becomes {@code "my""col"}. */
    public static String ident(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("empty SQL identifier");
        }
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("SQL identifier contains NUL: " + name);
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A table name, optionally schema-qualified as {@code schema.table}. */
    public static String table(String qualified) {
        int dot = qualified.indexOf('.');
        if (dot < 0) {
            return ident(qualified);
        }
        return ident(qualified.substring(0, dot)) + "." + ident(qualified.substring(dot + 1));
    }

    /** The schema part of {@code schema.table}, or null. */
    public static String schemaOf(String qualified) {
        int dot = qualified.indexOf('.');
        return dot < 0 ? null : qualified.substring(0, dot);
    }

    /** The bare name part of {@code schema.table}. */
    public static String nameOf(String qualified) {
        int dot = qualified.indexOf('.');
        return dot < 0 ? qualified : qualified.substring(dot + 1);
    }

    /** {@code "a", "b", "c"} */
    public static String list(List<String> names) {
        return names.stream().map(Sql::ident).collect(Collectors.joining(", "));
    }

    /** {@code p."a", p."b"} */
    public static String list(String alias, List<String> names) {
        return names.stream().map(n -> alias + "." + ident(n)).collect(Collectors.joining(", "));
    }

    /** Joins a per-name fragment, e.g. equality on every key column. */
    public static String each(List<String> names, Function<String, String> fragment, String separator) {
        return names.stream().map(fragment).collect(Collectors.joining(separator));
    }

    /** {@code a."k1" = b."k1" AND a."k2" = b."k2"} */
    public static String eq(String a, String b, List<String> names) {
        return each(names, n -> a + "." + ident(n) + " = " + b + "." + ident(n), " AND ");
    }

    /** A string literal, for the few places a bind parameter is impossible (DDL). */
    public static String literal(String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("literal contains NUL");
        }
        return "'" + value.replace("'", "''") + "'";
    }
}
