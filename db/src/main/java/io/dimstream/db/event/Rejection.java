package io.dimstream.db.event;

/**
 * An input the writer refused, with the reason and where it came from. Never silently dropped.
 *
 * @param sqlState the SQLSTATE when PostgreSQL itself refused the event ({@code Scd2Writer.applyIsolating});
 *                 null when the writer's validation did
 */
public record Rejection(Source source, String reason, String sqlState) {

    /** Refused by the validation, before PostgreSQL saw it. */
    public Rejection(Source source, String reason) {
        this(source, reason, null);
    }

    @Override
    public String toString() {
        return source + ": " + reason + (sqlState == null ? "" : " (SQL state " + sqlState + ")");
    }
}
