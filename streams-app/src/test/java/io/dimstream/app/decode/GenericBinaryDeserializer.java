package io.dimstream.app.decode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A test stand-in for a registry-backed Avro deserializer: plain Avro binary of one schema, given as
 * JSON in the config key {@value #SCHEMA_CONFIG} (so it can also be loaded by reflection from config).
 */
public class GenericBinaryDeserializer implements Deserializer<GenericRecord> {

    public static final String SCHEMA_CONFIG = "test.schema";

    private Schema schema;

    public GenericBinaryDeserializer() {
    }

    public GenericBinaryDeserializer(Schema schema) {
        this.schema = schema;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        schema = new Schema.Parser().parse((String) configs.get(SCHEMA_CONFIG));
    }

    @Override
    public GenericRecord deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        try {
            return new GenericDatumReader<GenericRecord>(schema).read(null, DecoderFactory.get().binaryDecoder(data, null));
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot read Avro binary of " + schema.getFullName() + " from " + topic);
        }
    }

    /** Plain Avro binary of a record, as the deserializer reads it. */
    public static byte[] write(GenericRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, enc);
            enc.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
