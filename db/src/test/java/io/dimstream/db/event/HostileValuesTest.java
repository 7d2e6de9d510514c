package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every value PostgreSQL would refuse later is refused by {@link EventValidator} (or the native
 * JSON reader before it), with a reason naming the column; the values at the edge of each limit
 * are accepted as the exact typed value. One test per class of bad input.
 */
class HostileValuesTest {

    private static final Source SRC = Source.kafka("t", 0, 7);
    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");

    static final EntitySpec SPEC = spec();

    private static EntitySpec spec() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("n", ColumnType.BIGINT);
        cols.put("small", ColumnType.SMALLINT);
        cols.put("born", ColumnType.DATE);
        cols.put("seen", ColumnType.TIMESTAMPTZ);
        cols.put("score", ColumnType.DOUBLE);
        return EntitySpec.builder()
                .name("hostile")
                .table("hostile")
                .key(List.of("id"))
                .tracked(List.of("email", "amount", "n", "small", "born", "seen", "score"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }

    private final EventValidator validator = new EventValidator(SPEC);

    /** The rejection reason of an upsert of key "K" with one column set, or "accepted: <typed value>". */
    private String outcome(String column, Object value) {
        return outcome(SPEC, validator, T, "K", column, value);
    }

    static String outcome(EntitySpec spec, EventValidator v, Instant time, String id, String column, Object value) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put(column, value);
        EventValidator.Result r = v.validate(Event.upsert(time, data, 1, SRC));
        if (!r.ok()) {
            assertThat(r.rejection().source()).isEqualTo(SRC);
            return r.rejection().reason();
        }
        Object typed = r.event().values().get(spec.dataColumns().indexOf(column));
        return "accepted: " + (typed == null ? "null" : typed.getClass().getSimpleName() + " " + typed);
    }

    private static String repeat(String s, int n) {
        return s.repeat(n);
    }

    @Test
    void textWithANulCharacterIsRefusedNamingTheColumn() {
        assertThat(outcome("email", "a\u0000b")).isEqualTo(
                "column 'email': text contains a NUL character (U+0000), which PostgreSQL cannot store");
        assertThat(outcome("id", "K\u0000")).isEqualTo(
                "column 'id': text contains a NUL character (U+0000), which PostgreSQL cannot store");
    }

