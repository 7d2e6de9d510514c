package io.dimstream.config.model;

/**
 * How an entity's topic encodes its events ({@code format:} in config). {@code seed-json} is a flat
 * change row with an operation and a change-time field ({@link SeedJsonOptions}).
 */
public enum EventFormat implements ConfigEnum {
    JSON("json"),
    AVRO("avro"),
    DEBEZIUM_JSON("debezium-json"),
    DEBEZIUM_AVRO("debezium-avro"),
    SEED_JSON("seed-json");

    private final String configName;

    EventFormat(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    /** Whether values are Avro, read by the configured {@link AvroOptions#valueDeserializer()}. */
    public boolean avro() {
        return this == AVRO || this == DEBEZIUM_AVRO;
    }
}
