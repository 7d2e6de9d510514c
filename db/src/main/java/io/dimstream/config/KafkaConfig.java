package io.dimstream.config;

/** {@code kafka:}: where the source topics live. */
public record KafkaConfig(String bootstrapServers) {

    /** The value that starts a broker inside the process. */
    public static final String EMBEDDED = "embedded";

    public boolean embedded() {
        return EMBEDDED.equals(bootstrapServers);
    }
}
