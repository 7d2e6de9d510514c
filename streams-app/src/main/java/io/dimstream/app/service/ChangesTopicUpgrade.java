package io.dimstream.app.service;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.sql.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an existing deployment does once, at start, when its changes topics take names of their own.
 * Every deployment's changes topic of an entity was {@code dimstream.<entity>.changes}; it is now
 * {@code <application-id>.<entity>.changes} ({@link ChangeTopics#name}), the same name under the
 * default application id {@code dimstream}, so only a deployment with another id moves. Its topology
 * resumes from its committed source offsets and writes to the new topic, so the changes it had
 * written to the old topic that its sink had not applied yet would be lost.
 *
 * <p>For each such entity whose sink group has offsets stored for the old topic, this takes those
 * offsets ({@link SinkOffsets#take}: deleted, rows locked, so it happens once even with several
 * instances starting), reads the old topic from them up to its end offsets as they are now, and
 * queues a replay job of the entity's source topic that covers the source records of those changes
 * (each change carries its source topic, partition and offset): from the first of them on each source
 * partition. A replay is a no-op for what the table holds and applies the rest (docs/replay.md). It
 * replays from {@code earliest} instead when the range cannot be told exactly: a control record
 * (end-of-slice or truncate marker) in the tail, a record it cannot decode, or a stored offset
 * retention already deleted. Changes of another source topic (another deployment's, which shared
 * the old topic) are left out. A job queued but the offsets' transaction not committed (a crash in
 * between) is queued again at the next start: harmless, a second replay of the same range.
 */
final class ChangesTopicUpgrade {

    private static final Logger LOG = LoggerFactory.getLogger(ChangesTopicUpgrade.class);

    /** What began every deployment's changes topics before the application id did. */
    static final String FORMER_PREFIX = "dimstream";

    /** Who queues the replay, in {@code dimstream.replay_jobs} and the audit. */
    static final String USER = "dimstream-upgrade";

    /** How long reading an old topic's tail may take before the replay falls back to {@code earliest}. */
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(2);

    private ChangesTopicUpgrade() {
    }

    /** What the tail of an old changes topic asks for: a replay from these source offsets, from earliest, or none. */
    record Tail(long changes, long foreign, TreeMap<Integer, Long> from, Optional<String> earliestBecause) {

        Optional<ReplaySource> replay() {
            if (earliestBecause.isPresent()) {
                return Optional.of(ReplaySource.earliest());
            }
            return from.isEmpty() ? Optional.empty() : Optional.of(ReplaySource.offsets(from));
        }
    }

    /**
     * For each pipeline whose changes topic was named otherwise before, queues the replay its old
     * topic's unapplied tail needs (see the class comment).
     *
     * @return the ids of the replay jobs queued, by entity
     */
    static Map<String, Long> run(DataSource ds, KafkaClients kafka, String sinkGroup, List<EntityPipeline> pipelines)
            throws SQLException {
        Map<String, Long> jobs = new TreeMap<>();
        for (EntityPipeline p : pipelines) {
            String entity = p.entity().name();
            String old = ChangeTopics.name(FORMER_PREFIX, entity);
            if (old.equals(p.changesTopic())) {
                continue;
            }
            Long job = Transactions.inTransaction(ds, c -> {
                Map<Integer, Long> stored = SinkOffsets.take(c, sinkGroup, old);
                return stored.isEmpty() ? null : replayTail(ds, kafka, sinkGroup, p, old, stored);
            });
            if (job != null) {
                jobs.put(entity, job);
            }
        }
        return jobs;
    }

    private static Long replayTail(DataSource ds, KafkaClients kafka, String sinkGroup, EntityPipeline p, String old,
                                   Map<Integer, Long> stored) throws SQLException {
        String entity = p.entity().name();
        Optional<Tail> read = read(kafka, old, p.sourceTopic(), stored);
        if (read.isEmpty()) {
            LOG.warn("entity {}: sink group {} had offsets stored for {}, the name of its changes topic before {} named it, but the "
                    + "topic is gone: what it held that the sink had not applied is lost. If there was any, replay the source for the time "
                    + "it covers: ./dimstream replay --config <file> --entity {} --from <instant>", entity, sinkGroup, old, p.changesTopic(),
                    entity);
            return null;
        }
        Tail tail = read.get();
        Optional<ReplaySource> replay = tail.replay();
        if (replay.isEmpty()) {
            LOG.info("entity {}: its changes now go to {}; sink group {} had applied everything of {} ({} changes of another source "
                    + "topic left out): nothing to replay", entity, p.changesTopic(), sinkGroup, old, tail.foreign());
            return null;
        }
        long id = new ReplayJobs(ds).submit(entity, p.sourceTopic(), replay.get(), ReplayTarget.LIVE, USER);
        LOG.warn("entity {}: its changes now go to {}; what sink group {} had not applied of {}, its changes topic's name before ({} "
                        + "changes read), replay job {} applies from their source records: {} from {} ({}; a no-op for what the table holds; "
                        + "{} changes of another source topic left out)", entity, p.changesTopic(), sinkGroup, old, tail.changes(), id,
                p.sourceTopic(), replay.get(), tail.earliestBecause().orElse("the first source record of each partition's changes"),
                tail.foreign());
        return id;
    }

    /**
     * Reads {@code topic} from the stored offsets to its end offsets taken now (read_committed).
     *
     * @return empty when the topic does not exist
     */
    static Optional<Tail> read(KafkaClients kafka, String topic, String sourceTopic, Map<Integer, Long> stored) {
        Map<String, Object> props = kafka.properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> partitions = c.listTopics().get(topic);
            if (partitions == null || partitions.isEmpty()) {
                return Optional.empty();
            }
            List<TopicPartition> tps = partitions.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            Map<TopicPartition, Long> begin = c.beginningOffsets(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            List<TopicPartition> behind = new ArrayList<>();
            String earliest = null;
            for (TopicPartition tp : tps) {
                long from = stored.getOrDefault(tp.partition(), 0L);
                if (from < begin.get(tp)) {
                    earliest = "retention deleted changes of " + tp + " from offset " + from + " the sink had not applied";
                } else if (from < end.get(tp)) {
                    behind.add(tp);
                }
            }
            if (earliest != null || behind.isEmpty()) {
                return Optional.of(new Tail(0, 0, new TreeMap<>(), Optional.ofNullable(earliest)));
            }
            c.assign(behind);
            behind.forEach(tp -> c.seek(tp, stored.getOrDefault(tp.partition(), 0L)));
            return Optional.of(scan(c, behind, end, sourceTopic));
        }
    }

    /** Polls the assigned partitions up to {@code end}, noting the first source offset per source partition. */
    private static Tail scan(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> behind, Map<TopicPartition, Long> end,
                             String sourceTopic) {
        TreeMap<Integer, Long> from = new TreeMap<>();
        long changes = 0;
        long foreign = 0;
        String earliest = null;
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (behind.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
            if (System.nanoTime() > deadline) {
                earliest = "the old topic was not read to its end within " + READ_TIMEOUT.toSeconds() + " s";
                break;
            }
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) {
                    continue;
                }
                if (SliceMarker.isControl(r.headers())) {
                    earliest = "a control record (end-of-slice or truncate marker) is among them";
                    continue;
                }
                ChangeRecord change;
                try {
                    change = ChangeCodec.decode(r.value());
                } catch (RuntimeException e) {
                    earliest = "the change at " + r.topic() + "-" + r.partition() + "@" + r.offset() + " does not decode";
                    continue;
                }
                if (!sourceTopic.equals(change.sourceTopic())) {
                    foreign++;
                    continue;
                }
                changes++;
                from.merge(change.sourcePartition(), change.sourceOffset(), Math::min);
            }
        }
        LOG.debug("read {}: first source offsets {}", behind.stream().map(TopicPartition::toString).collect(Collectors.joining(", ")), from);
        return new Tail(changes, foreign, from, Optional.ofNullable(earliest));
    }
}
