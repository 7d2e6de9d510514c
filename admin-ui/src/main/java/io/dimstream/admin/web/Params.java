package io.dimstream.admin.web;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;

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

    /** The earliest instant a request may name: PostgreSQL and the pages agree on years 1 to 9999. */
    public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest instant a request may name. */
    public static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");

    /**
     * An instant: ISO-8601 with an offset ({@code 2025-08-10T12:00:00Z}), or a local date-time
     * ({@code 2025-08-10T12:00}, what a datetime-local field sends) read in {@code zone}, between
     * {@link #MIN_INSTANT} and {@link #MAX_INSTANT} (a year such as +300000 is refused here, with
     * a 400 naming the parameter, rather than by PostgreSQL).
     *
     * @return {@code dflt} when blank
     */
    public static Instant instant(String name, String raw, ZoneId zone, Instant dflt) {
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        String s = raw.trim();
        Instant t;
        try {
            t = OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeException e) {
            // not with an offset: a local date-time
            try {
                t = LocalDateTime.parse(s).atZone(zone).toInstant();
            } catch (DateTimeException e2) {
                throw new BadRequest(name + ": \"" + raw + "\" is not a date-time (2025-08-10T12:00 in the chosen time zone, "
                        + "or 2025-08-10T12:00:00Z)");
            }
        }
        if (t.isBefore(MIN_INSTANT) || t.isAfter(MAX_INSTANT)) {
            throw new BadRequest(name + ": \"" + raw + "\" is outside the supported range, 0001-01-01 to 9999-12-31 (UTC)");
        }
        return t;
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
