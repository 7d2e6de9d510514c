package io.dimstream.app.change;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.json.InputJson;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.TypedEventCodec;
import io.dimstream.db.event.Unchanged;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JSON encoding of the changes topic's records. The topology writes the <b>typed form</b>
 * ({@link #encodeUnclassified(EntitySpec, TypedEvent, Map, Map)}): the validated event as
 * {@link TypedEventCodec} writes it (values typed, the tracked hash, the entity's shape, a
 * {@code "format":2} field) between the entity and the columns to add or widen:
 * <pre>{"entity":"customer","class":"CHANGED","format":2,"shape":"9f2c01d4a3b2e6f0","op":"upsert",
 *  "event_time":"2025-08-22T17:00:00.000000Z","data":{...},"hash":"...",
 *  "source":{"topic":"crm.customers","partition":0,"offset":42}}</pre>
 * The sink reads it straight into a {@link TypedEvent} ({@link #toSinkChange}) and applies it
 * without validating or hashing it again, when its entity has the record's shape.
 *
 * <p>Besides the typed event, a record names what the sink must do to the entity's shape first. The
 * data's values keep their JSON types; decimals stay exact (BigDecimal). Columns whose value is
 * {@link Unchanged#VALUE} are left out of {@code data} and listed in {@code "unchanged":["email"]}
 * (absent when there are none). Columns passed through for {@code new-columns:} are in
 * {@code data} like any other and named with their inferred SQL type in
 * {@code "new_columns":{"nickname":"text"}} (absent when there are none). Columns the topology
 * widened for the record's values (or that the source's schema retyped) are named with their new
 * SQL type in {@code "widened":{"visits":"bigint"}} (absent when there are none). {@link #decode}
 * reads a record as a {@link ChangeRecord} (the data as plain JSON values), for tools and tests.
 */
public final class ChangeCodec {

    private static final ObjectMapper MAPPER = NativeEventJson.mapper();
    private static final byte[] ENTITY_FIELD = "{\"entity\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[][] CLASS_FIELDS = java.util.Arrays.stream(ChangeClass.values())
            .map(c -> ("\"class\":\"" + c.name() + "\",").getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);

    private ChangeCodec() {
    }

    /**
     * The typed form of a validated event's change, without its {@code "class"} field (the
     * classifier splices it in with {@link #withClass} at {@link #classOffset}): the event as
     * {@link TypedEventCodec} of {@code entity} writes it, then {@code new_columns} and
     * {@code widened}.
     */
    public static byte[] encodeUnclassified(EntitySpec entity, TypedEvent e, Map<String, String> newColumns,
                                            Map<String, String> widened) {
        ByteArrayBuilder out = new ByteArrayBuilder(256);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("entity", entity.name());
            TypedEventCodec.of(entity).writeFields(g, e);
            writeColumnTypes(g, "new_columns", newColumns);
            writeColumnTypes(g, "widened", widened);
            g.writeEndObject();
        } catch (java.io.IOException ex) {
            throw new IllegalArgumentException("cannot encode change record of entity " + entity.name() + ": " + ex.getMessage(), ex);
        }
        return out.toByteArray();
    }

    private static void writeColumnTypes(JsonGenerator g, String field, Map<String, String> columns) throws java.io.IOException {
        if (columns.isEmpty()) {
            return;
        }
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, String> n : new java.util.TreeMap<>(columns).entrySet()) {
            g.writeStringField(n.getKey(), n.getValue());
        }
        g.writeEndObject();
    }

    /** Where {@link #withClass} puts the class field in {@link #encodeUnclassified}'s bytes: after the entity. */
    public static int classOffset(String entity) {
        try {
            return ENTITY_FIELD.length + MAPPER.writeValueAsBytes(entity).length + 1;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** {@link #encodeUnclassified}'s bytes with {@code "class":"<cls>"} spliced in at {@code offset}. */
    public static byte[] withClass(byte[] unclassified, int offset, ChangeClass cls) {
        byte[] field = CLASS_FIELDS[cls.ordinal()];
        byte[] out = new byte[unclassified.length + field.length];
        System.arraycopy(unclassified, 0, out, 0, offset);
        System.arraycopy(field, 0, out, offset, field.length);
        System.arraycopy(unclassified, offset, out, offset + field.length, unclassified.length - offset);
        return out;
    }

    /**
     * Reads a change record of either form as a {@link ChangeRecord} (the data as plain JSON values):
     * strict UTF-8 and JSON within {@link NativeEventJson}'s limits. Its values are not checked here.
     *
     * @throws IllegalArgumentException when the bytes are not a change record; its cause's message
     *                                  (if any) says what is wrong without repeating the record
     */
    public static ChangeRecord decode(byte[] bytes) {
        return changeRecord(root(bytes), bytes);
    }

    /**
     * A change record as the sink applies it, read at {@code changesOffset} of the changes topic
     * (its arrival order, {@link ArrivalSeq#ofChangesOffset}): exactly one of {@code typed} (of the
     * reader's shape: taken as written) and {@code untyped} (typed for a shape the reader's entity
     * does not have, e.g. a column added in between: to validate again) is set, unless the record is
     * of another entity than the reader's, when neither is.
     */
    public record SinkChange(String entity, ChangeClass changeClass, TypedEvent typed, Event untyped) {

        /** Why a record is validated again by the sink: typed for another shape of its entity. */
        public static final String OTHER_SHAPE = "other-shape";
    }

    /**
     * Reads a change record for the sink, whose entity is {@code codec}'s: of the same shape straight
     * into a {@link TypedEvent}; of another shape as an {@link Event} to validate.
     *
     * @throws IllegalArgumentException as {@link #decode} does, and for a record without the typed
     *                                  form's {@code format} field
     */
    public static SinkChange toSinkChange(byte[] bytes, TypedEventCodec codec, long changesOffset) {
        JsonNode root = root(bytes);
        long seq = ArrivalSeq.ofChangesOffset(changesOffset).value();
        try {
            String entity = root.get("entity").asText();
            ChangeClass cls = changeClass(root.get("class").asText());
            if (!entity.equals(codec.entity().name())) {
                return new SinkChange(entity, cls, null, null);
            }
            if (!TypedEventCodec.isTyped(root)) {
                throw new IllegalArgumentException("no \"format\" field: not a change record of the typed form the topology writes");
            }
            if (codec.readable(root)) {
                return new SinkChange(entity, cls, codec.read(root, seq), null);
            }
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new IllegalArgumentException(Rejection.printable("malformed change record: " + new String(bytes, StandardCharsets.UTF_8)), e);
        }
        ChangeRecord change = changeRecord(root, bytes);
        return new SinkChange(change.entity(), change.changeClass(), null, change.toEvent(changesOffset));
    }

    private static JsonNode root(byte[] bytes) {
        try {
            return InputJson.readTree(StrictUtf8.decode(bytes));
        } catch (JsonProcessingException e) {
            if (e instanceof InputJson.TrailingContent) {
                throw new IllegalArgumentException("change record has " + e.getOriginalMessage(), e);
            }
            throw new IllegalArgumentException("change record is " + (e instanceof StreamConstraintsException
                    ? "JSON beyond dimstream's input limits: " : "not JSON: ") + e.getOriginalMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("change record is " + e.getMessage(), e);
        }
    }

    private static ChangeRecord changeRecord(JsonNode root, byte[] bytes) {
        try {
            Instant t = ColumnType.parseInstant(root.get("event_time").asText())
                    .orElseThrow(() -> new IllegalArgumentException("bad event_time " + root.get("event_time")));
            JsonNode src = root.get("source");
            Map<String, Object> data = NativeEventJson.toMap(root.get("data"));
            JsonNode unchanged = root.get("unchanged");
            if (unchanged != null) {
                data = new LinkedHashMap<>(data);
                for (JsonNode c : unchanged) {
                    data.put(c.asText(), Unchanged.VALUE);
                }
            }
            return new ChangeRecord(root.get("entity").asText(), changeClass(root.get("class").asText()),
                    op(root.get("op").asText()), t, data,
                    src.get("topic").asText(), src.get("partition").asInt(), src.get("offset").asLong(), columnTypes(root.get("new_columns")),
                    columnTypes(root.get("widened")));
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new IllegalArgumentException(Rejection.printable("malformed change record: " + new String(bytes, StandardCharsets.UTF_8)), e);
        }
    }

    private static Map<String, String> columnTypes(JsonNode node) {
        if (node == null) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> f : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
            out.put(f.getKey(), f.getValue().asText());
        }
        return out;
    }

    /**
     * The bytes every encoded change with new or widened columns holds, and a change without them
     * holds only by chance (a data key so named).
     */
    private static final byte[] NEW_COLUMNS_FIELD = "\"new_columns\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WIDENED_FIELD = "\"widened\":".getBytes(StandardCharsets.UTF_8);

    /**
     * Whether a change record may name new or widened columns: a byte search, so the sink reads only
     * those records twice. False means it names none; true is checked by {@link #decode}.
     */
    public static boolean mayHaveNewColumns(byte[] bytes) {
        // one pass over every change the sink reads: only a quote can start either field
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '"' && (startsAt(bytes, i, NEW_COLUMNS_FIELD) || startsAt(bytes, i, WIDENED_FIELD))) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsAt(byte[] bytes, int at, byte[] field) {
        if (at + field.length > bytes.length) {
            return false;
        }
        for (int j = 0; j < field.length; j++) {
            if (bytes[at + j] != field[j]) {
                return false;
            }
        }
        return true;
    }

    /** The class named in a record; the message quotes it escaped (it is stored as a reject's reason). */
    private static ChangeClass changeClass(String name) {
        try {
            return ChangeClass.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Rejection.printable("unknown class \"" + name + "\""));
        }
    }

    private static Op op(String name) {
        try {
            return Op.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Rejection.printable("unknown op \"" + name + "\""));
        }
    }

    /**
     * The changes-topic record key of a business key: a JSON array of the key values' canonical
     * texts, e.g. {@code ["C1"]} or {@code ["C1","2"]}. Equal keys give equal bytes, so Kafka's
     * default partitioner puts a key's events in one partition.
     */
    public static byte[] key(List<String> canonicalKeyParts) {
        ArrayNode a = MAPPER.createArrayNode();
        canonicalKeyParts.forEach(a::add);
        try {
            return MAPPER.writeValueAsBytes(a);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
