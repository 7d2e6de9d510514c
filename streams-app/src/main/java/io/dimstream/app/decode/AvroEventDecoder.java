package io.dimstream.app.decode;

import io.dimstream.schemas.AvroValues;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * {@code format: avro}: the native event as an Avro record with the fields {@code op} (string or
 * enum: upsert or delete), {@code event_time} (an ISO-8601 string, a timestamp-millis/micros, or a
 * long of epoch milliseconds) and {@code data} (a record or map of the row image). A tombstone is a
 * delete at the record's timestamp, as in the JSON format. A schema registry that cannot answer is
 * thrown ({@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}), never a
 * {@link Decoded.Failed}: the record is read again once the registry is back.
 */
public final class AvroEventDecoder implements EventDecoder {

    private final Deserializer<GenericRecord> deserializer;
    private final List<String> keyColumns;

    public AvroEventDecoder(Deserializer<GenericRecord> deserializer, List<String> keyColumns) {
        this.deserializer = deserializer;
        this.keyColumns = List.copyOf(keyColumns);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        Source source = Source.kafka(topic, partition, offset);
        if (value == null) {
            return NativeJsonDecoder.tombstone(key, recordTimestampMs, keyColumns, offset, source);
        }
        try {
            Map<String, Object> m = AvroValues.toMap(AvroRecords.read(deserializer, topic, value));
            Op op;
            switch (String.valueOf(m.get("op")).toLowerCase(Locale.ROOT)) {
                case "upsert" -> op = Op.UPSERT;
                case "delete" -> op = Op.DELETE;
                case "null" -> {
                    return Decoded.error("field 'op' is missing (expected \"upsert\" or \"delete\")");
                }
                default -> {
                    return Decoded.error("field 'op' has unknown value \"" + m.get("op") + "\" (expected \"upsert\" or \"delete\")");
                }
            }
            if (!(m.get("data") instanceof Map<?, ?> data)) {
                return Decoded.error("field 'data' is missing or not a record");
            }
            Instant time = EventTimes.of(m.get("event_time"), "event_time");
            return Decoded.ok(new Event(op, time, (Map<String, Object>) data, offset, source, null));
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }
}
