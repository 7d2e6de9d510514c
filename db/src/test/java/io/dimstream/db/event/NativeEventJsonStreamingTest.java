package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.json.InputJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The streaming read of an event ({@code NativeEventJson.readFields(String)}) gives what reading the
 * whole text as a tree gives ({@code InputJson.readTree}, then the same fields): the same op
 * and event_time nodes, the same data map (values compared with their scale), or the same
 * rejection text, on generated events, their duplicates, their truncations and stray characters.
 */
class NativeEventJsonStreamingTest {

    /** The outcome of one reading, compared whole (the data also as its text: a map's equality ignores order). */
    private record Outcome(String error, JsonNode op, JsonNode eventTime, Map<String, Object> data, String dataInOrder, boolean object) {
        Outcome(String error, JsonNode op, JsonNode eventTime, Map<String, Object> data, boolean object) {
            this(error, op, eventTime, data, data == null ? null : data.toString(), object);
        }
    }

    private static Outcome streaming(String json) {
        try {
            NativeEventJson.Fields f = NativeEventJson.readFields(json);
            return f == null ? new Outcome(null, null, null, null, false) : new Outcome(null, f.op(), f.eventTime(), f.data(), true);
        } catch (JsonProcessingException e) {
            return new Outcome(NativeEventJson.notJson(e), null, null, null, false);
        }
    }

    private static Outcome tree(String json) {
        try {
            JsonNode root = InputJson.readTree(json);
            if (root == null || !root.isObject()) {
                return new Outcome(null, null, null, null, false);
            }
            JsonNode data = root.get("data");
            return new Outcome(null, root.get("op"), root.get("event_time"), data != null && data.isObject() ? NativeEventJson.toMap(data) : null, true);
        } catch (JsonProcessingException e) {
            return new Outcome(NativeEventJson.notJson(e), null, null, null, false);
        }
    }

    @Property(tries = 3000)
    void theStreamingReadIsTheTreeRead(@ForAll("texts") String json) {
        assertThat(streaming(json)).isEqualTo(tree(json));
    }

    @Example
    void aFlatEventIsReadIntoPlainValuesWithTheirScale() {
        Outcome o = streaming("{\"op\":\"upsert\",\"event_time\":\"2024-01-01T00:00:00Z\",\"data\":"
                + "{\"id\":7,\"big\":123456789012345678901234567890,\"price\":1.50,\"e\":1E+2,\"name\":\"a\",\"ok\":true,\"no\":false,\"n\":null,"
                + "\"tags\":[1,\"x\"],\"obj\":{\"k\":2.0}}}");
        java.util.LinkedHashMap<String, Object> expected = new java.util.LinkedHashMap<>();
        expected.put("id", BigInteger.valueOf(7));
        expected.put("big", new BigInteger("123456789012345678901234567890"));
        expected.put("price", new BigDecimal("1.50"));
        expected.put("e", new BigDecimal("1E+2"));
        expected.put("name", "a");
        expected.put("ok", true);
        expected.put("no", false);
        expected.put("n", null);
        expected.put("tags", List.of(BigInteger.ONE, "x"));
        expected.put("obj", Map.of("k", new BigDecimal("2.0")));
        assertThat(o.data()).containsExactlyEntriesOf(expected);
        assertThat(o.op().asText()).isEqualTo("upsert");
        assertThat(o.eventTime().asText()).isEqualTo("2024-01-01T00:00:00Z");
        assertThat(o).isEqualTo(tree("{\"op\":\"upsert\",\"event_time\":\"2024-01-01T00:00:00Z\",\"data\":"
                + "{\"id\":7,\"big\":123456789012345678901234567890,\"price\":1.50,\"e\":1E+2,\"name\":\"a\",\"ok\":true,\"no\":false,\"n\":null,"
                + "\"tags\":[1,\"x\"],\"obj\":{\"k\":2.0}}}"));
    }

