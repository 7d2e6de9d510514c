package io.dimstream.config;

import java.util.Map;

/**
 * How a {@code format: avro} or {@code debezium-avro} topic's values are turned into Avro records:
 * a Kafka {@code Deserializer<GenericRecord>} class, instantiated by reflection, and the properties
 * passed to its {@code configure}.
 *
 * <pre>
 *     value-deserializer: io.confluent.kafka.serializers.KafkaAvroDeserializer   # default: dimstream's own
 *     deserializer-config: {schema.registry.url: "http://registry:8081"}
 * </pre>
 */
public record AvroOptions(String valueDeserializer, Map<String, String> deserializerConfig) {

    /** dimstream's Confluent-wire-format deserializer (module {@code schemas}). */
    public static final String DEFAULT_VALUE_DESERIALIZER = "io.dimstream.schemas.serde.AvroWireDeserializer";

    public static final AvroOptions DEFAULTS = new AvroOptions(DEFAULT_VALUE_DESERIALIZER, Map.of());

    public AvroOptions {
        // its toString masks secrets (basic.auth.user.info, ...): messages quote the whole map
        deserializerConfig = MaskedMap.of(deserializerConfig);
    }
}
