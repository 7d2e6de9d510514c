package io.dimstream.db.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.json.InputJson;
import java.io.IOException;
import java.io.UncheckedIOException;
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
    /** Values read one at a time from inside the record's parser ({@link InputJson#embedded}). */
    private static final ObjectReader VALUE = InputJson.embedded();

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
        return parse(json, seq, source, null);
    }

    /**
     * As {@link #parse(String, long, Source)}, the event time read by {@code times} when given (a
     * loaded file's, {@link TimeTexts}: PostgreSQL's, Spark's and pandas' spellings too) instead of
     * as ISO-8601 with an offset, the form a record on a topic must have. The data's values are left
     * as they are ({@link TimeTexts#readValues} reads a file's).
     */
    public static Parsed parse(String json, long seq, Source source, TimeTexts times) {
        Fields f;
        try {
            f = readFields(json);
        } catch (JsonProcessingException e) {
            return rejected(source, notJson(e));
        }
        if (f == null) {
            return rejected(source, "not a JSON object");
        }
        JsonNode opNode = f.op();
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
        if (f.data() == null) {
            return rejected(source, "field 'data' is missing or not an object");
        }
        String text = f.eventTime() != null && f.eventTime().isTextual() ? f.eventTime().asText() : null;
        Instant time = null;
        String badTime;
        if (text == null) {
            badTime = f.eventTime() == null || f.eventTime().isNull() ? "event_time is missing"
                    : "event_time is not an ISO-8601 string: " + f.eventTime();
        } else if (times != null) {
            try {
                time = times.instant(text);
                badTime = null;
            } catch (IllegalArgumentException e) {
                badTime = "event_time: " + e.getMessage();
            }
        } else {
            time = ColumnType.parseInstant(text).orElse(null);
            badTime = time == null ? "event_time is not an ISO-8601 instant with offset: \"" + text + "\"" : null;
        }
        if (time != null && !ColumnType.inRange(time)) {
            badTime = "event_time \"" + text + "\" is outside the supported range " + ColumnType.INSTANT_RANGE;
            time = null;
        }
        return new Parsed(new Event(op, time, f.data(), seq, source, badTime), null);
    }

    /** The three fields an event is read from; {@code data} is null unless it was an object. */
    record Fields(JsonNode op, JsonNode eventTime, Map<String, Object> data) {
    }

    /**
     * The whole text read in one pass with Jackson's streaming parser, the event's flat
     * {@code data} object straight into its map (no tree in between: the tree and its copy into the
     * map were 10-15% of the parse, docs/benchmarks.md). Everything else (op, event_time, unknown fields,
     * nested objects and arrays inside data) is read as a tree, exactly as
     * {@code MAPPER.readTree} reads it, under the same limits: the outcome is the tree reading's in
     * every case ({@code NativeEventJsonStreamingTest} compares the two on generated texts). As there,
     * a later duplicate field wins, and content after the value is refused
     * ({@link InputJson.TrailingContent}). Null when the text is not a JSON object.
     */
    static Fields readFields(String json) throws JsonProcessingException {
        try (JsonParser p = MAPPER.getFactory().createParser(json)) {
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                if (first != null) {
                    VALUE.readTree(p); // not an object: read on as the tree would, so a syntax error in it is reported as one
                    InputJson.requireEnd(p, json);
                }
                return null;
            }
            JsonNode op = null;
            JsonNode eventTime = null;
            Map<String, Object> data = null;
            for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
                JsonToken v = p.nextToken();
                if ("data".equals(name) && v == JsonToken.START_OBJECT) {
                    data = readObject(p);
                } else {
                    JsonNode n = VALUE.readTree(p); // read (and so checked) as the tree reads it
                    switch (name) {
                        case "op" -> op = n;
                        case "event_time" -> eventTime = n;
                        case "data" -> data = null; // not an object; a later duplicate wins, as in the tree
                        default -> { }
                    }
                }
            }
            InputJson.requireEnd(p, json);
            return new Fields(op, eventTime, data);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a parser over a String does no I/O
        }
    }

    /** An object's fields into a map, the parser on its START_OBJECT; values as {@link #plain}. */
    private static Map<String, Object> readObject(JsonParser p) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
            JsonToken v = p.nextToken();
            Object value = switch (v) {
                case VALUE_STRING -> p.getText();
                case VALUE_NUMBER_INT -> p.getBigIntegerValue();
                case VALUE_NUMBER_FLOAT -> p.getDecimalValue();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                case VALUE_NULL -> null;
                default -> plain(VALUE.readTree(p)); // an object or an array, as the tree reading has it
            };
            m.put(name, value);
        }
        return m;
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
