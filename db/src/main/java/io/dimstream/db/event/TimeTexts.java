package io.dimstream.db.event;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one reader of date and time texts in loaded files ({@code dimstream load}: the event time and
 * the values of timestamptz, timestamp and date columns, in JSON lines and in CSV or Parquet text),
 * which takes every form PostgreSQL ({@code \copy ... CSV}: {@code 2025-08-20 09:00:00+00}), Spark
 * ({@code 2025-08-20T09:00:00.000Z}), pandas ({@code 2025-08-20 09:00:00.123456+00:00}) and Excel
 * (with an ISO cell format) write:
 * <ul>
 *   <li>a date {@code 2025-08-20}, then optionally a time after {@code T} or a space: {@code HH:MM},
 *       {@code HH:MM:SS} or {@code HH:MM:SS.F} with 1 to 9 fractional digits;</li>
 *   <li>then optionally an offset, right after the time or after one space: {@code Z}, {@code UTC},
 *       {@code +HH}, {@code +HHMM}, {@code +HH:MM} or {@code +HH:MM:SS} (and {@code -}).</li>
 * </ul>
 * A bare date is its midnight. A text without an offset is a local date-time: it becomes an instant
 * (a timestamptz value, an event time) only in the {@link #TimeTexts(ZoneId) zone given}
 * ({@code --time-zone}), read as PostgreSQL reads it (a time skipped by a change to summer time takes
 * the offset before the change; a time that occurs twice, the offset after it); without a zone it is
 * refused, saying to give one. A timestamp-without-time-zone column takes local texts as they are,
 * and a text with an offset only with a zone (its local date-time there). A date column takes a date,
 * or a date-time at midnight without an offset.
 *
 * <p>Only {@code load} reads with this class, before the {@link EventValidator} (which then takes
 * the typed values); the Kafka formats keep their own, stricter reading of texts (ISO-8601 with
 * {@code T} and an offset, {@link ColumnType#coerce}), so a record on a topic is judged as before.
 */
public final class TimeTexts {

    private static final String EXAMPLES = "2025-08-20 09:00:00+00, 2025-08-20T09:00:00.5Z or 2025-08-20";

    private final ZoneId zone;

    /** @param zone the zone of texts without an offset ({@code --time-zone}), or null: such texts are refused as instants */
    public TimeTexts(ZoneId zone) {
        this.zone = zone;
    }

    /** What a text says: a date, a time of day (null for a bare date) and an offset (null when it has none). */
    record Reading(LocalDate date, LocalTime time, ZoneOffset offset) {

        LocalDateTime local() {
            return time == null ? date.atStartOfDay() : date.atTime(time);
        }
    }

    /** The instant a text names: with an offset, or a local date-time in the zone given. */
    public Instant instant(String text) {
        Reading r = read(text);
        if (r.offset() != null) {
            return r.local().toInstant(r.offset());
        }
        if (zone == null) {
            throw new IllegalArgumentException(quoted(text) + " has no UTC offset: give --time-zone ZONE, the zone the file's times "
                    + "are in (e.g. --time-zone UTC or --time-zone Europe/Berlin), or write the times with an offset (2025-08-20 09:00:00+00)");
        }
        return inZone(r.local());
    }

    /** A typed local date-time (a Parquet {@code TIMESTAMP}) as an instant: in the zone given, else as UTC. */
    public Instant instant(LocalDateTime t) {
        return zone == null ? t.toInstant(ZoneOffset.UTC) : inZone(t);
    }

    /** A timestamp without time zone: a local text as it is; a text with an offset only with a zone (its local time there). */
    public LocalDateTime localDateTime(String text) {
        Reading r = read(text);
        if (r.offset() == null) {
            return r.local();
        }
        if (zone == null) {
            throw new IllegalArgumentException(quoted(text) + " has a UTC offset, and a timestamp without time zone takes a local "
                    + "date-time: declare the column timestamptz, or give --time-zone ZONE to take its local date-time in ZONE");
        }
        return r.local().toInstant(r.offset()).atZone(zone).toLocalDateTime();
    }

    /** A date: a bare date, or a date-time at midnight without an offset. */
    public LocalDate date(String text) {
        Reading r = read(text);
        if (r.offset() != null || (r.time() != null && !r.time().equals(LocalTime.MIDNIGHT))) {
            throw new IllegalArgumentException(quoted(text) + " is not a date: a date column takes a date (2025-08-20), "
                    + "or a date-time at midnight without an offset");
        }
        return r.date();
    }

    /**
     * The value of a column of {@code type} as read here: a text of a timestamptz, timestamp or date
     * column parsed, a typed local date-time into timestamptz placed by {@link #instant(LocalDateTime)};
     * anything else as it is (the validator types it).
     *
     * @throws IllegalArgumentException naming what is wrong with the text and what to do
     */
    public Object value(ColumnType type, Object raw) {
        if (raw instanceof String s) {
            return switch (type) {
                case TIMESTAMPTZ -> instant(s);
                case TIMESTAMP -> localDateTime(s);
                case DATE -> date(s);
                default -> raw;
            };
        }
        if (raw instanceof LocalDateTime t && type == ColumnType.TIMESTAMPTZ) {
            return instant(t);
        }
        return raw;
    }

    /**
     * The event with the values of its date and time columns read by {@link #value}, or its
     * rejection naming the first column whose text is not read (the validator judges the rest).
     */
    public NativeEventJson.Parsed readValues(EntitySpec entity, Event e) {
        Map<String, Object> data = null;
        for (Map.Entry<String, Object> f : e.data().entrySet()) {
            ColumnType type = entity.type(f.getKey()); // null for a column the entity lacks: the validator's to refuse
            if (f.getValue() == null || type == null || !(type == ColumnType.TIMESTAMPTZ || type == ColumnType.TIMESTAMP
                    || type == ColumnType.DATE)) {
                continue;
            }
            Object v;
            try {
                v = value(type, f.getValue());
            } catch (IllegalArgumentException ex) {
                return new NativeEventJson.Parsed(null, new Rejection(e.source(), "column '" + f.getKey() + "': " + ex.getMessage()));
            }
            if (v != f.getValue()) {
                data = data == null ? new LinkedHashMap<>(e.data()) : data;
                data.put(f.getKey(), v);
            }
        }
        return new NativeEventJson.Parsed(data == null ? e
                : new Event(e.op(), e.eventTime(), data, e.seq(), e.source(), e.badTimeReason()), null);
    }

    private Instant inZone(LocalDateTime t) {
        // PostgreSQL's reading: a skipped local time takes the offset before the change, a repeated one the offset after it
        return ZonedDateTime.ofLocal(t, zone, null).withLaterOffsetAtOverlap().toInstant();
    }

    /**
     * The parts of a text in one of the forms above (surrounding blanks ignored).
     *
     * @throws IllegalArgumentException when it is not one, with the forms that are
     */
    static Reading read(String text) {
        String s = text.strip();
        int n = s.length();
        if (n < 10 || s.charAt(4) != '-' || s.charAt(7) != '-') {
            throw notATime(text);
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        if ((year | month | day) < 0) {
            throw notATime(text);
        }
        try {
            LocalDate date = LocalDate.of(year, month, day);
            if (n == 10) {
                return new Reading(date, null, null);
            }
            char sep = s.charAt(10);
            if ((sep != 'T' && sep != 't' && sep != ' ') || n < 16 || s.charAt(13) != ':') {
                throw notATime(text);
            }
            int hour = digits(s, 11, 2);
            int minute = digits(s, 14, 2);
            int second = 0;
            int nano = 0;
            int i = 16;
            if (i < n && s.charAt(i) == ':') {
                second = i + 3 <= n ? digits(s, i + 1, 2) : -1;
                i += 3;
                if (i < n && s.charAt(i) == '.') {
                    int start = ++i;
                    while (i < n && isDigit(s.charAt(i))) {
                        i++;
                    }
                    int width = i - start;
                    if (width == 0 || width > 9) {
                        throw notATime(text);
                    }
                    nano = digits(s, start, width);
                    for (int w = width; w < 9; w++) {
                        nano *= 10;
                    }
                }
            }
            if ((hour | minute | second) < 0) {
                throw notATime(text);
            }
            LocalTime time = LocalTime.of(hour, minute, second, nano);
            return new Reading(date, time, offset(s.substring(i), text));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(quoted(text) + " is not a valid date-time: " + e.getMessage(), e);
        }
    }

    /** The offset a text ends with (after the time, or after one space), null when there is none. */
    private static ZoneOffset offset(String rest, String text) {
        String o = rest.startsWith(" ") ? rest.substring(1) : rest;
        if (rest.isEmpty()) {
            return null;
        }
        if (o.equals("Z") || o.equals("z") || o.equals("UTC")) {
            return ZoneOffset.UTC;
        }
        if (o.length() < 3 || (o.charAt(0) != '+' && o.charAt(0) != '-')) {
            throw notATime(text);
        }
        String d = o.substring(1);
        if (d.indexOf(':') >= 0) {
            // +HH:MM or +HH:MM:SS: a colon after each pair, never in one place and not the other
            if ((d.length() != 5 && d.length() != 8) || d.charAt(2) != ':' || (d.length() == 8 && d.charAt(5) != ':')) {
                throw notATime(text);
            }
            d = d.replace(":", "");
        }
        if (d.length() != 2 && d.length() != 4 && d.length() != 6) { // +HH, +HHMM, +HHMMSS
            throw notATime(text);
        }
        int h = digits(d, 0, 2);
        int m = d.length() > 2 ? digits(d, 2, 2) : 0;
        int sec = d.length() > 4 ? digits(d, 4, 2) : 0;
        if ((h | m | sec) < 0) {
            throw notATime(text);
        }
        int sign = o.charAt(0) == '-' ? -1 : 1;
        return ZoneOffset.ofHoursMinutesSeconds(sign * h, sign * m, sign * sec);
    }

    private static IllegalArgumentException notATime(String text) {
        return new IllegalArgumentException(quoted(text) + " is not a date-time; write it as " + EXAMPLES);
    }

    private static String quoted(String text) {
        String t = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return "\"" + t + "\"";
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
