package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The topics dimstream creates itself, per entity: the changes topic and the dead-letter topic, for
 * {@code Admin.createTopics}. Both stamp records with the append time, so retention counts from when
 * dimstream wrote a record, never from an old source timestamp (DESIGN section 6), and both take
 * Kafka's default {@code max.message.bytes} explicitly, the limit the decode step checks records against
 * ({@link RecordLimits}), so a broker with another default cannot make a change or DLQ record too big.
 *
 * <p>Planning only: what exists and how many partitions a topic has come in as values, and the
 * service ({@code io.dimstream.app.service.TopicSetup}) asks the broker and creates what
 * {@link #missing} returns, then hands the counts to {@link #checkPartitionCounts}.
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

    /** The changes topic of one entity of deployment {@code applicationId}, as {@link #plan} makes it. */
    public static NewTopic changesTopic(String applicationId, String entity, int partitions, short replicationFactor) {
        return topic(ChangeTopics.name(applicationId, entity), partitions, replicationFactor, CHANGES_RETENTION);
    }

    /**
     * The source topics whose partition count {@link #missing} needs: those of entities whose changes
     * topic follows its source ({@link EntityPipeline#changesPartitionsFollowSource()}) and that exist.
     */
    public static Set<String> sourcesToCount(List<EntityPipeline> pipelines, Set<String> existing) {
        Set<String> topics = new LinkedHashSet<>();
        for (EntityPipeline p : pipelines) {
            if (p.changesPartitionsFollowSource() && existing.contains(p.sourceTopic())) {
                topics.add(p.sourceTopic());
            }
        }
        return topics;
    }

    /**
     * The topics to create: (with {@code sources}, on an embedded broker, each source topic first,
     * plain) each entity's changes and DLQ topics ({@link #plan}), leaving out those that exist. The
     * changes and DLQ topics of an entity whose changes topic follows its source get the existing
     * source topic's partition count (each classify task's control record goes to the changes
     * partition of the same number); otherwise, and when the source does not exist yet,
     * {@code partitions}.
     *
     * @param existing         the topics the broker has
     * @param sourcePartitions partition counts of (at least) the topics {@link #sourcesToCount} names
     */
    public static List<NewTopic> missing(List<EntityPipeline> pipelines, int partitions, short replicationFactor, boolean sources,
                                         Set<String> existing, Map<String, Integer> sourcePartitions) {
        List<NewTopic> wanted = new ArrayList<>();
        if (sources) {
            for (EntityPipeline p : pipelines) {
                wanted.add(new NewTopic(p.sourceTopic(), partitions, replicationFactor));
            }
        }
        for (EntityPipeline p : pipelines) {
            int n = partitions;
            if (p.changesPartitionsFollowSource() && existing.contains(p.sourceTopic())) {
                n = count(sourcePartitions, p.sourceTopic());
            }
            wanted.addAll(plan(List.of(p), n, replicationFactor));
        }
        return wanted.stream().filter(t -> !existing.contains(t.name())).toList();
    }

    /**
     * The topics whose partition counts {@link #checkPartitionCounts} compares: the source and changes
     * topic of each entity whose changes topic follows its source, when the source exists (a missing
     * source topic is Kafka Streams' to report).
     */
    public static Set<String> topicsToCompare(List<EntityPipeline> pipelines, Set<String> existing) {
        Set<String> topics = new LinkedHashSet<>();
        for (EntityPipeline p : pipelines) {
            if (p.changesPartitionsFollowSource() && existing.contains(p.sourceTopic())) {
                topics.add(p.sourceTopic());
                topics.add(p.changesTopic());
            }
        }
        return topics;
    }

    /**
     * Refuses to start when an entity whose changes topic must follow its source has another
     * partition count than its source topic (checked after creating, since the changes topic may
     * have been there before).
     *
     * @param existing        the topics the broker has now
     * @param partitionCounts partition counts of (at least) the topics {@link #topicsToCompare} names
     * @throws IllegalStateException naming the entity, both topics and both counts, for the first
     *                               entity in order that differs
     */
    public static void checkPartitionCounts(List<EntityPipeline> pipelines, Set<String> existing, Map<String, Integer> partitionCounts) {
        for (EntityPipeline p : pipelines) {
            if (p.changesPartitionsFollowSource() && existing.contains(p.sourceTopic())) {
                int source = count(partitionCounts, p.sourceTopic());
                int changes = count(partitionCounts, p.changesTopic());
                if (source != changes) {
                    throw new IllegalStateException("entity " + p.entity().name() + " is "
                            + (p.snapshot() ? "mode: snapshot" : "on-truncate: delete-all") + ", so its changes topic "
                            + p.changesTopic() + " must have as many partitions as its source topic " + p.sourceTopic()
                            + " (" + source + "), but it has " + changes + ": recreate it or add partitions");
                }
            }
        }
    }

    private static int count(Map<String, Integer> partitionCounts, String topic) {
        Integer n = partitionCounts.get(topic);
        if (n == null) {
            throw new IllegalArgumentException("no partition count given for topic " + topic);
        }
        return n;
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
