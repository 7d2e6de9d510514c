package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code format: json}: the native event of DESIGN section 3,
 * {@code {"op": "upsert"|"delete", "event_time": "...", "data": {...}}}, parsed by
 * {@link NativeEventJson}. With {@code event-time: field NAME} the time is field NAME of
 * {@code data} instead ({@link TimeField}; {@code event_time} is then not read). A tombstone (null
 * value) is a delete at the record's timestamp, its key columns read from the record key
 * ({@link TombstoneKey}).
 */
public final class NativeJsonDecoder implements EventDecoder {

    private final List<String> keyColumns;
    private final TimeField timeField;

    public NativeJsonDecoder(List<String> keyColumns) {
        this(keyColumns, null);
    }

    /** @param timeField {@code event-time: field NAME}, or null for the event's {@code event_time} */
    NativeJsonDecoder(List<String> keyColumns, TimeField timeField) {
        this.keyColumns = List.copyOf(keyColumns);
        this.timeField = timeField;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        Source source = Source.kafka(topic, partition, offset);
        if (value == null) {
            return tombstone(key, recordTimestampMs, keyColumns, offset, source);
        }
        NativeEventJson.Parsed parsed = NativeEventJson.parse(value, offset, source);
        if (parsed.rejection() != null) {
            return Decoded.error(parsed.rejection().reason());
        }
        return timeField == null ? Decoded.ok(parsed.event()) : withFieldTime(parsed.event(), timeField);
    }

    /** The event at the time its {@code data} field holds, whatever its {@code event_time} said. */
    static Decoded withFieldTime(Event e, TimeField timeField) {
        Map<String, Object> data = new LinkedHashMap<>(e.data());
        try {
            Instant time = timeField.take(data, "data");
            return Decoded.ok(new Event(e.op(), time, data, e.seq(), e.source(), null));
        } catch (IllegalArgumentException ex) {
            return Decoded.error(ex.getMessage());
        }
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
