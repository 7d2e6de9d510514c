package io.dimstream.db.entity;

import static io.dimstream.db.entity.ColumnType.MAX_DATE;
import static io.dimstream.db.entity.ColumnType.MIN_DATE;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * date: a {@code LocalDate} within {@link ColumnType#MIN_DATE} .. {@link ColumnType#MAX_DATE}, from
 * a {@code LocalDate} or an ISO date string ({@code 2025-08-22}). Years outside 1 .. 9999 are
 * refused: the canonical text prints four digits, and PostgreSQL does not read back
 * {@code 0000-} or {@code +10000-}.
 */
final class DateValues extends ValueType {

    DateValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        LocalDate date;
        if (v instanceof LocalDate ld) {
            date = ld;
        } else if (v instanceof String s) {
            try {
                date = LocalDate.parse(s);
            } catch (DateTimeException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        if (date.isBefore(MIN_DATE) || date.isAfter(MAX_DATE)) {
            throw new IllegalArgumentException("date " + date + " is outside the supported range " + MIN_DATE + " to " + MAX_DATE);
        }
        return date;
    }

    @Override
    String canonical(Object v) {
        return v.toString();
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getObject(index, LocalDate.class);
    }

    /** Whatever the session's DateStyle. */
    @Override
    String textSql(String expr) {
        return "to_char(" + expr + ", 'YYYY-MM-DD')";
    }
}
