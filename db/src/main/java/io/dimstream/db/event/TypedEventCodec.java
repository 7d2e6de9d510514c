package io.dimstream.db.event;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.json.InputJson;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The wire form of a {@link TypedEvent} of one entity: the event as the validator made it (values
 * typed, the tracked hash computed), so a reader with the same entity takes it as it is, without
 * validating or hashing it again. Written as JSON fields into an object the caller opens (the
 * changes topic puts its entity and class around them), or as a whole object ({@link #encode}):
 * <pre>{"format":2,"shape":"9f2c01d4a3b2e6f0","op":"upsert","event_time":"2025-08-22T17:00:00.000000Z",
 *  "data":{"customer_id":"C1","balance":1.50,"seen":"2025-08-22T17:00:00.000001Z"},"unchanged":["email"],
 *  "hash":"base64 of the 32 bytes","source":{"topic":"crm.customers","partition":0,"offset":42}}</pre>
 *
 * <ul>
 *   <li>{@code data}: every column of the entity for an upsert, the key for a delete, by name. A
 *       value the source did not send ({@link Unchanged#VALUE}) is left out of {@code data} and
 *       named in {@code unchanged} (absent when there is none); SQL NULL is JSON {@code null}, so
 *       the two stay apart.</li>
 *   <li>Values as the column type holds them: text and jsonb (its canonical text) as JSON strings,
 *       any unicode; integers and booleans as JSON's own; numeric as a JSON number written with its
 *       scale ({@code 1.50} stays {@code 1.50}, {@code 1E+3} keeps scale -3), or as a string when
 *       its text is longer than JSON input allows for a number ({@link io.dimstream.db.json.InputJson});
 *       double precision as a number (negative zero as the string {@code "-0.0"}, which JSON's
 *       decimal reading would make 0); date, timestamptz and timestamp (microseconds), time,
 *       uuid and bytea ({@code \x} and hex) as their canonical texts ({@link ColumnType#canonical}).
 *       So a reader of the old, untyped change records reads the same data map from both.</li>
 *   <li>{@code hash}: the tracked hash ({@link RecordHash}), base64; absent for a delete.</li>
 *   <li>{@code shape}: a fingerprint of what the hash and the values' types depend on: every data
 *       column's name, role (key, tracked, type-1, added while running) and SQL type with its
 *       modifier, in order ({@link #shape()}). A reader whose entity has the same shape takes the
 *       event as written ({@link #read}); one whose entity differs (a column added or widened
 *       while running that the writer of the record knew otherwise: {@code EvolvedColumns},
 *       {@code TypeWidening}) must validate the values again under its own entity
 *       ({@link #readable} is false), since the hash covers the types and the evolved columns' order.</li>
 *   <li>{@code seq} (the arrival order) is written only by {@link #encode}: on the changes topic a
 *       record's seq is its offset there ({@link ArrivalSeq#ofChangesOffset}), given by the reader.</li>
 * </ul>
 *
 * <p>What {@link #read} checks is the form: each value's JSON type for its column, texts that parse,
 * a hash of 32 bytes, no column the entity does not have. It does not re-check what the validator
 * already refused (NUL characters, ranges, key length): the records it reads were written by
 * dimstream's own topology after {@link EventValidator}. A record that breaks those limits anyway
 * is refused by PostgreSQL, and the sink isolates and rejects it like any refused value.
 *
 * <p>Hand-written over Jackson's tree and generator rather than data binding: the type of a value
 * depends on the entity's column, not on the Java class, and the field order is part of the
 * changes topic's form (its class is spliced in after the entity).
 */
public final class TypedEventCodec {

    /** The {@code format} field of a typed record; a record without it is the older, untyped form. */
    public static final int FORMAT = 2;

    private static final ObjectMapper MAPPER = NativeEventJson.mapper();
    private static final int HASH_BYTES = 32;
    /** Jackson refuses longer numbers on input ({@code InputJson.MAX_NUMBER_LENGTH}): longer numerics go as strings. */
    private static final int MAX_NUMBER_TEXT = io.dimstream.db.json.InputJson.MAX_NUMBER_LENGTH;
    /** Codecs made per entity spec object: a spec changes only when a column is added or widened. */
    private static final Map<EntitySpec, TypedEventCodec> CACHE = new IdentityHashMap<>();

    private final EntitySpec entity;
    private final List<String> columns;
    private final ColumnType[] types;
    private final int nKey;
    private final String shape;

    private TypedEventCodec(EntitySpec entity) {
        this.entity = entity;
        this.columns = entity.dataColumns();
        this.types = columns.stream().map(entity::type).toArray(ColumnType[]::new);
        this.nKey = entity.key().size();
        this.shape = shapeOf(entity);
    }

    /** The codec of an entity, made once per spec object. */
    public static TypedEventCodec of(EntitySpec entity) {
        synchronized (CACHE) {
            TypedEventCodec c = CACHE.get(entity);
            if (c == null) {
                if (CACHE.size() >= 256) {
                    CACHE.clear(); // specs are few; this only bounds a process that widens columns without end
                }
                c = new TypedEventCodec(entity);
                CACHE.put(entity, c);
            }
            return c;
        }
    }

    public EntitySpec entity() {
        return entity;
    }

    /**
     * The entity's shape: the first 8 bytes of SHA-256, in hex, over each data column's name, role
     * and SQL type ({@link EntitySpec#sqlType}), in {@link EntitySpec#dataColumns()} order.
     */
    public String shape() {
        return shape;
    }

    private static String shapeOf(EntitySpec e) {
        StringBuilder s = new StringBuilder();
        Set<String> key = new HashSet<>(e.key());
        Set<String> tracked = new HashSet<>(e.tracked());
        for (String c : e.dataColumns()) {
            String role = key.contains(c) ? "k" : tracked.contains(c) ? "t" : "1";
            s.append(c).append('\0').append(role).append(e.evolved().contains(c) ? "+" : "").append('\0').append(e.sqlType(c)).append('\0');
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", ex);
        }
    }

    // ---- writing ------------------------------------------------------------------------------

    /**
     * Writes the event's fields ({@code format}, {@code shape}, {@code op}, {@code event_time},
     * {@code data}, {@code unchanged}, {@code hash}, {@code source}) into the object {@code g} is in.
     */
    public void writeFields(JsonGenerator g, TypedEvent e) throws IOException {
        g.writeNumberField("format", FORMAT);
        g.writeStringField("shape", shape);
        g.writeStringField("op", e.delete() ? "delete" : "upsert");
        g.writeStringField("event_time", ColumnType.CANONICAL_TIMESTAMP.format(e.eventTime()));
        int n = e.delete() ? nKey : columns.size();
        List<String> unchanged = null;
        g.writeObjectFieldStart("data");
        for (int i = 0; i < n; i++) {
            Object v = e.values().get(i);
            if (v == Unchanged.VALUE) {
                if (unchanged == null) {
                    unchanged = new ArrayList<>();
                }
                unchanged.add(columns.get(i));
                continue;
            }
            g.writeFieldName(columns.get(i));
            writeValue(g, types[i], v);
        }
        g.writeEndObject();
        if (unchanged != null) {
            g.writeArrayFieldStart("unchanged");
            for (String c : unchanged) {
                g.writeString(c);
            }
            g.writeEndArray();
        }
        if (e.hash() != null) {
            g.writeStringField("hash", Base64.getEncoder().encodeToString(e.hash()));
        }
        Source src = e.source();
        if (src != null) {
            g.writeObjectFieldStart("source");
            g.writeStringField("topic", src.topic());
            if (src.partition() != null) {
                g.writeNumberField("partition", src.partition());
            }
            if (src.offset() != null) {
                g.writeNumberField("offset", src.offset());
            }
            g.writeEndObject();
        }
    }

    private static void writeValue(JsonGenerator g, ColumnType type, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
            return;
        }
        switch (type) {
            case TEXT, JSONB -> g.writeString((String) v);
            case SMALLINT, INTEGER, BIGINT -> g.writeNumber(((Number) v).longValue());
            case NUMERIC -> {
                BigDecimal d = (BigDecimal) v;
                String text = d.toString(); // unscaled value and scale, exactly (1.50, 1E+3)
                if (text.length() > MAX_NUMBER_TEXT) {
                    g.writeString(text);
                } else {
                    g.writeNumber(text);
                }
            }
            case DOUBLE -> {
                double d = (Double) v;
                if (d == 0 && Double.doubleToRawLongBits(d) != 0) {
                    g.writeString("-0.0");
                } else {
                    g.writeNumber(d);
                }
            }
            case BOOLEAN -> g.writeBoolean((Boolean) v);
            default -> g.writeString(type.canonical(v)); // temporal types, uuid, bytea
        }
    }

    /** The event as a whole object, its {@code seq} included: {@link #decode} reads it. */
    public byte[] encode(TypedEvent e) {
        ByteArrayBuilder out = new ByteArrayBuilder(256);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            writeFields(g, e);
            g.writeNumberField("seq", e.seq());
            g.writeEndObject();
        } catch (IOException ex) {
            throw new IllegalArgumentException("cannot encode an event of entity " + entity.name() + ": " + ex.getMessage(), ex);
        }
        return out.toByteArray();
    }

    // ---- reading ------------------------------------------------------------------------------

    /** Whether {@code root} is a typed record of this codec's shape, which {@link #read} takes as it is. */
    public boolean readable(JsonNode root) {
        return isTyped(root) && shape.equals(text(root.get("shape")));
    }

    /** Whether {@code root} is in the typed form at all (its {@code format} field); false for the older, untyped records. */
    public static boolean isTyped(JsonNode root) {
        JsonNode f = root.get("format");
        return f != null && f.isInt() && f.intValue() == FORMAT;
    }

    /** The object {@link #encode} wrote (strict UTF-8, within the input limits). */
    public TypedEvent decode(byte[] bytes) {
        JsonNode root;
        try {
            root = InputJson.readTree(StrictUtf8.decode(bytes));
        } catch (InputJson.TrailingContent ex) {
            throw new IllegalArgumentException("typed event has " + ex.getOriginalMessage(), ex);
        } catch (JsonProcessingException ex) {
            throw new IllegalArgumentException("typed event is not JSON: " + ex.getOriginalMessage(), ex);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("typed event: not a JSON object");
        }
        JsonNode seq = root.get("seq");
        if (seq == null || !seq.canConvertToLong() || !seq.isIntegralNumber()) {
            throw new IllegalArgumentException("typed event: field 'seq' missing or not an integer");
        }
        return read(root, seq.longValue());
    }

    /**
     * The event in {@code root}, whose {@link #readable} is true, arriving as {@code seq}.
     *
     * @throws IllegalArgumentException naming the field or column when the form is wrong
     */
    public TypedEvent read(JsonNode root, long seq) {
        if (!readable(root)) {
            throw new IllegalArgumentException("not a typed event of shape " + shape + " (format " + root.get("format") + ", shape "
                    + root.get("shape") + ")");
        }
        String op = text(root.get("op"));
        boolean delete;
        if ("upsert".equals(op)) {
            delete = false;
        } else if ("delete".equals(op)) {
            delete = true;
        } else {
            throw new IllegalArgumentException(Rejection.printable("field 'op' is " + root.get("op") + ", expected \"upsert\" or \"delete\""));
        }
        Instant time = ColumnType.parseInstant(String.valueOf(text(root.get("event_time"))))
                .orElseThrow(() -> new IllegalArgumentException(Rejection.printable("field 'event_time' is not an instant: " + root.get("event_time"))));
        JsonNode data = root.get("data");
        if (data == null || !data.isObject()) {
            throw new IllegalArgumentException("field 'data' missing or not an object");
        }
        Set<String> unchanged = Set.of();
        JsonNode u = root.get("unchanged");
        if (u != null) {
            if (!u.isArray()) {
                throw new IllegalArgumentException("field 'unchanged' is not an array");
            }
            unchanged = new HashSet<>();
            for (JsonNode c : u) {
                unchanged.add(c.asText());
            }
        }
        int n = delete ? nKey : columns.size();
        Object[] values = new Object[columns.size()];
        int seen = 0;
        for (int i = 0; i < n; i++) {
            String c = columns.get(i);
            JsonNode v = data.get(c);
            if (v == null) {
                if (!unchanged.contains(c) || i < nKey) {
                    throw new IllegalArgumentException(Rejection.printable("column '" + c + "' is missing"));
                }
                values[i] = Unchanged.VALUE;
                continue;
            }
            seen++;
            values[i] = readValue(c, types[i], v);
            if (i < nKey && values[i] == null) {
                throw new IllegalArgumentException(Rejection.printable("key column '" + c + "' is NULL"));
            }
        }
        if (seen != data.size()) {
            for (java.util.Iterator<String> it = data.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (columns.indexOf(f) < 0 || columns.indexOf(f) >= n) {
                    throw new IllegalArgumentException(Rejection.printable("column '" + f + "' is not " + (delete ? "a key column" : "a column")
                            + " of entity '" + entity.name() + "'"));
                }
            }
        }
        byte[] hash = null;
        JsonNode h = root.get("hash");
        if (!delete) {
            if (h == null || !h.isTextual()) {
                throw new IllegalArgumentException("field 'hash' missing or not a string (an upsert carries its tracked hash)");
            }
            try {
                hash = Base64.getDecoder().decode(h.textValue());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("field 'hash' is not base64");
            }
            if (hash.length != HASH_BYTES) {
                throw new IllegalArgumentException("field 'hash' has " + hash.length + " bytes, expected " + HASH_BYTES);
            }
        }
        return new TypedEvent(delete, time, Arrays.asList(values), hash, seq, source(root.get("source")));
    }

    private static Source source(JsonNode src) {
        if (src == null || src.isNull()) {
            return null;
        }
        JsonNode topic = src.get("topic");
        if (!src.isObject() || topic == null || !topic.isTextual()) {
            throw new IllegalArgumentException("field 'source' is not an object with a topic");
        }
        JsonNode p = src.get("partition");
        JsonNode o = src.get("offset");
        return new Source(topic.textValue(), p == null || p.isNull() ? null : p.intValue(), o == null || o.isNull() ? null : o.longValue());
    }

    private static Object readValue(String column, ColumnType type, JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        try {
            switch (type) {
                case TEXT, JSONB:
                    if (v.isTextual()) {
                        return v.textValue();
                    }
                    break;
                case SMALLINT, INTEGER, BIGINT:
                    if (v.isIntegralNumber() && v.canConvertToLong()) {
                        return v.longValue();
                    }
                    break;
                case NUMERIC:
                    if (v.isIntegralNumber()) {
                        return new BigDecimal(v.bigIntegerValue());
                    }
                    if (v.isNumber()) {
                        return v.decimalValue();
                    }
                    if (v.isTextual()) {
                        return new BigDecimal(v.textValue());
                    }
                    break;
                case DOUBLE:
                    if (v.isNumber()) {
                        return v.doubleValue();
                    }
                    if (v.isTextual() && "-0.0".equals(v.textValue())) {
                        return -0.0d;
                    }
                    break;
                case BOOLEAN:
                    if (v.isBoolean()) {
                        return v.booleanValue();
                    }
                    break;
                case DATE:
                    if (v.isTextual()) {
                        return LocalDate.parse(v.textValue());
                    }
                    break;
                case TIMESTAMPTZ:
                    if (v.isTextual()) {
                        return Instant.parse(v.textValue());
                    }
                    break;
                case UUID_TYPE:
                    if (v.isTextual()) {
                        return UUID.fromString(v.textValue());
                    }
                    break;
                case TIMESTAMP:
                    if (v.isTextual()) {
                        return LocalDateTime.parse(v.textValue());
                    }
                    break;
                case TIME:
                    if (v.isTextual()) {
                        return LocalTime.parse(v.textValue());
                    }
                    break;
                case BYTEA:
                    if (v.isTextual() && v.textValue().startsWith("\\x")) {
                        return HexFormat.of().parseHex(v.textValue(), 2, v.textValue().length());
                    }
                    break;
                default:
                    break;
            }
        } catch (DateTimeException | IllegalArgumentException ex) {
            // NumberFormatException is an IllegalArgumentException
        }
        String shown = v.toString();
        throw new IllegalArgumentException(Rejection.printable("column '" + column + "': " + (shown.length() > 60 ? shown.substring(0, 57) + "..." : shown)
                + " is not a " + type.sqlName() + " as the typed form writes it"));
    }

    private static String text(JsonNode n) {
        return n == null || !n.isTextual() ? null : n.textValue();
    }
}