    @Example
    void beyondTheLimitsIsTheSameRejection() {
        String deep = "{\"op\":\"upsert\",\"data\":{\"a\":" + "[".repeat(100) + "]".repeat(100) + "}}";
        String longNumber = "{\"op\":\"upsert\",\"data\":{\"a\":" + "9".repeat(1001) + "}}";
        String deepElsewhere = "{\"x\":" + "{\"y\":".repeat(80) + "1" + "}".repeat(80) + ",\"op\":\"upsert\",\"data\":{}}";
        for (String json : List.of(deep, longNumber, deepElsewhere)) {
            Outcome o = streaming(json);
            assertThat(o.error()).as(json.substring(0, 40)).startsWith("JSON beyond dimstream's input limits: ");
            assertThat(o).isEqualTo(tree(json));
        }
    }

    @Example
    void aDuplicateFieldIsTheLastOneInTheFirstOnesPlace() {
        String json = "{\"data\":{\"a\":1,\"b\":2,\"a\":3},\"op\":\"delete\",\"op\":\"upsert\",\"data\":{\"b\":1,\"a\":2,\"b\":3}}";
        Outcome o = streaming(json);
        assertThat(o.op().asText()).isEqualTo("upsert");
        assertThat(o.data()).containsExactly(Map.entry("b", BigInteger.valueOf(3)), Map.entry("a", BigInteger.TWO));
        assertThat(o).isEqualTo(tree(json));
        String dataThenNot = "{\"op\":\"upsert\",\"data\":{\"a\":1},\"data\":\"x\"}";
        assertThat(streaming(dataThenNot)).isEqualTo(new Outcome(null, streaming(dataThenNot).op(), null, null, true));
        assertThat(streaming(dataThenNot)).isEqualTo(tree(dataThenNot));
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.longs().map(seed -> text(new Random(seed)));
    }

    private static final String[] NAMES = {"op", "event_time", "data", "id", "x", "name"};
    private static final String[] SCALARS = {"\"upsert\"", "\"delete\"", "\"d\"", "\"2024-05-01T10:00:00Z\"", "\"2024-05-01 10:00\"",
        "\"\"", "\"a\\u00e9\\\"b\"", "0", "-7", "2147483648", "92233720368547758070", "1.50", "-0.0", "1e3", "1E-400", "true",
        "false", "null"};
    private static final String[] STRAY = {"{", "}", "[", "]", "\"", ",", ":", "x", "1", " ", "\\", "nul", "-", "."};

    /** An event-like object, then maybe a mutation: cut, a stray character, junk after it, or not an object. */
    private static String text(Random r) {
        StringBuilder b = new StringBuilder();
        object(b, r, 0, true);
        String s = b.toString();
        switch (r.nextInt(8)) {
            case 0 -> s = s.substring(0, r.nextInt(s.length() + 1));
            case 1 -> {
                int at = r.nextInt(s.length() + 1);
                s = s.substring(0, at) + STRAY[r.nextInt(STRAY.length)] + s.substring(at);
            }
            case 2 -> s = s + STRAY[r.nextInt(STRAY.length)];
            case 3 -> s = r.nextBoolean() ? "[" + s + "]" : SCALARS[r.nextInt(SCALARS.length)] + (r.nextBoolean() ? " " + s : "");
            default -> { }
        }
        return s;
    }

    private static void object(StringBuilder b, Random r, int depth, boolean root) {
        b.append('{');
        int n = r.nextInt(root ? 6 : 4);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(',');
            }
            String name = root ? NAMES[r.nextInt(3 + (r.nextInt(4) == 0 ? 3 : 0))] : NAMES[3 + r.nextInt(3)];
            b.append('"').append(name).append("\":");
            if (root && name.equals("data") && r.nextInt(5) > 0) {
                object(b, r, depth + 1, false);
            } else {
                value(b, r, depth + 1);
            }
        }
        b.append('}');
    }

    private static void value(StringBuilder b, Random r, int depth) {
        int kind = depth > 3 ? 0 : r.nextInt(8);
        if (kind == 6) {
            object(b, r, depth, false);
        } else if (kind == 7) {
            b.append('[');
            int n = r.nextInt(4);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    b.append(',');
                }
                value(b, r, depth + 1);
            }
            b.append(']');
        } else {
            b.append(SCALARS[r.nextInt(SCALARS.length)]);
        }
    }
}
