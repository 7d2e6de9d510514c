package io.dimstream.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code kafka:}: where the source topics live, and Kafka Streams settings passed through.
 *
 * @param streams {@code kafka.streams:}: Kafka Streams properties as Kafka names them (e.g.
 *                {@code commit.interval.ms}, {@code num.stream.threads}, {@code producer.linger.ms}),
 *                applied over dimstream's defaults; the pipeline refuses names Kafka Streams does
 *                not know and the few dimstream sets itself, naming the field
 */
public record KafkaConfig(String bootstrapServers, Map<String, String> streams) {

    /** The value that starts a broker inside the process. */
    public static final String EMBEDDED = "embedded";

    public KafkaConfig(String bootstrapServers) {
        this(bootstrapServers, Map.of());
    }

    public KafkaConfig {
        streams = Collections.unmodifiableMap(new LinkedHashMap<>(streams == null ? Map.of() : streams));
    }

    public boolean embedded() {
        return EMBEDDED.equals(bootstrapServers);
    }
}
