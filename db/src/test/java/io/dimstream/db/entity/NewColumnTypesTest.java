package io.dimstream.db.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.testing.TestPostgres;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code timestamp}, {@code time}, {@code jsonb} and {@code bytea}: what {@link ColumnType#coerce}
 * makes of each input, what it refuses (what PostgreSQL would refuse), the typed values one type
 * takes from another, and the canonical texts, checked against PostgreSQL's own reading where it
 * has one.
 */
class NewColumnTypesTest {

    private final DataSource ds = TestPostgres.dataSource();

    private static String refusal(ColumnType t, Object v) {
        try {
            Object typed = t.coerce(v);
            return "accepted: " + (typed instanceof byte[] b ? t.canonical(b) : typed);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    // ---- config names, as PostgreSQL prints them ---------------------------------------------

    @Test
    void configNamesAndFormatTypeNames() {
        assertThat(List.of("timestamp", "TIMESTAMP without time zone", "time", "time without time zone", "jsonb", "bytea").stream()
                .map(n -> ColumnType.fromConfig(n).orElseThrow()).toList())
                .isEqualTo(List.of(ColumnType.TIMESTAMP, ColumnType.TIMESTAMP, ColumnType.TIME, ColumnType.TIME, ColumnType.JSONB,
                        ColumnType.BYTEA));
        assertThat(List.of(ColumnType.TIMESTAMP, ColumnType.TIME, ColumnType.JSONB, ColumnType.BYTEA).stream().map(ColumnType::sqlName).toList())
                .isEqualTo(List.of("timestamp without time zone", "time without time zone", "jsonb", "bytea"));
        assertThat(ColumnType.supportedNames()).isEqualTo("text, varchar(n), smallint, integer, bigint, numeric, numeric(p,s), "
                + "double precision, boolean, date, timestamp, timestamptz, time, uuid, jsonb, bytea");
    }

    @Test
    void theSqlNamesAreWhatFormatTypePrints() throws SQLException {
        List<String> printed = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT format_type(t::regtype, NULL) FROM unnest(?::text[]) t")) {
            p.setArray(1, c.createArrayOf("text", new String[] {"timestamp", "time", "jsonb", "bytea"}));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    printed.add(rs.getString(1));
                }
            }
        }
        assertThat(printed).isEqualTo(List.of(ColumnType.TIMESTAMP.sqlName(), ColumnType.TIME.sqlName(), ColumnType.JSONB.sqlName(),
                ColumnType.BYTEA.sqlName()));
    }

    // ---- timestamp (without time zone) -----------------------------------------------------------

    @Test
    void timestampTakesLocalDateTimesAndInstantsAsUtcAndCutsToMicros() {
        assertThat(ColumnType.TIMESTAMP.coerce("2018-06-20T15:13:16.945104")).isEqualTo(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000));
        assertThat(ColumnType.TIMESTAMP.coerce("2018-06-20 15:13:16.9451049")).isEqualTo(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000));
        assertThat(ColumnType.TIMESTAMP.coerce(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_999)))
                .isEqualTo(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000));
        assertThat(ColumnType.TIMESTAMP.coerce(Instant.parse("2018-06-20T15:13:16.945104Z")))
                .isEqualTo(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000));
        assertThat(ColumnType.TIMESTAMP.coerce("0001-01-01T00:00:00")).isEqualTo(ColumnType.MIN_LOCAL_TIMESTAMP);
        assertThat(ColumnType.TIMESTAMP.coerce("9999-12-31T23:59:59.999999999")).isEqualTo(ColumnType.MAX_LOCAL_TIMESTAMP);
    }

    @Test
    void timestampRefusesYearsPostgresTextCannotCarryAndOffsets() {
        assertThat(refusal(ColumnType.TIMESTAMP, LocalDateTime.of(0, 12, 31, 23, 59))).isEqualTo(
                "timestamp 0000-12-31T23:59 is outside the supported range 0001-01-01T00:00:00.000000 to 9999-12-31T23:59:59.999999");
        assertThat(refusal(ColumnType.TIMESTAMP, "+10000-01-01T00:00:00")).isEqualTo(
                "timestamp +10000-01-01T00:00 is outside the supported range 0001-01-01T00:00:00.000000 to 9999-12-31T23:59:59.999999");
        assertThat(refusal(ColumnType.TIMESTAMP, Instant.parse("+10000-01-01T00:00:00Z"))).isEqualTo(
                "timestamp +10000-01-01T00:00:00Z is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z");
        assertThat(refusal(ColumnType.TIMESTAMP, "2018-06-20T15:13:16+02:00")).isEqualTo(
                "expected timestamp without time zone, got string \"2018-06-20T15:13:16+02:00\" with an offset: a timestamp without "
                        + "time zone takes a local date-time (declare the column timestamptz for instants)");
        assertThat(refusal(ColumnType.TIMESTAMP, "yesterday")).isEqualTo("expected timestamp without time zone, got string \"yesterday\"");
        assertThat(refusal(ColumnType.TIMESTAMP, 1529507596945104L)).isEqualTo(
                "expected timestamp without time zone, got number 1529507596945104");
    }

    @Test
    void aLocalDateTimeIntoTimestamptzIsReadAsUtc() {
        assertThat(ColumnType.TIMESTAMPTZ.coerce(LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_321)))
                .isEqualTo(Instant.parse("2018-06-20T15:13:16.945104Z"));
        assertThat(refusal(ColumnType.TIMESTAMPTZ, LocalDateTime.of(10000, 1, 1, 0, 0))).isEqualTo(
                "timestamp +10000-01-01T00:00:00Z is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z");
    }

    // ---- time (without time zone) ----------------------------------------------------------------

    @Test
    void timeTakesLocalTimesCutToMicrosAndRefusesTwentyFourHours() {
        assertThat(ColumnType.TIME.coerce("23:59:59.9999999")).isEqualTo(LocalTime.of(23, 59, 59, 999_999_000));
        assertThat(ColumnType.TIME.coerce(LocalTime.of(0, 0, 0, 1))).isEqualTo(LocalTime.MIDNIGHT);
        assertThat(ColumnType.TIME.canonical(ColumnType.TIME.coerce("13:13:16.945104"))).isEqualTo("13:13:16.945104");
        assertThat(refusal(ColumnType.TIME, "24:00:00")).isEqualTo("expected time without time zone, got string \"24:00:00\"");
        assertThat(refusal(ColumnType.TIME, "13:13:16Z")).isEqualTo("expected time without time zone, got string \"13:13:16Z\"");
        assertThat(refusal(ColumnType.TIME, 3600000L)).isEqualTo("expected time without time zone, got number 3600000");
    }

    // ---- bytea ------------------------------------------------------------------------------------

    @Test
    void byteaTakesBase64AsKafkaConnectWritesItOrHexAsPostgresPrintsIt() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        String base64 = java.util.Base64.getEncoder().encodeToString(all);
        String hex = ColumnType.BYTEA.canonical(all);

        assertThat(hex).startsWith("\\x000102").endsWith("fdfeff").hasSize(2 + 512);
        assertThat((byte[]) ColumnType.BYTEA.coerce(base64)).isEqualTo(all);
        assertThat((byte[]) ColumnType.BYTEA.coerce(hex)).isEqualTo(all);
        assertThat((byte[]) ColumnType.BYTEA.coerce(hex.toUpperCase(java.util.Locale.ROOT).replace("\\X", "\\x"))).isEqualTo(all);
        assertThat((byte[]) ColumnType.BYTEA.coerce(ByteBuffer.wrap(all, 1, 2))).isEqualTo(new byte[] {1, 2});
        assertThat((byte[]) ColumnType.BYTEA.coerce("")).isEqualTo(new byte[0]);
    }

    @Test
    void byteaRefusesWhatIsNeitherBase64NorHex() {
        assertThat(refusal(ColumnType.BYTEA, "not base64!")).isEqualTo(
                "expected bytea as base64 (or \\x and hex digits), got string \"not base64!\": Illegal base64 character 20");
        assertThat(refusal(ColumnType.BYTEA, "\\x0")).isEqualTo("expected bytea, got string \"\\x0\": not \\x and pairs of hex digits");
        assertThat(refusal(ColumnType.BYTEA, "\\xzz")).isEqualTo("expected bytea, got string \"\\xzz\": not \\x and pairs of hex digits");
        assertThat(refusal(ColumnType.BYTEA, 5L)).isEqualTo("expected bytea, got number 5");
    }

    // ---- jsonb ------------------------------------------------------------------------------------

    @Test
    void jsonbIsOneCanonicalTextWhateverTheJsonCameAs() throws Exception {
        String text = "{\"name\": \"Anne\", \"tags\": [\"a\", 1, 2.50, true, null], \"id\": 7, \"address\": {\"zip\": \"75001\", \"city\": \"Paris\"}}";
        JsonNode node = NativeEventJson.mapper().readTree(text);
        Map<String, Object> address = new LinkedHashMap<>();
        address.put("city", "Paris");
        address.put("zip", "75001");
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("tags", Arrays.asList("a", BigInteger.ONE, new BigDecimal("2.50"), true, null));
        map.put("address", address);
        map.put("id", 7L);
        map.put("name", "Anne");
        String canonical = "{\"id\":7,\"name\":\"Anne\",\"tags\":[\"a\",1,2.50,true,null],\"address\":{\"zip\":\"75001\",\"city\":\"Paris\"}}";

        assertThat(ColumnType.JSONB.coerce(text)).isEqualTo(canonical);
        assertThat(ColumnType.JSONB.coerce(node)).isEqualTo(canonical);
        assertThat(ColumnType.JSONB.coerce(map)).isEqualTo(canonical);
        assertThat(ColumnType.JSONB.coerce(canonical)).isEqualTo(canonical);
        assertThat(ColumnType.JSONB.canonical(canonical)).isEqualTo(canonical);
        assertThat(ColumnType.JSONB.coerce(List.of(1L, "x"))).isEqualTo("[1,\"x\"]");
        assertThat(ColumnType.JSONB.coerce(new BigDecimal("1.5E+3"))).isEqualTo("1500");
        assertThat(ColumnType.JSONB.coerce(true)).isEqualTo("true");
        assertThat(ColumnType.JSONB.coerce("\"a string\"")).isEqualTo("\"a string\"");
        assertThat(ColumnType.JSONB.coerce("null")).isEqualTo("null");
        assertThat(ColumnType.JSONB.coerce("{\"a\": 1, \"a\": 2}")).isEqualTo("{\"a\":2}");
    }

    @Test
    void jsonbRefusesWhatJsonbRefuses() {
        assertThat(refusal(ColumnType.JSONB, "{\"a\": \"\\u0000\"}")).isEqualTo(
                "jsonb string contains a NUL character (U+0000), which jsonb cannot store");
        assertThat(refusal(ColumnType.JSONB, "{\"\\u0000\": 1}")).isEqualTo(
                "jsonb string contains a NUL character (U+0000), which jsonb cannot store");
        assertThat(refusal(ColumnType.JSONB, "[\"\\ud800\"]")).isEqualTo(
                "jsonb string contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode");
        assertThat(refusal(ColumnType.JSONB, "{\"a\": 1} {}")).startsWith(
                "expected jsonb (a JSON text), got string \"{\"a\": 1} {}\": not valid JSON: Trailing token (of type START_OBJECT)");
        assertThat(refusal(ColumnType.JSONB, "")).isEqualTo("expected jsonb (a JSON text), got string \"\": no JSON value");
        assertThat(refusal(ColumnType.JSONB, "hello")).startsWith(
                "expected jsonb (a JSON text), got string \"hello\": not valid JSON: Unrecognized token 'hello'");
        assertThat(refusal(ColumnType.JSONB, "[1e900000000]")).isEqualTo(
                "jsonb number: numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072");
        assertThat(refusal(ColumnType.JSONB, List.of(Double.NaN))).isEqualTo("jsonb number: expected a finite numeric, got number NaN");
        assertThat(refusal(ColumnType.JSONB, "[".repeat(65) + "]".repeat(65))).startsWith(
                "expected jsonb (a JSON text), got string \"" + "[".repeat(57) + "...\": "
                        + "JSON beyond dimstream's input limits: Document nesting depth (65) exceeds the maximum allowed (64");
        Object deep = List.of();
        for (int i = 0; i < 70; i++) {
            deep = List.of(deep);
        }
        assertThat(refusal(ColumnType.JSONB, deep)).isEqualTo("jsonb value nests deeper than 64 levels");
        assertThat(refusal(ColumnType.JSONB, Map.of("d", LocalDate.of(2020, 1, 1)))).isEqualTo(
                "expected jsonb, got LocalDate 2020-01-01: not a JSON value");
    }

    /**
     * The canonical text is jsonb's normal form without whitespace: PostgreSQL's {@code jsonb::text}
     * of every input equals the canonical text printed with PostgreSQL's spacing (key order,
     * numbers, escapes); and PostgreSQL refuses the inputs refused here.
     */
    @Test
    void theCanonicalTextIsPostgresJsonbTextWithoutItsSpaces() throws Exception {
        List<String> inputs = List.of(
                "{\"bb\": 1, \"a\": 2, \"ab\": 3, \"b\": {\"é\": 1, \"z\": 2, \"\u00ff\": 3, \"yy\": 4}, \"B\": 5}",
                "[1.50, 1e2, 1.5e-3, -0, -0.0, 0.000, 12345678901234567890123, 1E+3, 2.5E-10]",
                "\"tab\\there \\\"q\\\" back\\\\slash \\u0001 \\u001f \\u007f \\/ \\u00e9 \\ud83d\\ude00\"",
                "{\"a\": {}, \"b\": [], \"c\": [{}], \"d\": null, \"e\": false}",
                "{\"a\": 1, \"a\": 2}",
                "  \"x\"  ",
                "-12.3400e3");
        List<String> ours = new ArrayList<>();
        for (String in : inputs) {
            ours.add(withPostgresSpacing(NativeEventJson.mapper().readTree((String) ColumnType.JSONB.coerce(in))));
        }
        assertThat(ours).isEqualTo(postgres(inputs, "jsonb", "::text"));
        List<String> refused = List.of("{\"a\": \"\\u0000\"}", "[\"\\ud800\"]", "{\"a\": 1} {}", "", "[1e900000000]");
        for (String in : refused) {
            assertThat(refusal(ColumnType.JSONB, in)).doesNotStartWith("accepted");
        }
        assertThat(postgres(refused, "jsonb", "::text")).isEqualTo(List.of("refused", "refused", "refused", "refused", "refused"));
    }

    /** As {@code JsonbToCString}: ", " between items, ": " after a key, the rest as the canonical text. */
    private static String withPostgresSpacing(JsonNode n) {
        if (n.isObject()) {
            List<String> parts = new ArrayList<>();
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> f = it.next();
                parts.add(ColumnType.JSONB.coerce(NativeEventJson.mapper().getNodeFactory().textNode(f.getKey())) + ": "
                        + withPostgresSpacing(f.getValue()));
            }
            return "{" + String.join(", ", parts) + "}";
        }
        if (n.isArray()) {
            List<String> parts = new ArrayList<>();
            n.forEach(item -> parts.add(withPostgresSpacing(item)));
            return "[" + String.join(", ", parts) + "]";
        }
        return (String) ColumnType.JSONB.coerce(n);
    }

    @Test
    void timestampTimeAndByteaTextsAreReadBackByPostgresAsTheSameValues() throws SQLException {
        List<String> stamps = List.of("0001-01-01T00:00:00", "2018-06-20T15:13:16.945104", "9999-12-31T23:59:59.999999");
        List<String> canonicalStamps = stamps.stream().map(s -> ColumnType.TIMESTAMP.canonical(ColumnType.TIMESTAMP.coerce(s))).toList();
        assertThat(postgres(canonicalStamps, "timestamp", "::text"))
                .isEqualTo(List.of("0001-01-01 00:00:00", "2018-06-20 15:13:16.945104", "9999-12-31 23:59:59.999999"));
        // the texts a year beyond 0001..9999 would have (PostgreSQL itself takes years up to 294276 written plainly)
        assertThat(postgres(List.of(ColumnType.CANONICAL_LOCAL_TIMESTAMP.format(LocalDateTime.of(0, 12, 31, 0, 0)),
                ColumnType.CANONICAL_LOCAL_TIMESTAMP.format(LocalDateTime.of(10000, 1, 1, 0, 0))), "timestamp", "::text"))
                .isEqualTo(List.of("refused", "refused"));

        List<String> times = List.of("00:00:00", "13:13:16.945104", "23:59:59.999999");
        List<String> canonicalTimes = times.stream().map(s -> ColumnType.TIME.canonical(ColumnType.TIME.coerce(s))).toList();
        assertThat(postgres(canonicalTimes, "time", "::text")).isEqualTo(times);

        assertThat(postgres(List.of(ColumnType.BYTEA.canonical(new byte[] {0, (byte) 0xff, 0x5c})), "bytea", "::text"))
                .isEqualTo(List.of("\\x00ff5c"));
    }

    /** PostgreSQL's reading of each input as {@code type}, printed by {@code print}; "refused" when it refuses it. */
    private List<String> postgres(List<String> inputs, String type, String print) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            for (String in : inputs) {
                try (PreparedStatement p = c.prepareStatement("SELECT (?::" + type + ")" + print)) {
                    p.setString(1, in);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        out.add(rs.getString(1));
                    }
                } catch (SQLException e) {
                    out.add("refused");
                }
            }
        }
        return out;
    }

    // ---- typed values across types ----------------------------------------------------------------

    @Test
    void everyTypedValueLandsInTextAsItsCanonicalText() {
        assertThat(ColumnType.TEXT.coerce(LocalDate.of(2018, 6, 20))).isEqualTo("2018-06-20");
        assertThat(ColumnType.TEXT.coerce(LocalDateTime.of(2018, 6, 20, 15, 13, 16))).isEqualTo("2018-06-20T15:13:16.000000");
        assertThat(ColumnType.TEXT.coerce(LocalTime.of(15, 13))).isEqualTo("15:13:00.000000");
        assertThat(ColumnType.TEXT.coerce(Instant.parse("2018-06-20T15:13:16Z"))).isEqualTo("2018-06-20T15:13:16.000000Z");
        assertThat(ColumnType.TEXT.coerce(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")))
                .isEqualTo("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        assertThat(ColumnType.TEXT.coerce(new BigDecimal("1.50"))).isEqualTo("1.5");
        assertThat(ColumnType.TEXT.coerce(new byte[] {1, 2})).isEqualTo("\\x0102");
        // JSON's own scalars are still refused: a likely mistake of the feed
        assertThat(refusal(ColumnType.TEXT, BigInteger.valueOf(5))).isEqualTo("expected text, got number 5");
        assertThat(refusal(ColumnType.TEXT, true)).isEqualTo("expected text, got boolean true");
        assertThat(refusal(ColumnType.TEXT, LocalDate.of(10000, 1, 1))).isEqualTo(
                "date +10000-01-01 is outside the supported range 0001-01-01 to 9999-12-31");
    }

    @Test
    void decimalsLandInIntegerTypesWhenWholeAndTheOtherTypesKeepTheirOwn() {
        assertThat(ColumnType.BIGINT.coerce(new BigDecimal("42.000"))).isEqualTo(42L);
        assertThat(refusal(ColumnType.INTEGER, new BigDecimal("42.5"))).isEqualTo("expected integer, got number 42.5");
        assertThat(ColumnType.NUMERIC.coerce(new BigDecimal("42.50"))).isEqualTo(new BigDecimal("42.50"));
        assertThat(ColumnType.DATE.coerce(LocalDate.of(2018, 6, 20))).isEqualTo(LocalDate.of(2018, 6, 20));
        assertThat(ColumnType.UUID_TYPE.coerce(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")))
                .isEqualTo(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
        assertThat(refusal(ColumnType.DATE, LocalDateTime.of(2018, 6, 20, 0, 0))).isEqualTo(
                "expected date, got LocalDateTime 2018-06-20T00:00");
        assertThat(refusal(ColumnType.TIME, LocalDateTime.of(2018, 6, 20, 0, 0))).isEqualTo(
                "expected time without time zone, got LocalDateTime 2018-06-20T00:00");
    }
}
