package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every form of date and time text the tools users load from write, each read to its whole value
 * or refused with its whole message, with and without {@code --time-zone}.
 */
class TimeTextsTest {

    private static final TimeTexts NO_ZONE = new TimeTexts(null);
    private static final TimeTexts BERLIN = new TimeTexts(ZoneId.of("Europe/Berlin"));

    /** Each text read by {@code read}: its value's text, or "refused: " and the message. */
    private static Map<String, String> outcomes(Function<String, Object> read, String... texts) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String t : texts) {
            try {
                m.put(t, String.valueOf(read.apply(t)));
            } catch (IllegalArgumentException e) {
                m.put(t, "refused: " + e.getMessage());
            }
        }
        return m;
    }

    private static final String NO_OFFSET = " has no UTC offset: give --time-zone ZONE, the zone the file's times are in "
            + "(e.g. --time-zone UTC or --time-zone Europe/Berlin), or write the times with an offset (2025-08-20 09:00:00+00)";

    @Test
    void instantsWithAnOffsetInEveryFormToolsWriteAreReadWithoutAZone() {
        assertThat(outcomes(NO_ZONE::instant,
                "2025-08-20 09:00:00+00",           // PostgreSQL \copy ... CSV, session time zone UTC
                "2025-08-20 11:00:00+02",           // PostgreSQL, another session time zone
                "2025-08-20 14:30:00+05:30",        // PostgreSQL, a half-hour zone
                "2025-08-20 09:00:00.123456+00",    // PostgreSQL, microseconds
                "2025-08-20T09:00:00.000Z",         // Spark's CSV default
                "2025-08-20T09:00:00Z",
                "2025-08-20 09:00:00Z",
                "2025-08-20 09:00:00.5+00:00",      // pandas, a tz-aware column
                "2025-08-20 09:00:00.123456789+00:00", // pandas, nanoseconds
                "2025-08-20T04:00:00-0500",         // +HHMM
                "2025-08-20 09:00:00 +0000",        // a space before the offset
                "2025-08-20 09:00:00 UTC",          // BigQuery
                "2025-08-20t09:00z",                // lower case, no seconds
                "1900-01-01 00:00:00+00:53:28",     // PostgreSQL, a zone's local mean time before 1900
                "  2025-08-20 09:00:00+00  "))
                .containsExactly(
                        Map.entry("2025-08-20 09:00:00+00", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 11:00:00+02", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 14:30:00+05:30", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 09:00:00.123456+00", "2025-08-20T09:00:00.123456Z"),
                        Map.entry("2025-08-20T09:00:00.000Z", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20T09:00:00Z", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 09:00:00Z", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 09:00:00.5+00:00", "2025-08-20T09:00:00.500Z"),
                        Map.entry("2025-08-20 09:00:00.123456789+00:00", "2025-08-20T09:00:00.123456789Z"),
                        Map.entry("2025-08-20T04:00:00-0500", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 09:00:00 +0000", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20 09:00:00 UTC", "2025-08-20T09:00:00Z"),
                        Map.entry("2025-08-20t09:00z", "2025-08-20T09:00:00Z"),
                        Map.entry("1900-01-01 00:00:00+00:53:28", "1899-12-31T23:06:32Z"),
                        Map.entry("  2025-08-20 09:00:00+00  ", "2025-08-20T09:00:00Z"));
    }

    @Test
    void localTextsAreRefusedAsInstantsWithoutAZoneSayingToGiveOneAndReadInItWithOne() {
        String[] local = {"2025-08-20 09:00:00", "2025-08-20T09:00:00.25", "2025-08-20 09:00", "2025-09-02"};
        assertThat(outcomes(NO_ZONE::instant, local)).containsExactly(
                Map.entry("2025-08-20 09:00:00", "refused: \"2025-08-20 09:00:00\"" + NO_OFFSET),
                Map.entry("2025-08-20T09:00:00.25", "refused: \"2025-08-20T09:00:00.25\"" + NO_OFFSET),
                Map.entry("2025-08-20 09:00", "refused: \"2025-08-20 09:00\"" + NO_OFFSET),
                Map.entry("2025-09-02", "refused: \"2025-09-02\"" + NO_OFFSET));
        assertThat(outcomes(BERLIN::instant, local)).containsExactly(
                Map.entry("2025-08-20 09:00:00", "2025-08-20T07:00:00Z"),
                Map.entry("2025-08-20T09:00:00.25", "2025-08-20T07:00:00.250Z"),
                Map.entry("2025-08-20 09:00", "2025-08-20T07:00:00Z"),
                Map.entry("2025-09-02", "2025-09-01T22:00:00Z"));
        assertThat(outcomes(new TimeTexts(ZoneId.of("UTC"))::instant, "2025-09-02", "2025-08-20 09:00:00"))
                .containsExactly(Map.entry("2025-09-02", "2025-09-02T00:00:00Z"), Map.entry("2025-08-20 09:00:00", "2025-08-20T09:00:00Z"));
        // an offset in the text wins over the zone
        assertThat(BERLIN.instant("2025-08-20 09:00:00+00")).isEqualTo(Instant.parse("2025-08-20T09:00:00Z"));
    }

    @Test
    void localTimesAroundSummerTimeChangesAreReadAsPostgresReadsThem() {
        // 2025-03-30 02:30 does not exist in Berlin (clocks go 02:00 -> 03:00): the offset before the change, +01
        // 2025-10-26 02:30 happens twice (03:00 -> 02:00): the offset after the change, +01
        assertThat(outcomes(BERLIN::instant, "2025-03-30 02:30:00", "2025-10-26 02:30:00", "2025-10-26 01:30:00"))
                .containsExactly(
                        Map.entry("2025-03-30 02:30:00", "2025-03-30T01:30:00Z"),
                        Map.entry("2025-10-26 02:30:00", "2025-10-26T01:30:00Z"),
                        Map.entry("2025-10-26 01:30:00", "2025-10-25T23:30:00Z"));
    }

    @Test
    void textsThatAreNotADateTimeAreRefusedWithTheFormsThatAre() {
        String forms = " is not a date-time; write it as 2025-08-20 09:00:00+00, 2025-08-20T09:00:00.5Z or 2025-08-20";
        assertThat(outcomes(NO_ZONE::instant, "yesterday", "8/20/2025 9:00", "20.08.2025 09:00", "2025-08-20 9:00:00+00",
                "2025-08-20 09:00:00.1234567890Z", "2025-08-20 09:00:00.Z", "2025-08-20 09:00:00+0", "2025-08-20 09:00:00+00:0", "2025-08-20 09:00:00+0000:00", "2025-08-20 09:00:00+00::0",
                "2025-08-20 09:00:00 Europe/Berlin", "2025-08-20X09:00:00Z", "2025-13-01", "2025-02-30 10:00:00Z",
                "2025-08-20 24:00:00Z", "2025-08-20 09:00:00+19", "").values()).containsExactly(
                "refused: \"yesterday\"" + forms,
                "refused: \"8/20/2025 9:00\"" + forms,
                "refused: \"20.08.2025 09:00\"" + forms,
                "refused: \"2025-08-20 9:00:00+00\"" + forms,
                "refused: \"2025-08-20 09:00:00.1234567890Z\"" + forms,
                "refused: \"2025-08-20 09:00:00.Z\"" + forms,
                "refused: \"2025-08-20 09:00:00+0\"" + forms,
                "refused: \"2025-08-20 09:00:00+00:0\"" + forms,
                "refused: \"2025-08-20 09:00:00+0000:00\"" + forms,
                "refused: \"2025-08-20 09:00:00+00::0\"" + forms,
                "refused: \"2025-08-20 09:00:00 Europe/Berlin\"" + forms,
                "refused: \"2025-08-20X09:00:00Z\"" + forms,
                "refused: \"2025-13-01\" is not a valid date-time: Invalid value for MonthOfYear (valid values 1 - 12): 13",
                "refused: \"2025-02-30 10:00:00Z\" is not a valid date-time: Invalid date 'FEBRUARY 30'",
                "refused: \"2025-08-20 24:00:00Z\" is not a valid date-time: Invalid value for HourOfDay (valid values 0 - 23): 24",
                "refused: \"2025-08-20 09:00:00+19\" is not a valid date-time: Zone offset hours not in valid range: value 19 is not "
                        + "in the range -18 to 18",
                "refused: \"\"" + forms);
    }

    @Test
    void timestampsWithoutTimeZoneTakeLocalTextsAndAnOffsetOnlyWithAZone() {
        String[] texts = {"2025-08-20 09:00:00", "2025-08-20T09:00:00.123456789", "2025-09-02", "2025-08-20 09:00:00+00"};
        assertThat(outcomes(NO_ZONE::localDateTime, texts)).containsExactly(
                Map.entry("2025-08-20 09:00:00", "2025-08-20T09:00"),
                Map.entry("2025-08-20T09:00:00.123456789", "2025-08-20T09:00:00.123456789"),
                Map.entry("2025-09-02", "2025-09-02T00:00"),
                Map.entry("2025-08-20 09:00:00+00", "refused: \"2025-08-20 09:00:00+00\" has a UTC offset, and a timestamp without time "
                        + "zone takes a local date-time: declare the column timestamptz, or give --time-zone ZONE to take its local "
                        + "date-time in ZONE"));
        assertThat(outcomes(BERLIN::localDateTime, texts)).containsExactly(
                Map.entry("2025-08-20 09:00:00", "2025-08-20T09:00"),
                Map.entry("2025-08-20T09:00:00.123456789", "2025-08-20T09:00:00.123456789"),
                Map.entry("2025-09-02", "2025-09-02T00:00"),
                Map.entry("2025-08-20 09:00:00+00", "2025-08-20T11:00"));
    }

    @Test
    void datesTakeADateOrAMidnightWithoutOffset() {
        String notADate = " is not a date: a date column takes a date (2025-08-20), or a date-time at midnight without an offset";
        assertThat(outcomes(BERLIN::date, "2025-09-02", "2025-09-02 00:00:00", "2025-09-02T00:00", "2025-09-02 10:00:00",
                "2025-09-02 00:00:00+00", "02.09.2025")).containsExactly(
                Map.entry("2025-09-02", "2025-09-02"),
                Map.entry("2025-09-02 00:00:00", "2025-09-02"),
                Map.entry("2025-09-02T00:00", "2025-09-02"),
                Map.entry("2025-09-02 10:00:00", "refused: \"2025-09-02 10:00:00\"" + notADate),
                Map.entry("2025-09-02 00:00:00+00", "refused: \"2025-09-02 00:00:00+00\"" + notADate),
                Map.entry("02.09.2025", "refused: \"02.09.2025\" is not a date-time; write it as 2025-08-20 09:00:00+00, "
                        + "2025-08-20T09:00:00.5Z or 2025-08-20"));
    }

    @Test
    void typedLocalDateTimesBecomeInstantsInTheZoneOrAsUtc() {
        LocalDateTime t = LocalDateTime.parse("2025-08-20T09:00:00");
        assertThat(NO_ZONE.value(ColumnType.TIMESTAMPTZ, t)).isEqualTo(Instant.parse("2025-08-20T09:00:00Z"));
        assertThat(BERLIN.value(ColumnType.TIMESTAMPTZ, t)).isEqualTo(Instant.parse("2025-08-20T07:00:00Z"));
        assertThat(BERLIN.value(ColumnType.TIMESTAMP, t)).isEqualTo(t);
        assertThat(BERLIN.value(ColumnType.TEXT, "2025-08-20 09:00:00")).isEqualTo("2025-08-20 09:00:00");
        assertThat(BERLIN.value(ColumnType.BIGINT, "12")).isEqualTo("12");
    }

    private static final EntitySpec SPEC = EntitySpec.builder()
            .name("orders").table("orders")
            .key(List.of("id"))
            .tracked(List.of("placed", "day", "local", "note"))
            .columns(new LinkedHashMap<>(Map.of("id", ColumnType.TEXT, "placed", ColumnType.TIMESTAMPTZ, "day", ColumnType.DATE,
                    "local", ColumnType.TIMESTAMP, "note", ColumnType.TEXT)))
            .latenessHorizon(Optional.empty())
            .build();

    private static Event event(Object placed, Object day, Object local) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "O1");
        data.put("placed", placed);
        data.put("day", day);
        data.put("local", local);
        data.put("note", "2025-08-20 09:00:00");
        data.put("stray", "2025-08-20 09:00:00");
        return Event.upsert(Instant.parse("2025-08-20T09:00:00Z"), data, 7, Source.line("orders.csv", 7));
    }

    @Test
    void anEventsDateAndTimeColumnsAreReadAndTheFirstBadOneIsItsRejectionNamingTheColumn() {
        NativeEventJson.Parsed ok = BERLIN.readValues(SPEC, event("2025-08-20 09:00:00+00", "2025-08-20", "2025-08-20 09:00:00"));
        Map<String, Object> typed = new LinkedHashMap<>();
        typed.put("id", "O1");
        typed.put("placed", Instant.parse("2025-08-20T09:00:00Z"));
        typed.put("day", LocalDate.parse("2025-08-20"));
        typed.put("local", LocalDateTime.parse("2025-08-20T09:00:00"));
        typed.put("note", "2025-08-20 09:00:00");   // text stays text
        typed.put("stray", "2025-08-20 09:00:00");  // not the entity's: the validator refuses it
        assertThat(ok).isEqualTo(new NativeEventJson.Parsed(Event.upsert(Instant.parse("2025-08-20T09:00:00Z"), typed, 7,
                Source.line("orders.csv", 7)), null));

        Event nulls = event(null, null, null);
        assertThat(NO_ZONE.readValues(SPEC, nulls)).isEqualTo(new NativeEventJson.Parsed(nulls, null));

        assertThat(NO_ZONE.readValues(SPEC, event("2025-08-20 09:00:00", "2025-08-20", "soon"))).isEqualTo(new NativeEventJson.Parsed(null,
                new Rejection(Source.line("orders.csv", 7), "column 'placed': \"2025-08-20 09:00:00\"" + NO_OFFSET)));
        assertThat(NO_ZONE.readValues(SPEC, event("2025-08-20 09:00:00Z", "2025-08-20", "soon"))).isEqualTo(new NativeEventJson.Parsed(null,
                new Rejection(Source.line("orders.csv", 7), "column 'local': \"soon\" is not a date-time; write it as "
                        + "2025-08-20 09:00:00+00, 2025-08-20T09:00:00.5Z or 2025-08-20")));
    }
}
