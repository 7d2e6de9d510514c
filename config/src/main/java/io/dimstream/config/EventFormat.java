package io.dimstream.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How an entity's topic encodes its events ({@code format:} in config). {@code seed-json} is a flat
 * change row with an operation and a change-time field ({@link SeedJsonOptions}).
 */
public enum EventFormat {
    JSON("json"),
    AVRO("avro"),
    DEBEZIUM_JSON("debezium-json"),
    DEBEZIUM_AVRO("debezium-avro"),
    SEED_JSON("seed-json");

    private final String configName;

    EventFormat(String configName) {
        this.configName = configName;
    }

    /** The name written in config. */
    public String configName() {
        return configName;
    }

    /** Whether values are Avro, read by the configured {@link AvroOptions#valueDeserializer()}. */
    public boolean avro() {
        return this == AVRO || this == DEBEZIUM_AVRO;
    }

    public static Optional<EventFormat> fromConfig(String name) {
        return Arrays.stream(values()).filter(f -> f.configName.equals(name)).findFirst();
    }

    public static String supportedNames() {
        return Arrays.stream(values()).map(EventFormat::configName).collect(Collectors.joining(", "));
    }
}
