package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.config.ServiceConfig;
import io.dimstream.config.SinkConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How a {@link ChangeSink} consumes, batches and reacts to failures.
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
 *                          topic was recreated): {@link SinkConfig.OffsetOutOfRange#STOP} (default) the partition,
 *                          or {@link SinkConfig.OffsetOutOfRange#SKIP} to the log's start with the gap recorded in
 *                          {@code dimstream.sink_gaps}
 * @param stuckAfter        a partition with records left to apply and no committed batch for this
 *                          long is reported stuck (health, metric); default 5 minutes
 * @param instanceId        the consumer's {@code group.instance.id} (static membership: a restarted
 *                          instance takes its partitions back at once instead of after the session
 *                          timeout); empty for dynamic membership
 */
public record SinkSettings(String applicationId, String groupId, int batchSize, Duration batchMaxWait, Duration backoffInitial,
                           Duration backoffMax, Map<String, Object> consumerOverrides, int parallelism,
                           SinkConfig.OffsetOutOfRange onOffsetOutOfRange, Duration stuckAfter, Optional<String> instanceId) {

    /** The default {@code service.application-id}. */
    public static final String DEFAULT_APPLICATION_ID = ServiceConfig.DEFAULTS.applicationId();
    /** The sink's group under the default {@code service.application-id}. */
    public static final String DEFAULT_GROUP_ID = DEFAULT_APPLICATION_ID + "-sink";
    // the defaults of the keys of the config's sink: section are declared once, in the config
    // (ConfigKeys, SinkConfig.DEFAULTS); the backoff is not configurable and lives only here
    public static final int DEFAULT_BATCH_SIZE = SinkConfig.DEFAULTS.batchSize();
    public static final Duration DEFAULT_BATCH_MAX_WAIT = SinkConfig.DEFAULTS.batchMaxWait();
    public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofMillis(100);
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(10);
    public static final int DEFAULT_PARALLELISM = SinkConfig.DEFAULTS.parallelism();
    public static final Duration DEFAULT_STUCK_AFTER = SinkConfig.DEFAULTS.stuckAfter();

    /** What the sink does with a partition whose stored offset left the log. */

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
        java.util.Objects.requireNonNull(onOffsetOutOfRange, "on-offset-out-of-range");
        java.util.Objects.requireNonNull(instanceId, "instanceId");
    }

    /**
     * Application id {@code dimstream}, group {@code dimstream-sink} ({@link #DEFAULT_GROUP_ID}), the config's {@code sink:} defaults ({@link SinkConfig#DEFAULTS}: batches of 20000
     * records or 200 ms, 2 connections, stop on a gap, stuck after 5 minutes), backoff 100 ms to 10 s.
     */
    public static SinkSettings defaults() {
        return from(SinkConfig.DEFAULTS, DEFAULT_APPLICATION_ID);
    }

    /**
     * The settings of the config's {@code sink:} section (backoff and consumer settings at their defaults).
     *
     * @param applicationId the deployment's application id; the group is {@code <application-id>-sink}
     *                      when the section names none
     */
    public static SinkSettings from(SinkConfig sink, String applicationId) {
        return new SinkSettings(applicationId, sink.groupId().orElse(applicationId + "-sink"), sink.batchSize(), sink.batchMaxWait(),
                DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_MAX, Map.of(), sink.parallelism(), sink.onOffsetOutOfRange(),
                sink.stuckAfter(), Optional.empty());
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

    public SinkSettings withOnOffsetOutOfRange(SinkConfig.OffsetOutOfRange what) {
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
}
