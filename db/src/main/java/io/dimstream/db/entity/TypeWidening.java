package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * Safe widenings of a column's type ({@code schema-evolution: lenient}): what dimstream may apply
 * with {@code ALTER TABLE ... ALTER COLUMN ... TYPE} by itself when the source starts sending values
 * the column's type refuses, because every value the column holds keeps its value and its canonical
 * text (so no {@code record_hash} changes and no version appears):
 * <ul>
 *   <li>{@code smallint} to {@code integer} to {@code bigint} to {@code numeric} (whole numbers);</li>
 *   <li>{@code varchar(n)} to a longer {@code varchar(m)} or to {@code text};</li>
 *   <li>{@code numeric(p,s)} to {@code numeric(p',s)} with more digits before the point, or to
 *       {@code numeric}.</li>
 * </ul>
 * Anything else (text to integer, integer to text, a fraction into an integer column, another scale)
 * is not a widening: the column stays, and the record is refused (DLQ) or, when the source's own
 * schema says its type changed, the entity's partition stops until someone decides (see
 * {@code EvolvedColumns#widen}).
 *
 * <p>A widening is chosen by the first value that needs it: the smallest one that takes the value.
 * A {@code varchar(n)} grows to at least twice its length, so a column whose source lengthened it
 * is not altered again at every longer value.
 */
public final class TypeWidening {

    private TypeWidening() {
    }

    /** A column's type: its base type and its modifier, if any. */
    public record ColumnDef(ColumnType type, Optional<TypeModifier> modifier) {

        public ColumnDef {
            if (modifier.isPresent() && modifier.get().base() != type) {
                throw new IllegalArgumentException("modifier " + modifier.get().sqlType() + " is not one of " + type.sqlName());
            }
        }

        public static ColumnDef of(ColumnType type) {
            return new ColumnDef(type, Optional.empty());
        }

        public static ColumnDef of(TypeModifier modifier) {
            return new ColumnDef(modifier.base(), Optional.of(modifier));
        }

        /** The column of an entity as it is declared now. */
        public static ColumnDef of(EntitySpec entity, String column) {
            return new ColumnDef(entity.type(column), entity.modifier(column));
        }

        /**
         * Parses a type as {@link #sql} writes it or as a config declares it ({@code varchar(40)},
         * {@code character varying(40)}, {@code numeric(12,2)}, {@code bigint}, ...).
         *
         * @throws IllegalArgumentException naming the text when it is no type dimstream knows
         */
        public static ColumnDef parse(String text) {
            Optional<TypeModifier> m = ColumnType.modifierFromConfig(text);
            if (m.isPresent()) {
                return of(m.get());
            }
            return of(ColumnType.fromConfig(text).orElseThrow(() -> new IllegalArgumentException("unknown column type '" + text + "'")));
        }

        /** The type as PostgreSQL's {@code format_type} prints it ({@code character varying(40)}, {@code bigint}). */
        public String sql() {
            return modifier.map(TypeModifier::sqlType).orElse(type.sqlName());
        }

        /**
         * The value as this type stores it: coerced, then cut to the modifier.
         *
         * @throws IllegalArgumentException when this type refuses it
         */
        public Object accept(Object raw) {
            Object v = type.coerce(raw);
            return modifier.isPresent() && v != null ? modifier.get().apply(v) : v;
        }

        public boolean accepts(Object raw) {
            try {
                accept(raw);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return sql();
        }
    }

    private static final ColumnType[] WHOLE = {ColumnType.SMALLINT, ColumnType.INTEGER, ColumnType.BIGINT, ColumnType.NUMERIC};

    /**
     * The smallest safe widening of {@code from} that takes {@code raw}, or empty: when {@code from}
     * takes it already, or when no safe widening does (the value is then refused as it is today).
     */
    public static Optional<ColumnDef> forValue(ColumnDef from, Object raw) {
        if (raw == null || from.accepts(raw)) {
            return Optional.empty();
        }
        int rank = wholeRank(from);
        if (rank >= 0) {
            for (int i = rank + 1; i < WHOLE.length; i++) {
                ColumnDef wider = ColumnDef.of(WHOLE[i]);
                // numeric only for a whole number beyond bigint: a fraction in an integer column is no widening
                if (wider.accepts(raw) && (WHOLE[i] != ColumnType.NUMERIC || isWhole(raw))) {
                    return Optional.of(wider);
                }
            }
            return Optional.empty();
        }
        if (from.modifier().orElse(null) instanceof TypeModifier.Length len && raw instanceof CharSequence s) {
            ColumnDef text = ColumnDef.of(ColumnType.TEXT);
            if (!text.accepts(raw)) {
                return Optional.empty(); // refused as text too (a NUL character, say): not a length problem
            }
            String str = s.toString();
            int needed = str.codePointCount(0, str.length());
            long grown = Math.max(needed, 2L * len.maxLength());
            return Optional.of(grown > TypeModifier.Length.MAX ? (needed > TypeModifier.Length.MAX ? text
                    : ColumnDef.of(new TypeModifier.Length(TypeModifier.Length.MAX))) : ColumnDef.of(new TypeModifier.Length((int) grown)));
        }
        if (from.modifier().orElse(null) instanceof TypeModifier.Precision p) {
            BigDecimal d;
            try {
                d = (BigDecimal) ColumnType.NUMERIC.coerce(raw);
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
            BigDecimal rounded = d.setScale(p.scale(), RoundingMode.HALF_UP);
            int integerDigits = Math.max(1, rounded.precision() - rounded.scale());
            int precision = integerDigits + p.scale();
            ColumnDef wider = precision > TypeModifier.Precision.MAX ? ColumnDef.of(ColumnType.NUMERIC)
                    : ColumnDef.of(new TypeModifier.Precision(precision, p.scale()));
            return wider.accepts(raw) ? Optional.of(wider) : Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * Whether changing a column from {@code from} to {@code to} is a safe widening (or no change):
     * every value of {@code from} is a value of {@code to} with the same canonical text.
     */
    public static boolean isSafe(ColumnDef from, ColumnDef to) {
        if (from.equals(to)) {
            return true;
        }
        int rf = wholeRank(from);
        int rt = wholeRank(to);
        if (rf >= 0 && rt >= 0) {
            return rt >= rf;
        }
        if (from.type() == ColumnType.TEXT && to.type() == ColumnType.TEXT) {
            if (to.modifier().isEmpty()) {
                return true;
            }
            return from.modifier().isPresent()
                    && ((TypeModifier.Length) to.modifier().get()).maxLength() >= ((TypeModifier.Length) from.modifier().get()).maxLength();
        }
        if (from.type() == ColumnType.NUMERIC && to.type() == ColumnType.NUMERIC) {
            if (to.modifier().isEmpty()) {
                return true;
            }
            if (from.modifier().isEmpty()) {
                return false;
            }
            TypeModifier.Precision pf = (TypeModifier.Precision) from.modifier().get();
            TypeModifier.Precision pt = (TypeModifier.Precision) to.modifier().get();
            return pt.scale() == pf.scale() && pt.precision() >= pf.precision();
        }
        return false;
    }

    /** Position on smallint < integer < bigint < numeric, or -1 (a numeric with a modifier is not on it). */
    private static int wholeRank(ColumnDef d) {
        if (d.modifier().isPresent()) {
            return -1;
        }
        for (int i = 0; i < WHOLE.length; i++) {
            if (WHOLE[i] == d.type()) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isWhole(Object raw) {
        try {
            BigDecimal d = (BigDecimal) ColumnType.NUMERIC.coerce(raw);
            return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
