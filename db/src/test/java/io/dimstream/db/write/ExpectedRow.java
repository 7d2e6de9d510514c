package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One version row as the tests compare it: the business key, the attributes (tracked and type-1),
 * the validity range, the flags and {@code record_hash} in hex. Lineage and the surrogate key are
 * left out on purpose (the surrogate key is compared separately, see {@link EntityTableReader}).
 *
 * <p>Values are the Java types {@link ColumnType#coerce} yields, {@link #normalize normalized} so
 * that two values with the same canonical text compare equal ({@code 1.50} and {@code 1.5} are one
 * state per DESIGN section 3; which spelling a numeric column keeps is not specified), and bytea
 * as its canonical text (an array's {@code equals} is identity).
 */
public record ExpectedRow(Map<String, Object> key, Map<String, Object> attrs, Instant validFrom, Instant validTo,
                          boolean current, boolean deleted, String hashHex) {

    public ExpectedRow {
        key = Collections.unmodifiableMap(new LinkedHashMap<>(key));
        attrs = Collections.unmodifiableMap(new LinkedHashMap<>(attrs));
    }

    /**
     * How pgjdbc reads {@code 'infinity'::timestamptz} ({@link OffsetDateTime#MAX}) as an
     * instant: the {@code valid_to} of an open version with {@code valid-to-current: infinity}.
     */
    public static final Instant INFINITY = OffsetDateTime.MAX.toInstant();

    /** This row as a table with {@code valid-to-current: infinity} holds it: an open {@code valid_to} is {@link #INFINITY}. */
    public ExpectedRow openAtInfinity() {
        return validTo != null ? this : new ExpectedRow(key, attrs, validFrom, INFINITY, current, deleted, hashHex);
    }

    /** The value a row holds for {@code v} of type {@code t}, in the form rows are compared in. */
    public static Object normalize(ColumnType t, Object v) {
        if (v == null) {
            return null;
        }
        if (t == ColumnType.NUMERIC) {
            BigDecimal d = ((BigDecimal) v).stripTrailingZeros();
            return d.signum() == 0 ? BigDecimal.ZERO : d;
        }
        if (t == ColumnType.BYTEA) {
            return t.canonical(v); // an array compares by identity: its text, \x and hex, by value
        }
        return v;
    }
}
