package io.dimstream.schemas.serde;

import io.dimstream.schemas.registry.SchemaRegistryClient;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** {@link AvroWireSerializer} and {@link AvroWireDeserializer} as one {@link Serde}, configured together. */
public class AvroWireSerde implements Serde<GenericRecord> {

    private final AvroWireSerializer serializer;
    private final AvroWireDeserializer deserializer;

    /** For Kafka to create by class name; {@link #configure} must be called before use. */
    public AvroWireSerde() {
        this.serializer = new AvroWireSerializer();
        this.deserializer = new AvroWireDeserializer();
    }

    /** A serde over this registry (both halves share it); {@link #configure} may still set the other settings. */
    public AvroWireSerde(SchemaRegistryClient registry) {
        this.serializer = new AvroWireSerializer(registry);
        this.deserializer = new AvroWireDeserializer(registry);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        serializer.configure(configs, isKey);
        deserializer.configure(configs, isKey);
    }

    @Override
    public Serializer<GenericRecord> serializer() {
        return serializer;
    }

    @Override
    public Deserializer<GenericRecord> deserializer() {
        return deserializer;
    }
}
