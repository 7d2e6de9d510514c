package io.dimstream.app.sink;

import java.time.Duration;
import java.util.Map;

/**
 * How a {@link ChangeSink} consumes and batches.
 *
 * @param groupId           Kafka consumer group; also the {@code consumer_group} of the offsets
 *                          and rejects the sink keeps in PostgreSQL. Instances sharing it share
 *                          the partitions.
 * @param batchSize         change records per PostgreSQL transaction, at most (default 5000)
 * @param batchMaxWait      how long a partition's first buffered record waits for its batch to fill
 *                          before the batch is applied anyway (default 200 ms)
 * @param backoffInitial    first wait after PostgreSQL failed (default 100 ms), doubled per failure
 * @param backoffMax        longest wait between retries (default 10 s)
 * @param consumerOverrides extra or overriding {@code KafkaConsumer} settings (security, client.id,
 *                          ...); the sink's own isolation, auto-commit and deserializers win
 */
public record SinkSettings(String groupId, int batchSize, Duration batchMaxWait, Duration backoffInitial,
                           Duration backoffMax, Map<String, Object> consumerOverrides) {

    public static final String DEFAULT_GROUP_ID = "dimstream-sink";
    public static final int DEFAULT_BATCH_SIZE = 5000;
    public static final Duration DEFAULT_BATCH_MAX_WAIT = Duration.ofMillis(200);
    public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofMillis(100);
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(10);

    public SinkSettings {
        if (groupId == null || groupId.isBlank()) {
            throw new IllegalArgumentException("group-id: must not be empty");
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch-size: must be at least 1, got " + batchSize);
        }
        if (batchMaxWait.isNegative() || batchMaxWait.isZero()) {
            throw new IllegalArgumentException("batch-max-wait: must be positive, got " + batchMaxWait);
        }
        if (backoffInitial.isNegative() || backoffInitial.isZero() || backoffMax.compareTo(backoffInitial) < 0) {
            throw new IllegalArgumentException("backoff: need 0 < initial <= max, got " + backoffInitial + " and " + backoffMax);
        }
        consumerOverrides = Map.copyOf(consumerOverrides);
    }

    /** Group {@value #DEFAULT_GROUP_ID}, batches of 5000 records or 200 ms, backoff 100 ms to 10 s. */
    public static SinkSettings defaults() {
        return new SinkSettings(DEFAULT_GROUP_ID, DEFAULT_BATCH_SIZE, DEFAULT_BATCH_MAX_WAIT, DEFAULT_BACKOFF_INITIAL,
                DEFAULT_BACKOFF_MAX, Map.of());
    }

    public SinkSettings withGroupId(String id) {
        return new SinkSettings(id, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides);
    }

    public SinkSettings withBatching(int size, Duration maxWait) {
        return new SinkSettings(groupId, size, maxWait, backoffInitial, backoffMax, consumerOverrides);
    }

    public SinkSettings withBackoff(Duration initial, Duration max) {
        return new SinkSettings(groupId, batchSize, batchMaxWait, initial, max, consumerOverrides);
    }

    public SinkSettings withConsumerOverrides(Map<String, Object> overrides) {
        return new SinkSettings(groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, overrides);
    }
}
