package io.dimstream.config.model;

import java.util.Map;

/**
 * {@code kafka:}: where the source topics live, client settings for every Kafka client dimstream
 * makes, and Kafka Streams settings passed through.
 *
 * @param client  {@code kafka.client:}: settings every Kafka client of dimstream gets (Kafka Streams'
 *                clients, the sink's consumer, the replay and DLQ workers, the re-drive and
 *                snapshot producers, admin clients): security ({@code security.protocol},
 *                {@code sasl.*}, {@code ssl.*}) and other settings common to consumers, producers and
 *                admin clients; names are checked where Kafka is ({@code KafkaClients.problems})
 * @param streams {@code kafka.streams:}: Kafka Streams properties as Kafka names them (e.g.
 *                {@code commit.interval.ms}, {@code num.stream.threads}, {@code producer.linger.ms}),
 *                applied over dimstream's defaults; the pipeline refuses names Kafka Streams does
 *                not know and the few dimstream sets itself, naming the field
 */
public record KafkaConfig(String bootstrapServers, Map<String, String> streams, Map<String, String> client) {

    /** The value that starts a broker inside the process. */
    public static final String EMBEDDED = "embedded";

    public KafkaConfig(String bootstrapServers) {
        this(bootstrapServers, Map.of(), Map.of());
    }

    public KafkaConfig(String bootstrapServers, Map<String, String> streams) {
        this(bootstrapServers, streams, Map.of());
    }

    public KafkaConfig {
        // toString masks secrets (sasl.jaas.config, ssl.*.password): messages may quote the whole map
        streams = MaskedMap.of(streams);
        client = MaskedMap.of(client);
    }

    public boolean embedded() {
        return EMBEDDED.equals(bootstrapServers);
    }
}
