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
 * @param parallelism       PostgreSQL connections on which the due batches of different partitions
 *                          are applied at once, each in a transaction of its own (default 2)
 */
public record SinkSettings(String groupId, int batchSize, Duration batchMaxWait, Duration backoffInitial,
                           Duration backoffMax, Map<String, Object> consumerOverrides, int parallelism) {

    public static final String DEFAULT_GROUP_ID = "dimstream-sink";
    public static final int DEFAULT_BATCH_SIZE = 5000;
    public static final Duration DEFAULT_BATCH_MAX_WAIT = Duration.ofMillis(200);
    public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofMillis(100);
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(10);
    public static final int DEFAULT_PARALLELISM = 2;

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
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism: must be at least 1, got " + parallelism);
        }
        consumerOverrides = Map.copyOf(consumerOverrides);
    }

    /** Group {@value #DEFAULT_GROUP_ID}, batches of 5000 records or 200 ms, backoff 100 ms to 10 s, 2 connections. */
    public static SinkSettings defaults() {
        return new SinkSettings(DEFAULT_GROUP_ID, DEFAULT_BATCH_SIZE, DEFAULT_BATCH_MAX_WAIT, DEFAULT_BACKOFF_INITIAL,
                DEFAULT_BACKOFF_MAX, Map.of(), DEFAULT_PARALLELISM);
    }

    public SinkSettings withGroupId(String id) {
        return new SinkSettings(id, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism);
    }

    public SinkSettings withBatching(int size, Duration maxWait) {
        return new SinkSettings(groupId, size, maxWait, backoffInitial, backoffMax, consumerOverrides, parallelism);
    }

    public SinkSettings withParallelism(int n) {
        return new SinkSettings(groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, n);
    }

    public SinkSettings withBackoff(Duration initial, Duration max) {
        return new SinkSettings(groupId, batchSize, batchMaxWait, initial, max, consumerOverrides, parallelism);
    }

    public SinkSettings withConsumerOverrides(Map<String, Object> overrides) {
        return new SinkSettings(groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, overrides, parallelism);
    }
}
