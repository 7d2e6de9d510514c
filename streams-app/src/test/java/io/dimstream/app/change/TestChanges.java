package io.dimstream.app.change;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.TypedEventCodec;
import io.dimstream.db.event.Unchanged;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Change records for tests that build them from a {@link ChangeRecord} without the entity's spec:
 * the typed form's fields, with a shape no entity has ({@value #SHAPE}) and no hash, so the sink
 * reads each as a change typed for another shape of its entity and validates it again (what it
 * does for a record written before a column was added), judging its values exactly as the
 * topology would. Tests of the typed path itself encode with the entity's spec
 * ({@link ChangeCodec#encodeUnclassified(io.dimstream.db.entity.EntitySpec, io.dimstream.db.event.TypedEvent, Map, Map)}).
 */
public final class TestChanges {

    /** The shape every record of this encoder claims: none of an entity. */
    public static final String SHAPE = "test-other-shape";

    private static final ObjectMapper MAPPER = NativeEventJson.mapper();

    private TestChanges() {
    }

    /** {@code r} as a change record of another shape, class included. */
    public static byte[] encode(ChangeRecord r) {
        return ChangeCodec.withClass(encodeUnclassified(r), ChangeCodec.classOffset(r.entity()), r.changeClass());
    }

    /** {@link #encode} without the class field (the classifier's input). */
    public static byte[] encodeUnclassified(ChangeRecord r) {
        ByteArrayBuilder out = new ByteArrayBuilder(256);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("entity", r.entity());
            g.writeNumberField("format", TypedEventCodec.FORMAT);
            g.writeStringField("shape", SHAPE);
            g.writeStringField("op", r.op().name().toLowerCase(Locale.ROOT));
            g.writeStringField("event_time", ColumnType.CANONICAL_TIMESTAMP.format(r.eventTime()));
            Map<String, Object> known = new LinkedHashMap<>();
            List<String> unchanged = new ArrayList<>();
            r.data().forEach((k, v) -> {
                if (v == Unchanged.VALUE) {
                    unchanged.add(k);
                } else {
                    known.put(k, v);
                }
            });
            g.writeFieldName("data");
            MAPPER.writeValue(g, known);
            if (!unchanged.isEmpty()) {
                g.writeArrayFieldStart("unchanged");
                for (String c : unchanged) {
                    g.writeString(c);
                }
                g.writeEndArray();
            }
            columnTypes(g, "new_columns", r.newColumns());
            columnTypes(g, "widened", r.widened());
            g.writeObjectFieldStart("source");
            g.writeStringField("topic", r.sourceTopic());
            g.writeNumberField("partition", r.sourcePartition());
            g.writeNumberField("offset", r.sourceOffset());
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
        return out.toByteArray();
    }

    private static void columnTypes(JsonGenerator g, String field, Map<String, String> columns) throws IOException {
        if (columns.isEmpty()) {
            return;
        }
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, String> n : new TreeMap<>(columns).entrySet()) {
            g.writeStringField(n.getKey(), n.getValue());
        }
        g.writeEndObject();
    }
}
