package io.dimstream.e2e.debezium;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One row of a history table as the test compares it: the business key and every attribute as
 * PostgreSQL's text of the value (a numeric without trailing zeros), the validity range and the
 * flags. {@link #toString()} is one readable line, so a failed comparison shows the rows.
 */
record Version(String table, List<String> key, Map<String, String> attrs, Instant validFrom, Instant validTo, boolean current,
               boolean deleted) {

    /** By table, key (as texts), then valid_from: the order both sides are compared in. */
    static final Comparator<Version> ORDER = Comparator.comparing(Version::table)
            .thenComparing(v -> String.join("\u0000", v.key()))
            .thenComparing(Version::validFrom);

    /** A value's text as compared: numbers with their trailing zeros stripped, others as they are. */
    static String normalize(SourceTable.Column column, String text) {
        if (text == null || !column.numeric()) {
            return text;
        }
        BigDecimal d = new BigDecimal(text).stripTrailingZeros();
        return (d.signum() == 0 ? BigDecimal.ZERO : d).toPlainString();
    }

    @Override
    public String toString() {
        return table + " " + key + " " + attrs + " [" + validFrom + ", " + (validTo == null ? "-" : validTo) + ")"
                + (current ? " current" : "") + (deleted ? " deleted" : "");
    }
}
