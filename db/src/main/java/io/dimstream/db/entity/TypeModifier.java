package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The modifier of a declared column type, for the two that users' existing tables commonly carry:
 * {@code varchar(n)} and {@code numeric(p,s)}. {@link #apply} does to a value what PostgreSQL does
 * when it stores it in such a column, or refuses it with the reason PostgreSQL would give, so a
 * value is hashed as it is stored and a value that does not fit is rejected before the database
 * sees it. A column without a modifier ({@code text}, {@code numeric}) behaves, and hashes, exactly
 * as before modifiers existed.
 */
public sealed interface TypeModifier {

    /** The type a modified column has without its modifier. */
    ColumnType base();

    /** The declared type as PostgreSQL's {@code format_type} prints it, e.g. {@code character varying(255)}. */
    String sqlType();

    /**
     * A value already {@link ColumnType#coerce coerced} to {@link #base()}, as the column stores it.
     *
     * @throws IllegalArgumentException with a message fit for a rejection reason
     */
    Object apply(Object coerced);

    /** {@code varchar(n)} / {@code character varying(n)}: at most {@code maxLength} characters. */
    record Length(int maxLength) implements TypeModifier {

        /** PostgreSQL's limit on n. */
        public static final int MAX = 10_485_760;

        public Length {
            if (maxLength < 1 || maxLength > MAX) {
                throw new IllegalArgumentException("varchar length must be between 1 and " + MAX + ", got " + maxLength);
            }
        }

        @Override
        public ColumnType base() {
            return ColumnType.TEXT;
        }

        @Override
        public String sqlType() {
            return "character varying(" + maxLength + ")";
        }

        /**
         * PostgreSQL counts characters (code points), refuses a longer string unless what is beyond
         * n is only spaces, which it cuts off (SQL standard); so does this.
         */
        @Override
        public Object apply(Object coerced) {
            String s = (String) coerced;
            if (s.length() <= maxLength) {
                return s; // never more code points than chars
            }
            int codePoints = s.codePointCount(0, s.length());
            if (codePoints <= maxLength) {
                return s;
            }
            int cut = s.offsetByCodePoints(0, maxLength);
            for (int i = cut; i < s.length(); i++) {
                if (s.charAt(i) != ' ') {
                    throw new IllegalArgumentException("text of " + codePoints + " characters is too long for " + sqlType()
                            + " (at most " + maxLength + ")");
                }
            }
            return s.substring(0, cut);
        }
    }

    /**
     * {@code numeric(p,s)} / {@code decimal(p,s)}: rounded to {@code scale} digits after the point
     * (half away from zero, as PostgreSQL rounds), then refused when it needs more than
     * {@code precision - scale} digits before it.
     */
    record Precision(int precision, int scale) implements TypeModifier {

        /** PostgreSQL's limit on p. */
        public static final int MAX = 1000;

        /**
         * Scales from 0 to p only: PostgreSQL 15 also takes a negative scale or one above p, which
         * earlier releases refuse; such a column is left to plain {@code numeric}.
         */
        public Precision {
            if (precision < 1 || precision > MAX) {
                throw new IllegalArgumentException("numeric precision must be between 1 and " + MAX + ", got " + precision);
            }
            if (scale < 0 || scale > precision) {
                throw new IllegalArgumentException("numeric scale must be between 0 and the precision " + precision + ", got " + scale);
            }
        }

        @Override
        public ColumnType base() {
            return ColumnType.NUMERIC;
        }

        @Override
        public String sqlType() {
            return "numeric(" + precision + "," + scale + ")";
        }

        /** The value is already within PostgreSQL's digit limits ({@link ColumnType#coerce}), so rounding it is bounded work. */
        @Override
        public Object apply(Object coerced) {
            BigDecimal d = (BigDecimal) coerced;
            BigDecimal rounded = d.setScale(scale, RoundingMode.HALF_UP);
            if (rounded.signum() != 0 && rounded.precision() - rounded.scale() > precision - scale) {
                String value = d.toString();
                throw new IllegalArgumentException("numeric " + (value.length() > 60 ? value.substring(0, 57) + "..." : value)
                        + " does not fit " + sqlType() + ": it must round to an absolute value less than 10^" + (precision - scale));
            }
            return rounded;
        }
    }
}