    @Test
    void textWithAnUnpairedSurrogateIsRefusedAndAPairIsKept() {
        assertThat(outcome("email", "x\ud800")).isEqualTo(
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 1), which UTF-8 cannot encode");
        assertThat(outcome("email", "\udc00x")).isEqualTo(
                "column 'email': text contains an unpaired UTF-16 surrogate (U+DC00 at character 0), which UTF-8 cannot encode");
        assertThat(outcome("email", "\ud800\ud800\udc00")).isEqualTo(
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode");
        assertThat(outcome("email", "smile \ud83d\ude00")).isEqualTo("accepted: String smile \ud83d\ude00");
    }

    @Test
    void aJsonEscapeOfALoneSurrogateIsRefusedNotTurnedIntoAQuestionMark() {
        NativeEventJson.Parsed p = NativeEventJson.parse(
                "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"K\",\"email\":\"\\ud800\"}}", 1, SRC);

        assertThat(validator.validate(p.event()).rejection()).isEqualTo(new Rejection(SRC,
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode"));
    }

    @Test
    void invalidUtf8BytesAreRefusedNamingTheByte() {
        byte[] head = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"".getBytes(StandardCharsets.UTF_8);
        List<String> reasons = new ArrayList<>();
        for (byte[] bad : List.of(new byte[] {(byte) 0xff}, new byte[] {(byte) 0xc0, (byte) 0x80},
                new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, new byte[] {(byte) 0xe2, (byte) 0x82})) {
            byte[] json = Arrays.copyOf(head, head.length + bad.length + 3);
            System.arraycopy(bad, 0, json, head.length, bad.length);
            System.arraycopy("\"}}".getBytes(StandardCharsets.UTF_8), 0, json, head.length + bad.length, 3);
            reasons.add(NativeEventJson.parse(json, 1, SRC).rejection().reason());
        }

        assertThat(head.length).isEqualTo(65);
        assertThat(reasons).isEqualTo(List.of(
                "not valid UTF-8: malformed byte sequence at byte 65",   // 0xFF starts nothing
                "not valid UTF-8: malformed byte sequence at byte 65",   // overlong NUL
                "not valid UTF-8: malformed byte sequence at byte 65",   // an encoded surrogate (CESU-8)
                "not valid UTF-8: malformed byte sequence at byte 65")); // a truncated sequence
    }

    @Test
    void eventTimesOutsideFourDigitYearsAreRefusedAndTheEdgesAccepted() {
        List<String> out = new ArrayList<>();
        for (String t : List.of("0000-06-01T00:00:00Z", "-0001-01-01T00:00:00Z", "+10000-01-01T00:00:00Z",
                "+300000-01-01T00:00:00Z", "-999999999-01-01T00:00:00Z", "0000-12-31T23:59:59.999999Z",
                "+10000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.9999999Z")) {
            EventValidator.Result r = validator.validate(Event.upsert(Instant.parse(t).truncatedTo(java.time.temporal.ChronoUnit.MICROS),
                    Map.of("id", "K"), 1, SRC));
            out.add(r.ok() ? "accepted " + r.event().eventTime() : r.rejection().reason());
        }
        String range = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
        assertThat(out).isEqualTo(List.of(
                "event_time 0000-06-01T00:00:00Z" + range,
                "event_time -0001-01-01T00:00:00Z" + range,
                "event_time +10000-01-01T00:00:00Z" + range,
                "event_time +300000-01-01T00:00:00Z" + range,
                "event_time -999999999-01-01T00:00:00Z" + range,
                "event_time 0000-12-31T23:59:59.999999Z" + range,
                "event_time +10000-01-01T00:00:00Z" + range,
                "accepted 0001-01-01T00:00:00Z",
                "accepted 9999-12-31T23:59:59.999999Z",
                "accepted 9999-12-31T23:59:59.999999Z"));
    }

    @Test
    void nativeJsonEventTimesOutsideTheRangeAreRefusedQuotingTheText() {
        List<String> reasons = new ArrayList<>();
        for (String t : List.of("+300000-01-01T00:00:00Z", "-999999999-01-01T00:00:00Z", "0000-06-01T00:00:00Z",
                "9999-12-31T23:59:59.999999-01:00")) {
            NativeEventJson.Parsed p = NativeEventJson.parse("{\"op\":\"upsert\",\"event_time\":\"" + t + "\",\"data\":{\"id\":\"K\"}}", 1, SRC);
            reasons.add(validator.validate(p.event()).rejection().reason());
        }

        String range = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
        assertThat(reasons).isEqualTo(List.of(
                "event_time \"+300000-01-01T00:00:00Z\"" + range,
                "event_time \"-999999999-01-01T00:00:00Z\"" + range,
                "event_time \"0000-06-01T00:00:00Z\"" + range,
                "event_time \"9999-12-31T23:59:59.999999-01:00\"" + range));
    }

    @Test
    void timestampValuesOutsideTheRangeAreRefusedWhateverTheirForm() {
        String range = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
        assertThat(outcome("seen", "+300000-01-01T00:00:00Z")).isEqualTo("column 'seen': timestamp +300000-01-01T00:00:00Z" + range);
        assertThat(outcome("seen", "-999999999-01-01T00:00:00Z")).isEqualTo("column 'seen': timestamp -999999999-01-01T00:00:00Z" + range);
        assertThat(outcome("seen", Instant.ofEpochMilli(Long.MAX_VALUE))).isEqualTo("column 'seen': timestamp +292278994-08-17T07:12:55.807Z" + range);
        assertThat(outcome("seen", Instant.ofEpochMilli(Long.MIN_VALUE))).isEqualTo("column 'seen': timestamp -292275055-05-16T16:47:04.192Z" + range);
        assertThat(outcome("seen", Instant.MAX)).isEqualTo("column 'seen': timestamp +1000000000-12-31T23:59:59.999999Z" + range);
        assertThat(outcome("seen", "0001-01-01T00:00:00Z")).isEqualTo("accepted: Instant 0001-01-01T00:00:00Z");
    }

    @Test
    void datesOutsideFourDigitYearsAreRefused() {
        assertThat(outcome("born", "+10000000-01-01")).isEqualTo(
                "column 'born': date +10000000-01-01 is outside the supported range 0001-01-01 to 9999-12-31");
        assertThat(outcome("born", LocalDate.of(0, 6, 1))).isEqualTo(
                "column 'born': date 0000-06-01 is outside the supported range 0001-01-01 to 9999-12-31");
        assertThat(outcome("born", LocalDate.ofEpochDay(Integer.MIN_VALUE))).isEqualTo(
                "column 'born': date -5877641-06-23 is outside the supported range 0001-01-01 to 9999-12-31");
        assertThat(outcome("born", "9999-12-31")).isEqualTo("accepted: LocalDate 9999-12-31");
    }

    /**
     * A guard against unbounded work, not a speed measurement: before the limits were checked from
     * precision and scale, {@code 1e900000000} built a 900-million-digit string (and ran out of heap).
     */
    @Test
    void numericsBeyondPostgresDigitLimitsAreRefusedFromTheirPrecisionAndScale() {
        List<String> out = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> List.of(
                outcome("amount", "1e900000000"),
                outcome("amount", new BigDecimal("1e900000000")),
                outcome("amount", "1e-20000"),
                outcome("amount", new BigDecimal(BigInteger.ONE, Integer.MAX_VALUE)),
                outcome("amount", new BigDecimal(BigInteger.ONE, Integer.MIN_VALUE + 1)),
                outcome("amount", "1e131072"),
                outcome("amount", "1e-16384"),
                outcome("amount", "9".repeat(200_000))));

        assertThat(out).isEqualTo(List.of(
                "column 'amount': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072",
                "column 'amount': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072",
                "column 'amount': numeric 1E-20000 has 20000 digits after the decimal point; PostgreSQL's numeric holds at most 16383",
                "column 'amount': numeric 1E-2147483647 has 2147483647 digits after the decimal point; PostgreSQL's numeric holds at most 16383",
                "column 'amount': numeric 1E+2147483647 has 2147483648 digits before the decimal point; PostgreSQL's numeric holds at most 131072",
                "column 'amount': numeric 1E+131072 has 131073 digits before the decimal point; PostgreSQL's numeric holds at most 131072",
                "column 'amount': numeric 1E-16384 has 16384 digits after the decimal point; PostgreSQL's numeric holds at most 16383",
                "column 'amount': numeric text of 200000 characters is longer than any value PostgreSQL's numeric holds "
                        + "(131072 digits before the point, 16383 after)"));
    }

    @Test
    void numericsAtPostgresDigitLimitsAreAcceptedExactly() {
        assertThat(outcome("amount", "1e131071")).isEqualTo("accepted: BigDecimal 1E+131071");
        assertThat(outcome("amount", "1e-16383")).isEqualTo("accepted: BigDecimal 1E-16383");
        assertThat(outcome("amount", "0e900000000")).isEqualTo("accepted: BigDecimal 0");
        assertThat(outcome("amount", "NaN")).isEqualTo("column 'amount': expected numeric, got string \"NaN\"");
        assertThat(outcome("amount", Double.POSITIVE_INFINITY)).isEqualTo("column 'amount': expected a finite numeric, got number Infinity");
    }

    @Test
    void integersFromHugeDecimalsAreOutOfRangeBeforeAnyExactConversion() {
        List<String> out = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> List.of(
                outcome("n", new BigDecimal("1e900000000")),
                outcome("n", new BigDecimal("-1e900000000")),
                outcome("n", new BigDecimal("1e-900000000")),
                outcome("n", new BigInteger("9".repeat(900))),
                outcome("n", "9".repeat(101)),
                outcome("n", new BigDecimal("9223372036854775808")),
                outcome("small", new BigDecimal("32768")),
                outcome("n", new BigDecimal("2.5")),
                outcome("n", new BigDecimal("5.000")),
                outcome("n", new BigDecimal("5E+3")),
                outcome("n", new BigDecimal("-9223372036854775808"))));

        assertThat(out).isEqualTo(List.of(
                "column 'n': value 1E+900000000 is out of range for bigint",
                "column 'n': value -1E+900000000 is out of range for bigint",
                "column 'n': expected bigint, got number 1E-900000000",
                "column 'n': value 999999999999999999999999999999999999999999999999999999999... is out of range for bigint",
                "column 'n': value 999999999999999999999999999999999999999999999999999999999... is out of range for bigint",
                "column 'n': value 9223372036854775808 is out of range for bigint",
                "column 'small': value 32768 is out of range for smallint",
                "column 'n': expected bigint, got number 2.5",
                "accepted: Long 5",
                "accepted: Long 5000",
                "accepted: Long -9223372036854775808"));
    }

    @Test
    void doublesMustBeFinite() {
        assertThat(outcome("score", "NaN")).isEqualTo("column 'score': expected a finite double precision, got string \"NaN\"");
        assertThat(outcome("score", new BigDecimal("1e900000000")))
                .isEqualTo("column 'score': expected a finite double precision, got number 1E+900000000");
        assertThat(outcome("score", "1.5e308")).isEqualTo("accepted: Double 1.5E308");
    }

    @Test
    void aJsonNumberLongerThanTheLimitIsRefusedAndTheSameDigitsAsAStringAccepted() {
        String digits = "1" + "0".repeat(1000);
        NativeEventJson.Parsed asNumber = NativeEventJson.parse(
                "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"K\",\"amount\":" + digits + "}}", 1, SRC);
        NativeEventJson.Parsed asString = NativeEventJson.parse(
                "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"K\",\"amount\":\"" + digits + "\"}}", 1, SRC);

        assertThat(asNumber.rejection()).isEqualTo(new Rejection(SRC, "JSON beyond dimstream's input limits: "
                + "Number value length (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNumberLength()`)"));
        assertThat(validator.validate(asString.event()).event().values().get(2)).isEqualTo(new BigDecimal(digits));
    }

    @Test
    void aKeyLongerThanPostgresIndexesHoldIsRefusedNamingItsSize() {
        assertThat(outcome("id", "k".repeat(2001))).isEqualTo("key (id) is 2001 bytes long as text; at most 2000 bytes fit "
                + "PostgreSQL's indexes on the key (an index entry holds at most about 2700 bytes)");
        assertThat(outcome("id", "\u00e9".repeat(1001))).isEqualTo("key (id) is 2002 bytes long as text; at most 2000 bytes fit "
                + "PostgreSQL's indexes on the key (an index entry holds at most about 2700 bytes)");
        assertThat(outcome("id", "k".repeat(2000))).isEqualTo("accepted: String " + "k".repeat(2000));
    }

    @Test
    void allPartsOfACompositeKeyCountTogether() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("region", ColumnType.TEXT);
        cols.put("code", ColumnType.TEXT);
        cols.put("v", ColumnType.TEXT);
        EntitySpec composite = EntitySpec.builder()
                .name("c")
                .table("c")
                .key(List.of("region", "code"))
                .tracked(List.of("v"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
        EventValidator v = new EventValidator(composite);

        Map<String, Object> data = Map.of("region", "\u20ac".repeat(400), "code", "\u20ac".repeat(300));
        assertThat(v.validate(Event.upsert(T, data, 1, SRC)).rejection()).isEqualTo(new Rejection(SRC,
                "key (region, code) is 2100 bytes long as text; at most 2000 bytes fit PostgreSQL's indexes on the key "
                        + "(an index entry holds at most about 2700 bytes)"));
    }

    @Test
    void aRecordNested100000LevelsDeepIsRefusedWhileItIsRead() {
        String deep = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"K\",\"email\":"
                + "[".repeat(100_000) + "]".repeat(100_000) + "}}";

        assertThat(NativeEventJson.parse(deep, 1, SRC).rejection()).isEqualTo(new Rejection(SRC, "JSON beyond dimstream's input limits: "
                + "Document nesting depth (65) exceeds the maximum allowed (64, from `StreamReadConstraints.getMaxNestingDepth()`)"));
    }

    @Test
    void aMillionElementArrayInAColumnIsATypeRejectionThatDescribesItsSizeOnly() {
        String array = "[" + "12345,".repeat(999_999) + "12345]";
        NativeEventJson.Parsed p = NativeEventJson.parse(
                "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"K\",\"email\":" + array + "}}", 1, SRC);

        assertThat(validator.validate(p.event()).rejection()).isEqualTo(new Rejection(SRC,
                "column 'email': expected text, got array of 1000000 elements"));
    }

    @Test
    void aReasonQuotingABadValueNeverCarriesANulOrALoneSurrogate() {
        assertThat(outcome("n", "1\u00002")).isEqualTo("column 'n': expected bigint, got string \"1\\u00002\"");
        assertThat(outcome("n", "\ud800")).isEqualTo("column 'n': expected bigint, got string \"\\uD800\"");
        Map<String, Object> data = Map.of("id", "K", "col\u0000umn", "x");
        assertThat(validator.validate(Event.upsert(T, data, 1, SRC)).rejection().reason())
                .isEqualTo("column 'col\\u0000umn' is not declared for entity 'hostile'");
    }
}
