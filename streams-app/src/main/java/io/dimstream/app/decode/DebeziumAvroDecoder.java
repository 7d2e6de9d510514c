package io.dimstream.app.decode;

import io.dimstream.schemas.AvroValues;
import io.dimstream.db.event.Source;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * {@code format: debezium-avro}: Debezium change events written by Kafka Connect's AvroConverter (an
 * {@code Envelope} record with {@code before}, {@code after}, {@code source}, {@code op},
 * {@code ts_ms}). See {@link DebeziumEnvelope} for the mapping; the tombstone after a delete is skipped.
 * Values are converted by their semantic type ({@link DebeziumValues}): the {@code connect.name}
 * (and {@code connect.parameters}) Kafka Connect's Avro converter puts on each column's schema, else
 * its Avro logical type, else the entity's {@code encodings:} hint.
 * A schema registry that cannot answer is thrown
 * ({@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}), never a {@link Decoded.Failed}.
 */
public final class DebeziumAvroDecoder implements EventDecoder {

    private final Deserializer<GenericRecord> deserializer;
    private final DebeziumEnvelope envelope;
    private final DebeziumValues values;

    /** Debezium's defaults: {@code event-time: source.ts_ms}, {@code on-truncate: ignore}; conversions by the records' schemas only. */
    public DebeziumAvroDecoder(Deserializer<GenericRecord> deserializer) {
        this(deserializer, DebeziumEnvelope.DEFAULTS, DebeziumValues.SCHEMAS_ONLY);
    }

    DebeziumAvroDecoder(Deserializer<GenericRecord> deserializer, DebeziumEnvelope envelope, DebeziumValues values) {
        this.deserializer = deserializer;
        this.envelope = envelope;
        this.values = values;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        if (value == null) {
            return Decoded.skip(DebeziumJsonDecoder.TOMBSTONE);
        }
        try {
            GenericRecord record = AvroRecords.read(deserializer, topic, value);
            java.util.Map<String, Object> m = AvroValues.toMap(record);
            values.convertImages(m, DebeziumValues.fromAvroSchema(record.getSchema()));
            Decoded d = envelope.toDecoded(m, offset, Source.kafka(topic, partition, offset));
            if (d instanceof Decoded.Ok ok) {
                // the row image's schema: what a field new to the entity becomes, and what a retyped column is now
                java.util.Map<String, io.dimstream.db.entity.ColumnType> types = ColumnInference.fromAvroEnvelope(record.getSchema());
                return types.isEmpty() ? d : new Decoded.Ok(ok.event(), types);
            }
            return d;
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }
}
