package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;

/**
 * What one family of column types does with its values, one small class per family
 * ({@link TextValues}, {@link IntegerValues}, {@link NumericValues}, {@link DoubleValues},
 * {@link BooleanValues}, {@link DateValues}, {@link TimestampTzValues}, {@link UuidValues},
 * {@link TimestampValues}, {@link TimeValues}, {@link JsonbValues}, {@link ByteaValues}), as
 * Debezium's JDBC sink keeps one class per value type. Each {@link ColumnType} constant holds one
 * and hands its four jobs to it: {@link ColumnType#coerce}, {@link ColumnType#canonical},
 * {@link ColumnType#read} and {@link ColumnType#textSql}. A family knows its type's SQL name,
 * which every reason that refuses a value names.
 */
abstract class ValueType {

    /** The type as PostgreSQL's {@code format_type} prints it ({@link ColumnType#sqlName}). */
    final String sqlName;

    ValueType(String sqlName) {
        this.sqlName = sqlName;
    }

    /**
     * A value that is not null, as {@link ColumnType#coerce} describes it, into this type's Java value.
     *
     * @throws IllegalArgumentException with a message fit for a rejection reason
     */
    abstract Object coerce(Object v);

    /** The canonical text of a value {@link #coerce} made. */
    abstract String canonical(Object v);

    /** Column {@code index} of {@code rs} as {@link #coerce}'s Java value; {@link ColumnType#read} turns SQL NULL into null. */
    abstract Object read(ResultSet rs, int index) throws SQLException;

    /**
     * A PostgreSQL expression giving {@code expr}'s value as a text {@link #coerce} reads back as the
     * same value: PostgreSQL's own text output, unless a family's differs with the session's settings.
     */
    String textSql(String expr) {
        return "(" + expr + ")::text";
    }

    /** The refusal of a value of the wrong kind or spelling: "expected {type}, got {value}". */
    final IllegalArgumentException wrong(Object v) {
        return new IllegalArgumentException("expected " + sqlName + ", got " + describe(v));
    }

    /**
     * A value as a reason quotes it: its kind and at most 60 characters of it. Arrays and objects
     * are described by their size only, so a huge one costs nothing to describe.
     */
    static String describe(Object v) {
        if (v instanceof Collection<?> c) {
            return "array of " + c.size() + " element" + (c.size() == 1 ? "" : "s");
        }
        if (v instanceof Map<?, ?> m) {
            return "object of " + m.size() + " field" + (m.size() == 1 ? "" : "s");
        }
        if (v instanceof byte[] b) {
            return "bytes (" + b.length + ")";
        }
        String kind = v instanceof String ? "string" : v instanceof Number ? "number"
                : v instanceof Boolean ? "boolean" : v.getClass().getSimpleName();
        String text = abbreviate(v instanceof String s ? s : String.valueOf(v));
        return kind + " " + (v instanceof String ? '"' + text + '"' : text);
    }

    static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }
}
