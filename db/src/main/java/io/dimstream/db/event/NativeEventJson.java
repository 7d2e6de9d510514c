package io.dimstream.db.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.ColumnType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decodes the native JSON event of DESIGN section 3:
 * {@code {"op": "upsert"|"delete", "event_time": "...Z", "data": {...}}}.
 * Decimals are kept exact (BigDecimal), so {@code 1.50} and {@code 1.5} hash alike by value.
 */
public final class NativeEventJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

    private NativeEventJson() {
    }

    /** The parse outcome: an event (possibly with a bad time the validator rejects) or a rejection. */
    public record Parsed(Event event, Rejection rejection) {
    }

    public static Parsed parse(String json, long seq, Source source) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            return rejected(source, "not valid JSON: " + e.getOriginalMessage());
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
            }
        }
        return new Parsed(new Event(op, time, toMap(data), seq, source, badTime), null);
    }

    /** JSON object to a map of plain Java values; nested objects and arrays stay as maps/lists. */
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
        if (n.isBigInteger() || n.isInt() || n.isLong()) {
            return n.bigIntegerValue();
        }
        if (n.isNumber()) {
            return n.decimalValue();
        }
        return MAPPER.convertValue(n, Object.class);
    }

    private static Parsed rejected(Source source, String reason) {
        return new Parsed(null, new Rejection(source, reason));
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
