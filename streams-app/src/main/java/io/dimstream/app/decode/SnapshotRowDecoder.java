package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.Map;

/**
 * {@code mode: snapshot}: one row of a full slice, a flat JSON object of the entity's columns plus
 * the snapshot-time field holding the slice's instant (ISO-8601 with offset, or epoch milliseconds),
 * e.g. {@code {"customer_id": "C1", "email": "a@example.com", ..., "snapshot_time": "2025-08-01T00:00:00Z"}}.
 * Every row is an upsert at the slice's instant; a key leaves by being absent from a complete
 * slice, so a tombstone is refused.
 */
public final class SnapshotRowDecoder implements EventDecoder {

    private final String timeField;

    public SnapshotRowDecoder(String timeField) {
        this.timeField = timeField;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        if (value == null) {
            return Decoded.error("null value (tombstone): a snapshot feed deletes a key by leaving it out of a slice");
        }
        try {
            Map<String, Object> row = NativeEventJson.toMap(JsonValues.object(value));
            Instant time = EventTimes.of(row.remove(timeField), "field '" + timeField + "'");
            return Decoded.ok(Event.upsert(time, row, offset, Source.kafka(topic, partition, offset)));
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }
}
