package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeTopics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;

/**
 * How a {@link ChangeSink} consumes, batches and reacts to failures. The sink knows no config file:
 * the service makes these from the config's {@code sink:} section, where the defaults are declared
 * ({@code io.dimstream.app.service.SinkSettingsFromConfig}).
 *
 * @param applicationId     the deployment the sink belongs to ({@code service.application-id}): it
 *                          names the changes topics the sink reads ({@link ChangeTopics#name}), so
 *                          two deployments on one Kafka cluster never read each other's changes
 * @param groupId           Kafka consumer group; also the {@code consumer_group} of the offsets
 *                          and rejects the sink keeps in PostgreSQL. Instances sharing it share
 *                          the partitions.
 * @param batchSize         change records per PostgreSQL transaction, at most (default 20000)
 * @param batchMaxWait      how long a partition's first buffered record waits for its batch to fill
 *                          before the batch is applied anyway (default 200 ms)
 * @param backoffInitial    first wait after PostgreSQL failed (default 100 ms), doubled per failure
 * @param backoffMax        longest wait between retries (default 10 s)
 * @param consumerOverrides extra or overriding {@code KafkaConsumer} settings (security, client.id,
 *                          ...); the sink's own isolation, auto-commit and deserializers win
 * @param parallelism       PostgreSQL connections on which the due batches of different partitions
 *                          are applied at once, each in a transaction of its own (default 2)
 * @param onOffsetOutOfRange what to do when a partition's stored offset is no longer in the changes
 *                          topic's log (retention deleted records the sink never applied, or the
 *                          topic was recreated): {@link OnOffsetOutOfRange#STOP} (default) the partition,
 *                          or {@link OnOffsetOutOfRange#SKIP} to the log's start with the gap recorded in
 *                          {@code dimstream.sink_gaps}
 * @param stuckAfter        a partition with records left to apply and no committed batch for this
 *                          long is reported stuck (health, metric); default 5 minutes
 * @param instanceId        the consumer's {@code group.instance.id} (static membership: a restarted
 *                          instance takes its partitions back at once instead of after the session
 *                          timeout); empty for dynamic membership
 */
public record SinkSettings(String applicationId, String groupId, int batchSize, Duration batchMaxWait, Duration backoffInitial,
                           Duration backoffMax, Map<String, Object> consumerOverrides, int parallelism,
                           OnOffsetOutOfRange onOffsetOutOfRange, Duration stuckAfter, Optional<String> instanceId) {

    /** The backoff after PostgreSQL failed is not configurable: 100 ms, doubled per failure, up to 10 s. */
    public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofMillis(100);
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(10);

    /** What the sink does with a partition whose stored offset left the log. */
    public enum OnOffsetOutOfRange {
        /** The partition stops, reported; replay the source for the missing changes. */
        STOP,
        /** The partition moves to the log's start, the gap recorded in {@code dimstream.sink_gaps}. */
        SKIP
    }

    public SinkSettings {
        if (applicationId == null || applicationId.isBlank()) {
            throw new IllegalArgumentException("application-id: must not be empty");
        }
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
        if ((long) batchSize * parallelism > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch-size: " + batchSize + " times parallelism " + parallelism
                    + " records must fit one poll (at most " + Integer.MAX_VALUE + ")");
        }
        if (stuckAfter.isNegative() || stuckAfter.isZero()) {
            throw new IllegalArgumentException("stuck-after: must be positive, got " + stuckAfter);
        }
        consumerOverrides = Map.copyOf(consumerOverrides);
        Objects.requireNonNull(onOffsetOutOfRange, "on-offset-out-of-range");
        Objects.requireNonNull(instanceId, "instanceId");
    }

    /** These settings for another deployment: its changes topics; the group stays as it is. */
    public SinkSettings withApplicationId(String id) {
        return new SinkSettings(id, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withGroupId(String id) {
        return new SinkSettings(applicationId, id, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withBatching(int size, Duration maxWait) {
        return new SinkSettings(applicationId, groupId, size, maxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withParallelism(int n) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, n,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withBackoff(Duration initial, Duration max) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, initial, max, consumerOverrides, parallelism,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withConsumerOverrides(Map<String, Object> overrides) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, overrides, parallelism,
                onOffsetOutOfRange, stuckAfter, instanceId);
    }

    public SinkSettings withOnOffsetOutOfRange(OnOffsetOutOfRange what) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                what, stuckAfter, instanceId);
    }

    public SinkSettings withStuckAfter(Duration after) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                onOffsetOutOfRange, after, instanceId);
    }

    /** @param id the consumer's {@code group.instance.id}; null or blank for dynamic membership */
    public SinkSettings withInstanceId(String id) {
        return new SinkSettings(applicationId, groupId, batchSize, batchMaxWait, backoffInitial, backoffMax, consumerOverrides, parallelism,
                onOffsetOutOfRange, stuckAfter, id == null || id.isBlank() ? Optional.empty() : Optional.of(id));
    }

    /**
     * The sink consumer's properties: the cluster's client settings ({@code kafka.client:}), then
     * {@link #consumerOverrides}, then what the sink needs whatever they say: its group (and static
     * membership), read_committed, no auto-commit, no offset reset (positions come from PostgreSQL;
     * an out-of-range one is reported, never reset silently); by default a poll can fill the batches
     * of as many partitions as there are connections to apply them on.
     */
    public Map<String, Object> consumerProperties(Map<String, Object> client) {
        Map<String, Object> p = new HashMap<>(client);
        p.putAll(consumerOverrides);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        instanceId.ifPresent(id -> p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, id));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, batchSize * parallelism);
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        // Incremental rebalances: when an instance leaves or joins, the others keep applying the
        // partitions they keep instead of giving every partition up and reading positions again
        // (Kafka's default list starts with the eager RangeAssignor). The rebalance listener is
        // per partition, so it serves both protocols.
        p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, io.dimstream.app.kafka.KafkaClients.GROUP_HEARTBEAT_MS);
        return Map.copyOf(p);
    }
}
