package io.dimstream.db.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * timestamp with time zone: an {@code Instant} cut to microseconds, within
 * {@link ColumnType#MIN_INSTANT} .. {@link ColumnType#MAX_INSTANT} (the canonical text prints the
 * year with four digits, so year 0 and earlier and years after 9999 are texts PostgreSQL does not
 * read back). From an {@code Instant}, an ISO-8601 string with an offset or {@code Z}
 * ({@link ColumnType#parseInstant}), or a {@code LocalDateTime}, read as UTC (Debezium encodes a
 * timestamp without time zone as if it were UTC). The canonical text is
 * {@link ColumnType#CANONICAL_TIMESTAMP}.
 */
final class TimestampTzValues extends ValueType {

    TimestampTzValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        Instant instant;
        if (v instanceof Instant i) {
            instant = i.truncatedTo(ChronoUnit.MICROS);
        } else if (v instanceof LocalDateTime l) {
            instant = l.truncatedTo(ChronoUnit.MICROS).toInstant(ZoneOffset.UTC); // as Debezium encodes it: as if UTC
        } else if (v instanceof String s) {
            instant = ColumnType.parseInstant(s).orElseThrow(() -> wrong(v));
        } else {
            throw wrong(v);
        }
        if (!ColumnType.inRange(instant)) {
            throw new IllegalArgumentException("timestamp " + instant + " is outside the supported range " + ColumnType.INSTANT_RANGE);
        }
        return instant;
    }

    @Override
    String canonical(Object v) {
        return ColumnType.CANONICAL_TIMESTAMP.format((Instant) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** The canonical form, whatever the session's DateStyle and time zone. */
    @Override
    String textSql(String expr) {
        return "to_char(" + expr + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')";
    }
}
