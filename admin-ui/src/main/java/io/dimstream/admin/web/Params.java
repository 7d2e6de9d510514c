package io.dimstream.admin.web;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/** Parses and checks request parameters; every refusal is a {@link BadRequest} naming the parameter. */
public final class Params {

    private Params() {
    }

    /** A time zone id ({@code Europe/Berlin}, {@code UTC}); blank means UTC. */
    public static ZoneId zone(String name, String raw) {
        if (raw == null || raw.isBlank()) {
            return ZoneId.of("UTC");
        }
        try {
            return ZoneId.of(raw.trim());
        } catch (DateTimeException e) {
            throw new BadRequest(name + ": unknown time zone \"" + raw + "\" (e.g. UTC, Europe/Berlin)");
        }
    }

    /**
     * An instant: ISO-8601 with an offset ({@code 2025-08-10T12:00:00Z}), or a local date-time
     * ({@code 2025-08-10T12:00}, what a datetime-local field sends) read in {@code zone}.
     *
     * @return {@code dflt} when blank
     */
    public static Instant instant(String name, String raw, ZoneId zone, Instant dflt) {
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        String s = raw.trim();
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // not with an offset: a local date-time
        }
        try {
            return LocalDateTime.parse(s).atZone(zone).toInstant();
        } catch (DateTimeParseException e) {
            throw new BadRequest(name + ": \"" + raw + "\" is not a date-time (2025-08-10T12:00 in the chosen time zone, "
                    + "or 2025-08-10T12:00:00Z)");
        }
    }

    /** A 1-based page number, at most {@code max}; blank means 1. */
    public static int page(String name, String raw, int max) {
        if (raw == null || raw.isBlank()) {
            return 1;
        }
        try {
            int p = Integer.parseInt(raw.trim());
            if (p < 1 || p > max) {
                throw new BadRequest(name + ": must be between 1 and " + max + ", got " + raw);
            }
            return p;
        } catch (NumberFormatException e) {
            throw new BadRequest(name + ": \"" + raw + "\" is not a page number");
        }
    }
}
