package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The topics dimstream creates itself, per entity: the changes topic and the dead-letter topic, for
 * {@code Admin.createTopics}. Both stamp records with the append time, so retention counts from when
 * dimstream wrote a record, never from an old source timestamp (DESIGN section 6), and both take
 * Kafka's default {@code max.message.bytes} explicitly, the limit the decode step checks records against
 * ({@link RecordLimits}), so a broker with another default cannot make a change or DLQ record too big.
 */
public final class TopicPlanner {

    /**
     * How long the sink has to apply a change. The changes topic is only a buffer between Kafka
     * Streams and the sink, which normally applies a change within a second; its retention is the
     * longest the sink may be stopped (PostgreSQL down, a table broken by hand, the service off)
     * before changes are lost. Seven days covers a long weekend with margin at the disk cost of a
     * week of changes (about the source topic's own volume). Chosen, not defaulted: should a stored
     * offset still fall out of the log, the sink stops that partition and says so
     * ({@code sink.on-offset-out-of-range}) instead of jumping ahead; the missing changes are then
     * replayed from the source topic. Raise it on an existing topic with
     * {@code kafka-configs --alter --add-config retention.ms=...}.
     */
    public static final Duration CHANGES_RETENTION = Duration.ofDays(7);
    /** How long a refused record stays for inspection and replay from the admin UI. */
    public static final Duration DLQ_RETENTION = Duration.ofDays(30);

    private TopicPlanner() {
    }

    /**
     * @param partitions        of each topic; 0 or less takes the broker's default
     * @param replicationFactor of each topic; 0 or less (e.g. -1) takes the broker's default
     * @return for each pipeline in order, its changes topic then its DLQ topic
     */
    public static List<NewTopic> plan(List<EntityPipeline> pipelines, int partitions, short replicationFactor) {
        List<NewTopic> topics = new ArrayList<>(pipelines.size() * 2);
        for (EntityPipeline p : pipelines) {
            topics.add(topic(p.changesTopic(), partitions, replicationFactor, CHANGES_RETENTION));
            topics.add(topic(p.dlqTopic(), partitions, replicationFactor, DLQ_RETENTION));
        }
        return topics;
    }

    /** The changes topic of one entity, as {@link #plan} makes it. */
    public static NewTopic changesTopic(String entity, int partitions, short replicationFactor) {
        return topic(ChangeTopics.name(entity), partitions, replicationFactor, CHANGES_RETENTION);
    }

    private static NewTopic topic(String name, int partitions, short replicationFactor, Duration retention) {
        return new NewTopic(name,
                partitions > 0 ? Optional.of(partitions) : Optional.empty(),
                replicationFactor > 0 ? Optional.of(replicationFactor) : Optional.empty())
                .configs(Map.of(
                        TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime",
                        TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()),
                        TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(RecordLimits.DEFAULT_MAX_MESSAGE_BYTES)));
    }
}
