package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * double precision: a finite {@code Double}, from any Java number or a numeric string. Its
 * canonical text is the shortest decimal that reads back as the same double, written plainly
 * ({@link NumericValues#plain}).
 */
final class DoubleValues extends ValueType {

    DoubleValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        double d;
        if (v instanceof Number n) {
            d = n.doubleValue();
        } else if (v instanceof String s) {
            try {
                d = Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("expected a finite double precision, got " + describe(v));
        }
        return d;
    }

    @Override
    String canonical(Object v) {
        return NumericValues.plain(new BigDecimal(Double.toString((Double) v)));
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getDouble(index);
    }
}
