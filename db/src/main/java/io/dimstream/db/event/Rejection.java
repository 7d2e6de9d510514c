package io.dimstream.db.event;

import java.util.Locale;

/**
 * An input the writer refused, with the reason and where it came from. Never silently dropped.
 * The reason is always {@link #printable}: it is stored as PostgreSQL text (sink rejects, the DLQ
 * mirror) and sent as a Kafka header, and may quote a piece of the bad input.
 *
 * @param sqlState the SQLSTATE when PostgreSQL itself refused the event ({@code Scd2Writer} isolating, {@code ApplyOptions.ISOLATING});
 *                 null when the writer's validation did
 */
public record Rejection(Source source, String reason, String sqlState) {

    /** Refused by the validation, before PostgreSQL saw it. */
    public Rejection(Source source, String reason) {
        this(source, reason, null);
    }

    public Rejection {
        reason = printable(reason);
    }

    /**
     * {@code text} with every NUL and unpaired UTF-16 surrogate written as {@code \\uXXXX}: the
     * characters PostgreSQL's text cannot hold or UTF-8 cannot encode, which a reason quoting a
     * bad value would otherwise carry along. Hand-written: the JDK has no such escape.
     */
    public static String printable(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            if (c == 0 || (Character.isSurrogate(c) && !pair)) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
            } else if (out != null) {
                out.append(c);
                if (pair) {
                    out.append(text.charAt(++i));
                }
            } else if (pair) {
                i++;
            }
        }
        return out == null ? text : out.toString();
    }

    @Override
    public String toString() {
        return source + ": " + reason + (sqlState == null ? "" : " (SQL state " + sqlState + ")");
    }
}
