package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;

/** boolean: a {@code Boolean}, or exactly the string {@code true} or {@code false}. */
final class BooleanValues extends ValueType {

    BooleanValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        if ("true".equals(v) || "false".equals(v)) {
            return Boolean.valueOf((String) v);
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return ((Boolean) v) ? "true" : "false";
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getBoolean(index);
    }
}
