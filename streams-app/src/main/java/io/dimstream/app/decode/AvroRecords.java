package io.dimstream.app.decode;

import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/** Runs the configured Avro deserializer, turning its failures into a reason. */
final class AvroRecords {

    private AvroRecords() {
    }

    /** @throws IllegalArgumentException {@code not valid Avro: ...} */
    static GenericRecord read(Deserializer<GenericRecord> deserializer, String topic, byte[] value) {
        GenericRecord record;
        try {
            record = deserializer.deserialize(topic, value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not valid Avro: " + e.getMessage(), e);
        }
        if (record == null) {
            throw new IllegalArgumentException("not valid Avro: the deserializer returned no record");
        }
        return record;
    }
}
