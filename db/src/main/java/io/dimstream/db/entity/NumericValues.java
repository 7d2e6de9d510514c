package io.dimstream.db.entity;

import static io.dimstream.db.entity.ColumnType.NUMERIC_MAX_INTEGER_DIGITS;
import static io.dimstream.db.entity.ColumnType.NUMERIC_MAX_SCALE;

import com.fasterxml.jackson.core.io.NumberInput;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * numeric (and {@code numeric(p,s)}, which {@link TypeModifier.Precision} rounds): a
 * {@code BigDecimal} as it was written ({@code 1.50} keeps its scale), within PostgreSQL's
 * {@value ColumnType#NUMERIC_MAX_INTEGER_DIGITS} digits before the point and
 * {@value ColumnType#NUMERIC_MAX_SCALE} after it, judged from {@code precision()} and
 * {@code scale()} before any conversion, so {@code 1e900000000} costs no more than {@code 1e9}.
 * A double must be finite. The canonical text is plain, without trailing zeros.
 */
final class NumericValues extends ValueType {

    /**
     * A numeric string longer than this cannot be within PostgreSQL's limits (all digits, a sign,
     * a point and an exponent): refused before it is parsed, so parsing costs bounded work.
     */
    private static final int NUMERIC_MAX_TEXT = NUMERIC_MAX_INTEGER_DIGITS + NUMERIC_MAX_SCALE + 32;
    /** Numeric text longer than this is parsed by Jackson's fast parser. */
    private static final int LONG_NUMERIC_TEXT = 1000;

    NumericValues(String sqlName) {
        super(sqlName);
    }

    /**
     * Digits are counted as the value is written: {@code 1.000} has three after the point. A zero
     * is plain zero whatever its exponent ({@code 0E+900000000}).
     */
    @Override
    Object coerce(Object v) {
        BigDecimal d = decimal(v);
        if (d.signum() == 0) {
            return d.scale() < 0 || d.scale() > NUMERIC_MAX_SCALE ? BigDecimal.ZERO : d;
        }
        long integerDigits = (long) d.precision() - d.scale();
        if (integerDigits > NUMERIC_MAX_INTEGER_DIGITS) {
            throw new IllegalArgumentException("numeric " + abbreviate(d.toString()) + " has " + integerDigits
                    + " digits before the decimal point; PostgreSQL's numeric holds at most " + NUMERIC_MAX_INTEGER_DIGITS);
        }
        if (d.scale() > NUMERIC_MAX_SCALE) {
            throw new IllegalArgumentException("numeric " + abbreviate(d.toString()) + " has " + d.scale()
                    + " digits after the decimal point; PostgreSQL's numeric holds at most " + NUMERIC_MAX_SCALE);
        }
        return d;
    }

    private BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal b) {
            return b;
        }
        if (v instanceof BigInteger b) {
            return new BigDecimal(b);
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigDecimal.valueOf(((Number) v).longValue());
        }
        if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                throw new IllegalArgumentException("expected a finite numeric, got " + describe(v));
            }
            return new BigDecimal(v.toString());
        }
        if (v instanceof String s) {
            String t = s.trim();
            if (t.length() > NUMERIC_MAX_TEXT) {
                throw new IllegalArgumentException("numeric text of " + t.length() + " characters is longer than any value PostgreSQL's "
                        + "numeric holds (" + NUMERIC_MAX_INTEGER_DIGITS + " digits before the point, " + NUMERIC_MAX_SCALE + " after)");
            }
            try {
                // the JDK parses long digit strings in quadratic time (~1 s for PostgreSQL's longest
                // numeric here), Jackson's FastDoubleParser in about a fifth of it
                return t.length() > LONG_NUMERIC_TEXT ? NumberInput.parseBigDecimal(t, true) : new BigDecimal(t);
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return plain((BigDecimal) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getBigDecimal(index);
    }

    /** A decimal's canonical text: no exponent, no trailing zeros, {@code 0} for any zero. */
    static String plain(BigDecimal d) {
        BigDecimal s = d.stripTrailingZeros();
        return s.signum() == 0 ? "0" : s.toPlainString();
    }
}
