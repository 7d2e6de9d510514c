package io.dimstream.config.model;

import java.util.Map;
import java.util.Set;

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

    /**
     * The settings {@link #DEFAULT_VALUE_DESERIALIZER} knows (its {@code AvroWireConfig}; a test in
     * streams-app keeps the two equal). It ignores any other key, so a typo such as
     * {@code basic.auth.userinfo} would silently send no credentials: with the default deserializer the
     * config refuses unknown keys, naming them. Another deserializer's keys are its own business.
     */
    public static final Set<String> DEFAULT_DESERIALIZER_KEYS = Set.of("schema.registry.url", "auto.register.schemas",
            "basic.auth.user.info", "dimstream.avro.reader.schema", "dimstream.avro.key.reader.schema",
            "dimstream.schema.registry.retry.ms");

    public AvroOptions {
        // its toString masks secrets (basic.auth.user.info, ...): messages quote the whole map
        deserializerConfig = MaskedMap.of(deserializerConfig);
    }
}
