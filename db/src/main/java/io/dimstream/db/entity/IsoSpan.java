package io.dimstream.db.entity;

import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;

/**
 * An ISO-8601 duration that may hold calendar parts: {@code P2Y}, {@code P18M}, {@code P30D},
 * {@code PT12H}, {@code P1Y2M3DT4H}. {@link Duration} refuses years and months and {@link Period}
 * refuses hours, so this holds both: the date part as a {@link Period}, the time part as a
 * {@link Duration}. An instant minus a span is computed on the UTC calendar ({@link #before}).
 *
 * @param period the date part (years, months, days)
 * @param time   the time part (hours, minutes, seconds)
 */
public record IsoSpan(Period period, Duration time) {

    /**
     * Parses {@code text}; throws {@link IllegalArgumentException} naming the accepted form when it is
     * not an ISO-8601 duration, or not positive (every part at least zero, one above).
     */
    public static IsoSpan parse(String text) {
        String t = text.trim();
        int tAt = t.indexOf('T');
        Period p;
        Duration d;
        try {
            String datePart = tAt < 0 ? t : t.substring(0, tAt);
            p = datePart.equals("P") ? Period.ZERO : Period.parse(datePart);
            d = tAt < 0 ? Duration.ZERO : Duration.parse("PT" + t.substring(tAt + 1));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not an ISO-8601 duration (e.g. P2Y, P30D, PT12H)");
        }
        if (p.isNegative() || d.isNegative() || (p.isZero() && d.isZero())) {
            throw new IllegalArgumentException("\"" + text + "\" is not a positive duration");
        }
        return new IsoSpan(p, d);
    }

    /** Whether it has years or months, whose length depends on the date they are counted from. */
    public boolean calendar() {
        return period.getYears() != 0 || period.getMonths() != 0;
    }

    /** Its length, for a span without years or months (days count 24 hours, as on the UTC calendar). */
    public Duration fixedLength() {
        if (calendar()) {
            throw new IllegalStateException(this + " has years or months: it has no fixed length");
        }
        return Duration.ofDays(period.getDays()).plus(time);
    }

    /** The shortest it can be: a year of 365 days, a month of 28. */
    public Duration shortest() {
        return Duration.ofDays(period.getYears() * 365L + period.getMonths() * 28L + period.getDays()).plus(time);
    }

    /** The longest it can be: a year of 366 days, a month of 31. */
    public Duration longest() {
        return Duration.ofDays(period.getYears() * 366L + period.getMonths() * 31L + period.getDays()).plus(time);
    }

    /** {@code at} minus this span on the UTC calendar (years and months first, as PostgreSQL subtracts an interval in UTC). */
    public Instant before(Instant at) {
        return at.atOffset(ZoneOffset.UTC).minus(period).minus(time).toInstant();
    }

    /** The ISO-8601 text, as config writes it and PostgreSQL reads it ({@code ?::interval}). */
    @Override
    public String toString() {
        String date = period.isZero() ? "P" : period.toString();
        return time.isZero() ? date : date + time.toString().substring(1);
    }
}
