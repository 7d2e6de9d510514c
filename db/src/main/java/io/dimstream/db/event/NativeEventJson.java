package io.dimstream.db.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.json.InputJson;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decodes the native JSON event of DESIGN section 3:
 * {@code {"op": "upsert"|"delete", "event_time": "...Z", "data": {...}}}.
 * Decimals are kept exact (BigDecimal), so {@code 1.50} and {@code 1.5} hash alike by value.
 *
 * <p>Read with {@link InputJson#mapper()}, under its input limits. Bytes are read as strict UTF-8
 * ({@link StrictUtf8}). Integers are read as the smallest of int, long and BigInteger that holds
 * them (a huge array of small numbers costs 16 bytes per element, not 80) and handed on as
 * BigInteger ({@link #toMap}); an array is handed on as a view, never copied.
 */
public final class NativeEventJson {

    private static final ObjectMapper MAPPER = InputJson.mapper();

    private NativeEventJson() {
    }

    /** The parse outcome: an event (possibly with a bad time the validator rejects) or a rejection. */
    public record Parsed(Event event, Rejection rejection) {
    }

    /** A record's bytes: strict UTF-8 ({@link StrictUtf8}), then {@link #parse(String, long, Source)}. */
    public static Parsed parse(byte[] json, long seq, Source source) {
        String text;
        try {
            text = StrictUtf8.decode(json);
        } catch (IllegalArgumentException e) {
            return rejected(source, e.getMessage());
        }
        return parse(text, seq, source);
    }

    public static Parsed parse(String json, long seq, Source source) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            return rejected(source, notJson(e));
        }
        if (root == null || !root.isObject()) {
            return rejected(source, "not a JSON object");
        }
        JsonNode opNode = root.get("op");
        if (opNode == null || !opNode.isTextual()) {
            return rejected(source, "field 'op' is missing (expected \"upsert\" or \"delete\")");
        }
        Op op;
        switch (opNode.asText().toLowerCase(Locale.ROOT)) {
            case "upsert", "insert", "update", "create", "c", "u", "r" -> op = Op.UPSERT;
            case "delete", "d" -> op = Op.DELETE;
            default -> {
                return rejected(source, "field 'op' has unknown value \"" + opNode.asText() + "\" (expected \"upsert\" or \"delete\")");
            }
        }
        JsonNode data = root.get("data");
        if (data == null || !data.isObject()) {
            return rejected(source, "field 'data' is missing or not an object");
        }
        JsonNode t = root.get("event_time");
        Instant time = null;
        String badTime = null;
        if (t == null || t.isNull()) {
            badTime = "event_time is missing";
        } else if (!t.isTextual()) {
            badTime = "event_time is not an ISO-8601 string: " + t;
        } else {
            time = ColumnType.parseInstant(t.asText()).orElse(null);
            if (time == null) {
                badTime = "event_time is not an ISO-8601 instant with offset: \"" + t.asText() + "\"";
            } else if (!ColumnType.inRange(time)) {
                badTime = "event_time \"" + t.asText() + "\" is outside the supported range " + ColumnType.INSTANT_RANGE;
                time = null;
            }
        }
        return new Parsed(new Event(op, time, toMap(data), seq, source, badTime), null);
    }

    /**
     * JSON object to a map of plain Java values: String, Boolean, BigInteger, BigDecimal; nested
     * objects become maps and arrays lists of the same.
     */
    public static Map<String, Object> toMap(JsonNode object) {
        Map<String, Object> m = new LinkedHashMap<>();
        object.fields().forEachRemaining(f -> m.put(f.getKey(), plain(f.getValue())));
        return m;
    }

    private static Object plain(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isTextual()) {
            return n.asText();
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isIntegralNumber()) {
            return n.bigIntegerValue();
        }
        if (n.isNumber()) {
            return n.decimalValue();
        }
        if (n.isObject()) {
            return toMap(n); // recursion as deep as the nesting limit allows, no deeper
        }
        if (n.isArray()) {
            return new ArrayView(n);
        }
        return n.asText();
    }

    /**
     * A JSON array as a list whose elements are converted when read: only a jsonb column takes an
     * array (walking it once, into its canonical text); for every other column a huge one is only
     * ever counted (in the rejection's reason), never copied.
     */
    private static final class ArrayView extends java.util.AbstractList<Object> {
        private final JsonNode array;

        ArrayView(JsonNode array) {
            this.array = array;
        }

        @Override
        public Object get(int index) {
            if (index < 0 || index >= array.size()) {
                throw new IndexOutOfBoundsException(index);
            }
            return plain(array.get(index));
        }

        @Override
        public int size() {
            return array.size();
        }
    }

    /** The reason a text is not read ({@link InputJson#notJson}). */
    public static String notJson(JsonProcessingException e) {
        return InputJson.notJson(e);
    }

    private static Parsed rejected(Source source, String reason) {
        return new Parsed(null, new Rejection(source, reason));
    }

    /** The mapper every JSON from outside is read with ({@link InputJson#mapper}). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
