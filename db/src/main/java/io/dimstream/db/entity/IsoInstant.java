package io.dimstream.db.entity;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads the one form nearly every instant arrives in, {@code 2024-03-01T10:15:30[.fraction](Z|+01:00)},
 * without {@code DateTimeFormatter}; {@link ColumnType#parseInstant} hands every other text to
 * {@code OffsetDateTime.parse}, which stays the definition of what is read.
 *
 * <p>Hand-written because the JDK's ISO formatter costs 1.5-2 µs a call in a JVM that only runs C1
 * (the launcher's choice for {@code load}, docs/benchmarks.md) and an event is read with two or more
 * of them (its event_time and each timestamptz column): 0.3-0.4 s of a 100,000-change load. It
 * gives exactly what the formatter gives or nothing ({@code IsoInstantTest} compares the two on
 * generated texts): any text not in the form above, or a field out of range (a 30th of February, a
 * 24th hour, an offset beyond 18 hours), returns null and goes to the formatter.
 */
final class IsoInstant {

    private IsoInstant() {
    }

    /** The instant of {@code s} (already trimmed) when it is in the common form, else null. */
    static Instant parse(String s) {
        int n = s.length();
        if (n < 20 || n > 35 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if ((year | month | day | hour | minute | second) < 0) {
            return null;
        }
        int i = 19;
        int nano = 0;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && i - start < 9 && isDigit(s.charAt(i))) {
                nano = nano * 10 + (s.charAt(i) - '0');
                i++;
            }
            int width = i - start;
            if (width == 0 || (i < n && isDigit(s.charAt(i)))) {
                return null; // no digit, or more than nine: the formatter's to judge
            }
            for (int w = width; w < 9; w++) {
                nano *= 10;
            }
        }
        if (i >= n) {
            return null;
        }
        ZoneOffset offset;
        char sign = s.charAt(i);
        try {
            if (sign == 'Z' && i + 1 == n) {
                offset = ZoneOffset.UTC;
            } else if ((sign == '+' || sign == '-') && i + 6 == n && s.charAt(i + 3) == ':') {
                int oh = digits(s, i + 1, 2);
                int om = digits(s, i + 4, 2);
                if ((oh | om) < 0) {
                    return null;
                }
                offset = sign == '+' ? ZoneOffset.ofHoursMinutes(oh, om) : ZoneOffset.ofHoursMinutes(-oh, -om);
            } else {
                return null;
            }
            return LocalDateTime.of(year, month, day, hour, minute, second, nano).toInstant(offset);
        } catch (DateTimeException e) {
            return null; // out of range: the formatter gives the answer
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The non-negative number of {@code len} ASCII digits at {@code at}, or -1. */
    private static int digits(String s, int at, int len) {
        int v = 0;
        for (int k = at; k < at + len; k++) {
            char c = s.charAt(k);
            if (!isDigit(c)) {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
