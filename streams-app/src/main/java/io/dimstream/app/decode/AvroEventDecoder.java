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
 * long of epoch milliseconds) and {@code data} (a record or map of the row image); with
 * {@code event-time: field NAME} the time is field NAME of {@code data} instead ({@link TimeField};
 * {@code event_time} is then not read). A tombstone is a delete at the record's timestamp, as in the
 * JSON format. A schema registry that cannot answer is
 * thrown ({@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}), never a
 * {@link Decoded.Failed}: the record is read again once the registry is back.
 */
public final class AvroEventDecoder implements EventDecoder {

    private final Deserializer<GenericRecord> deserializer;
    private final List<String> keyColumns;
    private final TimeField timeField;

    public AvroEventDecoder(Deserializer<GenericRecord> deserializer, List<String> keyColumns) {
        this(deserializer, keyColumns, null);
    }

    /** @param timeField {@code event-time: field NAME}, or null for the event's {@code event_time} */
    AvroEventDecoder(Deserializer<GenericRecord> deserializer, List<String> keyColumns, TimeField timeField) {
        this.deserializer = deserializer;
        this.keyColumns = List.copyOf(keyColumns);
        this.timeField = timeField;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        Source source = Source.kafka(topic, partition, offset);
        if (value == null) {
            return NativeJsonDecoder.tombstone(key, recordTimestampMs, keyColumns, offset, source);
        }
        try {
            org.apache.avro.generic.GenericRecord record = AvroRecords.read(deserializer, topic, value);
            Map<String, Object> m = AvroValues.toMap(record);
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
            Map<String, Object> row = (Map<String, Object>) data;
            Instant time;
            if (timeField == null) {
                time = EventTimes.of(m.get("event_time"), "event_time");
            } else {
                row = new java.util.LinkedHashMap<>(row);
                time = timeField.take(row, "data");
            }
            Event event = new Event(op, time, row, offset, source, null);
            org.apache.avro.Schema.Field dataField = record.getSchema().getField("data");
            org.apache.avro.Schema dataSchema = dataField == null ? null : record.get("data") instanceof org.apache.avro.generic.GenericRecord r
                    ? r.getSchema() : null;
            // the data record's schema: what a field new to the entity becomes, and what a retyped column is now
            Map<String, io.dimstream.db.entity.ColumnType> types = dataSchema == null ? Map.of() : ColumnInference.fromAvroRow(dataSchema);
            return types.isEmpty() ? Decoded.ok(event) : new Decoded.Ok(event, types);
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }
}
