package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * {@code format: seed-json}: a flat change row as the seed articles' change tables hold them,
 * {@code {"customer_id": "C1", ..., "operation": "UPDATE", "change_time": "2025-08-22T17:00:00Z"}}.
 * The operation field maps to upsert or delete by {@link SeedJsonOptions#opOf}; the change-time field
 * is an ISO-8601 instant with offset or epoch milliseconds; every other field is the row image.
 */
public final class SeedJsonDecoder implements EventDecoder {

    private final SeedJsonOptions options;

    public SeedJsonDecoder(SeedJsonOptions options) {
        this.options = options;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        if (value == null) {
            return Decoded.error("null value (tombstone): a seed-json change row needs its '" + options.opField()
                    + "' and '" + options.timeField() + "' fields");
        }
        try {
            JsonNode root = JsonValues.object(value);
            Map<String, Object> row = NativeEventJson.toMap(root);
            Object opValue = row.remove(options.opField());
            if (opValue == null) {
                return Decoded.error("field '" + options.opField() + "' is missing");
            }
            Optional<Op> op = opValue instanceof String s ? options.opOf(s) : Optional.empty();
            if (op.isEmpty()) {
                return Decoded.error("field '" + options.opField() + "' has unknown value " + quoted(opValue)
                        + " (upsert: " + String.join(", ", options.upsertValues())
                        + "; delete: " + String.join(", ", options.deleteValues()) + ")");
            }
            Instant time = EventTimes.of(row.remove(options.timeField()), "field '" + options.timeField() + "'");
            return Decoded.ok(new Event(op.get(), time, row, offset, Source.kafka(topic, partition, offset), null));
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }

    private static String quoted(Object v) {
        return v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
    }
}
