package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** uuid: a {@code UUID}, or a string {@code UUID.fromString} reads; its canonical text is lower-case. */
final class UuidValues extends ValueType {

    UuidValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        if (v instanceof UUID u) {
            return u;
        }
        if (v instanceof String s) {
            try {
                return UUID.fromString(s);
            } catch (IllegalArgumentException e) {
                throw wrong(v);
            }
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return v.toString();
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getObject(index, UUID.class);
    }
}
