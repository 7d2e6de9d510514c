package io.dimstream.admin.web;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** How values read from an entity table are shown as text (pages and CSV alike). */
public final class ValueText {

    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");

    private ValueText() {
    }

    /**
     * NULL is null; decimals in plain notation; instants as ISO-8601 UTC; bytea as PostgreSQL prints
     * it ({@code \x} and hex); jsonb is its canonical text already; the rest toString.
     */
    public static String text(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof byte[] b) {
            return io.dimstream.db.entity.ColumnType.BYTEA.canonical(b);
        }
        return v.toString();
    }

    /** An instant as shown in the pages: ISO-8601 UTC, or "" for null. */
    public static String time(Instant t) {
        return t == null ? "" : t.toString();
    }

    /** An instant to the second (the dashboard's clock times), or "" for null. */
    public static String seconds(Instant t) {
        return t == null ? "" : t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }

    /** The local date-time of {@code t} in {@code zone}, as a datetime-local field takes it. */
    public static String local(Instant t, ZoneId zone) {
        return LOCAL.format(t.atZone(zone));
    }
}
