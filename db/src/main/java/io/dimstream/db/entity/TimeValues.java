package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/**
 * time without time zone: a {@code LocalTime} cut to microseconds, from a {@code LocalTime} or a
 * string {@code 17:00:00.5}. Anything but 00:00:00 .. 23:59:59.999999 is refused
 * ({@code 24:00:00}, which PostgreSQL takes, too: no Java {@code LocalTime} holds it).
 * PostgreSQL's own text of it ({@code HH:MI:SS[.fraction]}) reads back as the same value.
 */
final class TimeValues extends ValueType {

    TimeValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        if (v instanceof LocalTime t) {
            return t.truncatedTo(ChronoUnit.MICROS);
        }
        if (v instanceof String s) {
            try {
                return LocalTime.parse(s.trim()).truncatedTo(ChronoUnit.MICROS);
            } catch (DateTimeException e) {
                throw wrong(v);
            }
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return ColumnType.CANONICAL_TIME.format((LocalTime) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getObject(index, LocalTime.class);
    }
}
