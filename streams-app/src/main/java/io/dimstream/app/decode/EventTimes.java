package io.dimstream.app.decode;

import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Event times as the non-native formats carry them: an ISO-8601 instant with offset, or epoch
 * milliseconds. Every time is checked against {@link ColumnType#INSTANT_RANGE} here, naming the
 * field it came from: a far-future or far-past time is a reason for the DLQ, never an exception
 * (epoch milliseconds beyond a long, or an instant whose microseconds overflow one). Instants are
 * cut to microseconds, PostgreSQL's precision: two events a nanosecond apart are one time there.
 */
final class EventTimes {

    private EventTimes() {
    }

    /**
     * @param field names the field in the reason
     * @throws IllegalArgumentException {@code <field> missing}, or naming the bad value
     */
    static Instant of(Object v, String field) {
        if (v == null) {
            throw new IllegalArgumentException(field + " missing");
        }
        if (v instanceof Instant i) {
            return inRange(i.truncatedTo(ChronoUnit.MICROS), field, i.toString());
        }
        if (v instanceof java.time.LocalDateTime l) {
            // a Debezium (io.debezium.time.*Timestamp) or Avro timestamp decoded as a local date-time: read as UTC,
            // as a timestamptz column reads it
            Instant i = l.toInstant(java.time.ZoneOffset.UTC);
            return inRange(i.truncatedTo(ChronoUnit.MICROS), field, l.toString());
        }
        if (v instanceof String s) {
            Instant t = ColumnType.parseInstant(s).orElseThrow(() ->
                    new IllegalArgumentException(field + " is not an ISO-8601 instant with offset: \"" + s + "\""));
            return inRange(t, field, "\"" + s + "\"");
        }
        return ofEpochMillis(v, field);
    }

    /** An integral number of epoch milliseconds, within the supported range. */
    static Instant ofEpochMillis(Object v, String field) {
        if (v == null) {
            throw new IllegalArgumentException(field + " missing");
        }
        long ms;
        if (v instanceof Long || v instanceof Integer) {
            ms = ((Number) v).longValue();
        } else if (v instanceof BigInteger b) {
            if (b.bitLength() > 63) {
                throw outOfRange(field, b.toString());
            }
            ms = b.longValue();
        } else if (v instanceof BigDecimal d) {
            // judged from precision and scale: an exact conversion of 1e900000000 would build the number first
            if (d.signum() != 0 && (long) d.precision() - d.scale() > 19) {
                throw outOfRange(field, d.toString());
            }
            try {
                ms = d.longValueExact();
            } catch (ArithmeticException e) {
                throw notMillis(v, field);
            }
        } else {
            throw notMillis(v, field);
        }
        Instant t = Instant.ofEpochMilli(ms);
        return inRange(t, field, ms + " (" + t + ")");
    }

    /** @param shown the value as the reason quotes it */
    private static Instant inRange(Instant t, String field, String shown) {
        if (!ColumnType.inRange(t)) {
            throw new IllegalArgumentException(field + " " + shown + " is outside the supported range " + ColumnType.INSTANT_RANGE);
        }
        return t;
    }

    private static IllegalArgumentException outOfRange(String field, String value) {
        return new IllegalArgumentException(field + " " + value + " is outside the supported range " + ColumnType.INSTANT_RANGE);
    }

    private static IllegalArgumentException notMillis(Object v, String field) {
        return new IllegalArgumentException(field + " is not epoch milliseconds: " + (v instanceof String ? "\"" + v + "\"" : v));
    }
}
