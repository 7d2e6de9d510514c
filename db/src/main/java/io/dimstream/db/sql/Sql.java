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

    /**
     * PostgreSQL passes at most 100 arguments to a function: {@link #jsonObject} builds an object
     * of more columns in calls of this many pairs.
     */
    private static final int JSONB_PAIRS_PER_CALL = 50;

    /**
     * {@code jsonb_build_object('a', p."a", 'b', p."b", ...)}: the named columns of {@code alias} as a
     * JSON object keyed by name, in calls of at most 50 pairs joined with {@code ||} (a single call
     * of more would be refused, whatever the rows).
     */
    public static String jsonObject(String alias, List<String> names) {
        return jsonObject(alias, names, n -> false);
    }

    /**
     * {@link #jsonObject(String, List)} with the columns {@code asText} names given as their text
     * ({@code p."a"::text}): a jsonb column, whose value is read back as a JSON text (a jsonb string
     * given as itself would be read back as text that is not JSON).
     */
    public static String jsonObject(String alias, List<String> names, java.util.function.Predicate<String> asText) {
        List<String> calls = new java.util.ArrayList<>();
        for (int i = 0; i < names.size(); i += JSONB_PAIRS_PER_CALL) {
            calls.add("jsonb_build_object(" + each(names.subList(i, Math.min(names.size(), i + JSONB_PAIRS_PER_CALL)),
                    n -> literal(n) + ", " + alias + "." + ident(n) + (asText.test(n) ? "::text" : ""), ", ") + ")");
        }
        return calls.size() == 1 ? calls.get(0) : "(" + String.join(" || ", calls) + ")";
    }
}
