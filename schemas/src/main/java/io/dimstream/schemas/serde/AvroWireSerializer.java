package io.dimstream.schemas.serde;

import io.dimstream.schemas.AvroConversions;
import io.dimstream.schemas.registry.SchemaRegistryClient;
import io.dimstream.schemas.registry.SchemaRegistryException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes a {@link GenericRecord} in the Confluent wire format: {@code 0x00}, the id of the record's
 * schema as a 4-byte big-endian int, then the record in Avro binary.
 *
 * <p>The schema id comes from the registry under the subject {@code <topic>-value} (or {@code -key}),
 * registering the schema there first unless {@code auto.register.schemas=false}. Field values may be
 * Avro's raw representations or, for logical types, the Java types of Avro's conversions
 * ({@code Instant}, {@code LocalDate}, {@code BigDecimal}, {@code UUID}, ...). A null record is a null
 * value (a tombstone).
 */
public class AvroWireSerializer implements Serializer<GenericRecord> {

    /** Avro's generic data plus its logical type conversions; configured once here, never changed afterwards. */
    private static final GenericData WRITE_DATA = AvroConversions.withAll(new GenericData());

    private SchemaRegistryClient registry;
    private boolean autoRegister = true;
    private boolean isKey;

    /** For Kafka to create by class name; {@link #configure} must be called before use. */
    public AvroWireSerializer() {
    }

    /** A value serializer over this registry that registers new schemas; {@link #configure} may still change that. */
    public AvroWireSerializer(SchemaRegistryClient registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AvroWireConfig config = new AvroWireConfig(configs);
        if (registry == null) {
            registry = config.registry();
        }
        this.autoRegister = config.autoRegisterSchemas();
        this.isKey = isKey;
    }

    @Override
    public byte[] serialize(String topic, GenericRecord record) {
        if (record == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("AvroWireSerializer is not configured: call configure(...) with "
                    + AvroWireConfig.SCHEMA_REGISTRY_URL);
        }
        Schema schema = record.getSchema();
        int id = schemaId(TopicNameStrategy.subject(topic, isKey), schema);
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(WireFormat.MAGIC_BYTE);
        out.write(id >>> 24);
        out.write(id >>> 16);
        out.write(id >>> 8);
        out.write(id);
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema, WRITE_DATA).write(record, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode " + schema.getFullName() + " as Avro with schema id "
                    + id + ": " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private int schemaId(String subject, Schema schema) {
        try {
            if (autoRegister) {
                return registry.register(subject, schema);
            }
            OptionalInt id = registry.lookup(subject, schema);
            if (id.isEmpty()) {
                throw new SerializationException("schema " + schema.getFullName() + " is not registered under subject "
                        + subject + " and " + AvroWireConfig.AUTO_REGISTER_SCHEMAS + " is false");
            }
            return id.getAsInt();
        } catch (SchemaRegistryException e) {
            throw new SerializationException("cannot get a schema id for " + schema.getFullName() + " under subject "
                    + subject + ": " + e.getMessage(), e);
        }
    }
}
