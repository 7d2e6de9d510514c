package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * jsonb: the value is its canonical text, a {@code String} ({@link JsonbText}, which also says what
 * is refused), from a JSON text ({@code {"a": 1}}, {@code "\"a string\""}), a Jackson node, or
 * maps, lists and scalars. Read back over JDBC, PostgreSQL's text (with its spaces) is made
 * canonical again. Its normal form is what {@code ::text} prints, and {@link #coerce} reads it.
 */
final class JsonbValues extends ValueType {

    JsonbValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        return JsonbText.canonical(v);
    }

    @Override
    String canonical(Object v) {
        return (String) v;
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        String json = rs.getString(index);
        return json == null ? null : coerce(json);
    }
}
