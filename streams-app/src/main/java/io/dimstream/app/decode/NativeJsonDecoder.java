package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.List;

/**
 * {@code format: json}: the native event of DESIGN section 3,
 * {@code {"op": "upsert"|"delete", "event_time": "...", "data": {...}}}, parsed by
 * {@link NativeEventJson}. A tombstone (null value) is a delete at the record's timestamp, its key
 * columns read from the record key ({@link TombstoneKey}).
 */
public final class NativeJsonDecoder implements EventDecoder {

    private final List<String> keyColumns;

    public NativeJsonDecoder(List<String> keyColumns) {
        this.keyColumns = List.copyOf(keyColumns);
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        Source source = Source.kafka(topic, partition, offset);
        if (value == null) {
            return tombstone(key, recordTimestampMs, keyColumns, offset, source);
        }
        NativeEventJson.Parsed parsed = NativeEventJson.parse(value, offset, source);
        return parsed.rejection() != null ? Decoded.error(parsed.rejection().reason()) : Decoded.ok(parsed.event());
    }

    /** A null-value record: a delete of the key in the record key, at the record's timestamp. */
    static Decoded tombstone(byte[] key, long recordTimestampMs, List<String> keyColumns, long offset, Source source) {
        if (recordTimestampMs < 0) {
            return Decoded.error("tombstone (null value) without a record timestamp: no time to delete at");
        }
        try {
            Instant time = EventTimes.ofEpochMillis(recordTimestampMs, "tombstone record timestamp");
            return Decoded.ok(Event.delete(time, TombstoneKey.columns(key, keyColumns), offset, source));
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }
}
