package io.dimstream.db.entity;

import static io.dimstream.db.entity.ColumnType.CANONICAL_LOCAL_TIMESTAMP;
import static io.dimstream.db.entity.ColumnType.MAX_LOCAL_TIMESTAMP;
import static io.dimstream.db.entity.ColumnType.MIN_LOCAL_TIMESTAMP;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * timestamp without time zone: a {@code LocalDateTime} cut to microseconds, within
 * {@link ColumnType#MIN_LOCAL_TIMESTAMP} .. {@link ColumnType#MAX_LOCAL_TIMESTAMP} (four-digit
 * years, as for timestamptz). From a {@code LocalDateTime}; an {@code Instant}, which gives its
 * date-time in UTC (the reverse of a {@code LocalDateTime} into timestamptz); or a string
 * {@code 2025-08-22T17:00:00.5} (or a space for the {@code T}, PostgreSQL's own spelling). A string
 * with an offset is refused: PostgreSQL would drop the offset silently, since the column takes a
 * local date-time.
 */
final class TimestampValues extends ValueType {

    TimestampValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        LocalDateTime t;
        if (v instanceof LocalDateTime l) {
            t = l.truncatedTo(ChronoUnit.MICROS);
        } else if (v instanceof Instant i) {
            if (!ColumnType.inRange(i.truncatedTo(ChronoUnit.MICROS))) {
                throw new IllegalArgumentException("timestamp " + i + " is outside the supported range " + ColumnType.INSTANT_RANGE);
            }
            t = LocalDateTime.ofInstant(i.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
        } else if (v instanceof String s) {
            t = parse(s);
        } else {
            throw wrong(v);
        }
        if (t.isBefore(MIN_LOCAL_TIMESTAMP) || t.isAfter(MAX_LOCAL_TIMESTAMP)) {
            throw new IllegalArgumentException("timestamp " + t + " is outside the supported range "
                    + CANONICAL_LOCAL_TIMESTAMP.format(MIN_LOCAL_TIMESTAMP) + " to " + CANONICAL_LOCAL_TIMESTAMP.format(MAX_LOCAL_TIMESTAMP));
        }
        return t;
    }

    private LocalDateTime parse(String s) {
        String x = s.trim();
        if (x.length() > 10 && x.charAt(10) == ' ') {
            x = x.substring(0, 10) + 'T' + x.substring(11); // PostgreSQL's own spelling
        }
        try {
            return LocalDateTime.parse(x).truncatedTo(ChronoUnit.MICROS);
        } catch (DateTimeException e) {
            if (ColumnType.parseInstant(x).isPresent()) {
                throw new IllegalArgumentException("expected " + sqlName + ", got " + describe(s) + " with an offset: a timestamp "
                        + "without time zone takes a local date-time (declare the column timestamptz for instants)");
            }
            throw wrong(s);
        }
    }

    @Override
    String canonical(Object v) {
        return CANONICAL_LOCAL_TIMESTAMP.format((LocalDateTime) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getObject(index, LocalDateTime.class);
    }

    /** The canonical form, whatever the session's DateStyle. */
    @Override
    String textSql(String expr) {
        return "to_char(" + expr + ", 'YYYY-MM-DD\"T\"HH24:MI:SS.US')";
    }
}
