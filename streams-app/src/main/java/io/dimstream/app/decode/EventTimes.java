package io.dimstream.app.decode;

import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;

/** Event times as the non-native formats carry them: an ISO-8601 instant with offset, or epoch milliseconds. */
final class EventTimes {

    private EventTimes() {
    }

    /**
     * @param field names the field in the reason
     * @throws IllegalArgumentException {@code <field> missing} or naming the bad value
     */
    static Instant of(Object v, String field) {
        if (v == null) {
            throw new IllegalArgumentException(field + " missing");
        }
        if (v instanceof Instant i) {
            return i;
        }
        if (v instanceof String s) {
            return ColumnType.parseInstant(s).orElseThrow(() ->
                    new IllegalArgumentException(field + " is not an ISO-8601 instant with offset: \"" + s + "\""));
        }
        return Instant.ofEpochMilli(epochMillis(v, field));
    }

    /** An integral number of epoch milliseconds. */
    static long epochMillis(Object v, String field) {
        if (v == null) {
            throw new IllegalArgumentException(field + " missing");
        }
        if (v instanceof Long || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b && b.bitLength() < 64) {
            return b.longValue();
        }
        if (v instanceof BigDecimal d) {
            try {
                return d.longValueExact();
            } catch (ArithmeticException e) {
                throw notMillis(v, field);
            }
        }
        throw notMillis(v, field);
    }

    private static IllegalArgumentException notMillis(Object v, String field) {
        return new IllegalArgumentException(field + " is not epoch milliseconds: " + (v instanceof String ? "\"" + v + "\"" : v));
    }
}
