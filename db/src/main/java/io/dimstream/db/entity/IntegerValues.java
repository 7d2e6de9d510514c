package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * smallint, integer and bigint: a {@code Long} within the type's range. Taken from Java's
 * integers, a {@code BigInteger}, a {@code BigDecimal} when it is whole, and a string of digits.
 * Out of range is judged before any exact conversion: {@code 1e900000000} costs no more than
 * {@code 1e9}.
 */
final class IntegerValues extends ValueType {

    /** An integer string longer than this is out of every integer type's range (leading zeros aside). */
    private static final int INTEGER_MAX_TEXT = 100;

    private final long min;
    private final long max;

    IntegerValues(String sqlName, long min, long max) {
        super(sqlName);
        this.min = min;
        this.max = max;
    }

    @Override
    Object coerce(Object v) {
        BigInteger big;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            big = BigInteger.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            if (b.bitLength() > 63) {
                throw outOfRange(b.toString());
            }
            big = b;
        } else if (v instanceof BigDecimal d) {
            big = integralPart(d);
        } else if (v instanceof String s) {
            String t = s.trim();
            if (t.length() > INTEGER_MAX_TEXT) {
                throw outOfRange(t);
            }
            try {
                big = new BigInteger(t);
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        if (big.bitLength() > 63 || big.longValue() < min || big.longValue() > max) {
            throw outOfRange(big.toString());
        }
        return big.longValue();
    }

    @Override
    String canonical(Object v) {
        return Long.toString((Long) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getLong(index);
    }

    /**
     * The value of a decimal that must be a whole number. Its size is judged from precision and
     * scale first: {@code toBigIntegerExact} of {@code 1e900000000} would build a number of 900
     * million digits before any range check could refuse it.
     */
    private BigInteger integralPart(BigDecimal d) {
        if (d.signum() == 0) {
            return BigInteger.ZERO;
        }
        long integerDigits = (long) d.precision() - d.scale();
        if (integerDigits > 19) {
            throw outOfRange(d.toString());
        }
        if (integerDigits <= 0) {
            throw wrong(d); // non-zero and below 1 in magnitude: a fraction
        }
        // at most 19 digits before the point: every step below works on numbers that small, or
        // (a positive scale) divides by a power of ten smaller than the number itself
        BigDecimal whole = d.setScale(0, RoundingMode.DOWN);
        if (whole.compareTo(d) != 0) {
            throw wrong(d);
        }
        return whole.toBigIntegerExact();
    }

    private IllegalArgumentException outOfRange(String value) {
        return new IllegalArgumentException("value " + abbreviate(value) + " is out of range for " + sqlName);
    }
}
