package io.dimstream.app.replay;

import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.apply.Batch;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.apply.Outcome;
import io.dimstream.db.apply.ShapeChange;
import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.read.QuarantineQueries;
import io.dimstream.db.write.Scd2Writer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed replay job, run to its end: on its first start take the range (start offsets from the
 * job's source, end offsets = the read_committed end offsets now) and store it; read the range with
 * {@code assign()} (no consumer group, nothing committed to Kafka); apply each poll as one batch of
 * the one apply pipeline ({@link ReplayPoll}, {@link BatchApplier}) with the job's progress as its
 * position ({@link ReplayPosition}), so a crash resumes exactly at the last committed batch and a
 * worker that lost its lease cannot commit. At the end offsets a shadow job swaps its table in
 * ({@link ShadowTables#swap}), or stops READY for a user's preview ({@code no_swap}). A repair (a
 * live job restricted to keys, {@link ReplayKeys}) first clears its keys' rows and memory in one
 * transaction, then takes its range and applies the events of its keys only.
 */
final class ReplayRun {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayRun.class);

    /** Why a run stopped before the end of its range. */
    static final class Abandoned extends Exception {
        Abandoned(String why) {
            super(why, null, false, false);
        }
    }

    private final ReplayJob job;
    private final EntityPipeline pipeline;
    private final DataSource ds;
    private final BatchApplier applier;
    private final Scd2Writer writer;
    private final ReplaySettings settings;
    private final ReplayPosition position;
    private final AtomicBoolean stopping;
    private final AtomicBoolean leaseLost;

    ReplayRun(ReplayJob job, EntityPipeline pipeline, DataSource ds, BatchApplier applier, Scd2Writer writer, ReplaySettings settings,
              ReplayPosition position, AtomicBoolean stopping, AtomicBoolean leaseLost) {
        this.job = job;
        this.pipeline = pipeline;
        this.ds = ds;
        this.applier = applier;
        this.writer = writer;
        this.settings = settings;
        this.position = position;
        this.stopping = stopping;
        this.leaseLost = leaseLost;
    }

    /**
     * Runs the job over its range with {@code consumer}, then ends it: true when it SUCCEEDED (swapped
     * in, or a live job at its end offsets), false when it stopped READY for a user's swap.
     */
    boolean run(KafkaConsumer<byte[], byte[]> consumer) throws Exception {
        // the shape as of the job's start: columns added while running are written by the replay too,
        // and a shadow table is made with them (and with any added while it runs, EntityShapes.conform)
        EntitySpec live = applier.shapes().reread(job.entity());
        EntitySpec target = job.target() == ReplayTarget.LIVE ? live : ShadowTables.shadowSpec(live, job.id());
        ReplayKeys keys = ReplayKeys.of(ds, job.id()).orElse(null);
        if (keys != null && job.target() != ReplayTarget.LIVE) {
            throw new IllegalArgumentException("a replay restricted to keys writes the live table, not a shadow");
        }
        if (keys != null && pipeline.snapshot()) {
            throw new IllegalArgumentException("entity " + job.entity() + " is a snapshot feed (mode: snapshot): a repair of some keys "
                    + "would judge its slices' deletions by absence on those keys only; replay the whole entity instead");
        }
        List<PartitionProgress> progress = startOrResume(consumer, target, keys);
        SnapshotReplay slices = pipeline.snapshot() ? SnapshotReplay.resume(ds, job, progress) : null;
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (PartitionProgress p : progress) {
            if (!p.done()) {
                TopicPartition tp = new TopicPartition(job.topic(), p.partition());
                ends.put(tp, p.endOffset());
                positions.put(tp, p.position());
            }
        }
        consumer.assign(ends.keySet());
        positions.forEach(consumer::seek);
        long lastCommit = System.nanoTime();
        while (!positions.isEmpty()) {
            checkGoingOn();
            List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                Long end = ends.get(new TopicPartition(r.topic(), r.partition()));
                if (end != null && r.offset() < end) {
                    read.add(r);
                }
            }
            Map<Integer, Long> moved = moved(consumer, positions, ends);
            if (moved.isEmpty()) {
                if (System.nanoTime() - lastCommit > 1_000_000_000L) {
                    // nothing to read (broker unreachable?): still honour a cancel, notice a lost lease
                    position.inTransaction(ds, c -> { });
                    lastCommit = System.nanoTime();
                }
                continue;
            }
            apply(ReplayPoll.of(pipeline, read, moved, keys, setAside(keys, read), slices), target, keys != null);
            if (slices != null) {
                slices.committed();
            }
            List<TopicPartition> done = positions.entrySet().stream().filter(e -> e.getValue() >= ends.get(e.getKey()))
                    .map(Map.Entry::getKey).toList();
            if (!done.isEmpty()) {
                done.forEach(positions::remove);
                consumer.assign(positions.keySet());
            }
            lastCommit = System.nanoTime();
            pause();
        }
        return finish(target);
    }

    private void checkGoingOn() throws Abandoned {
        if (stopping.get()) {
            throw new Abandoned("stopped by the service; it resumes from its last committed batch");
        }
        if (leaseLost.get()) {
            throw new Abandoned("lease lost to another instance; leaving the job to it");
        }
    }

    private void pause() {
        if (settings.pauseBetweenBatches().isZero()) {
            return;
        }
        try {
            Thread.sleep(settings.pauseBetweenBatches().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.set(true);
        }
    }

    /**
     * What a repair leaves out of a poll: the records the live path quarantined that no user applied.
     * A repair rebuilds its keys from the range after clearing them, so it places their events with
     * the lateness horizon lifted (the live sink goes on meanwhile and its newer events would make the
     * rebuilt history look late); leaving these out makes the live path's decisions again.
     */
    private Set<List<Long>> setAside(ReplayKeys keys, List<ConsumerRecord<byte[], byte[]>> read) throws SQLException {
        if (keys == null || read.isEmpty()) {
            return Set.of();
        }
        return new QuarantineQueries(ds).setAside(job.entity(), job.topic(),
                read.stream().map(r -> List.of((long) r.partition(), r.offset())).toList());
    }

    /**
     * The poll's batch through the one pipeline: a live job's writes exclude the sink's, a shadow has
     * no other writer; a repair's events are placed whatever their lateness ({@link #setAside}).
     */
    private void apply(ReplayPoll poll, EntitySpec target, boolean repair) throws SQLException, Abandoned {
        boolean shadow = job.target() == ReplayTarget.SHADOW;
        Batch<ReplayPoll> batch = new Batch<>(job.entity(), shadow ? target : null, ShapeChange.NONE,
                shadow || !poll.writes() ? WriterLock.Mode.NONE : WriterLock.Mode.EXCLUSIVE, shape -> poll,
                "replay job " + job.id() + " batch to " + poll.moved(), repair);
        Outcome<ReplayPoll, String> out = applier.apply(batch, position);
        if (out instanceof Outcome.Stopped<ReplayPoll, String> stopped) {
            throw position.abandoned(stopped.why());
        }
    }

    /** The positions the poll moved the consumer to (at most each partition's end), updated in {@code positions}. */
    private static Map<Integer, Long> moved(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> positions,
                                            Map<TopicPartition, Long> ends) {
        Map<Integer, Long> moved = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
            TopicPartition tp = e.getKey();
            long now = Math.min(consumer.position(tp), ends.get(tp));
            if (now != e.getValue()) {
                moved.put(tp.partition(), now);
                e.setValue(now);
            }
        }
        return moved;
    }

    /** The job's stored range, or on its first start: the shadow made, a repair's keys cleared, the range taken and stored. */
    private List<PartitionProgress> startOrResume(KafkaConsumer<byte[], byte[]> consumer, EntitySpec target, ReplayKeys keys)
            throws SQLException, Abandoned {
        List<PartitionProgress> progress = new ReplayJobs(ds).progress(job.id());
        if (!progress.isEmpty()) {
            if (job.target() == ReplayTarget.SHADOW && !ShadowTables.exists(ds, target)) {
                throw new IllegalStateException("shadow table " + target.table() + " of a started job is missing (dropped by hand?); "
                        + "submit the replay again");
            }
            return progress;
        }
        if (job.target() == ReplayTarget.SHADOW) {
            ShadowTables.create(ds, target);
        }
        if (keys != null) {
            // before the range is taken: an event the sink applies before the clear is in the range
            position.inTransaction(ds, c -> {
                WriterLock.exclusiveWriter(c, target);
                int cleared = keys.clear(c, target);
                ReplayJobs.advance(c, job.id(), Map.of(), 0, cleared);
                LOG.info("replay job {}: repair of {}: {} version rows of them removed, to be rebuilt from the range", job.id(), keys, cleared);
            });
        }
        List<PartitionProgress> ranges = ranges(consumer, job);
        position.inTransaction(ds, c -> ReplayJobs.start(c, job.id(), ranges));
        LOG.info("replay job {}: range {}", job.id(), ranges);
        return ranges;
    }

    /** At the end offsets: a previewed rebuild stops READY (false); a shadow is swapped in; the job succeeds (true). */
    private boolean finish(EntitySpec target) throws SQLException, Abandoned {
        if (job.noSwap()) {
            // a previewed rebuild: the shadow is filled, the live table untouched; a user swaps or discards (ShadowPreviews)
            position.inTransaction(ds, c -> ReplayJobs.ready(c, job.id(), "shadow table " + target.table() + " filled to the end "
                    + "offsets; waiting for a swap or a discard (the live table is untouched)"));
            LOG.info("replay job {} READY: {} waits for a swap or a discard", job.id(), target.table());
            return false;
        }
        // the live shape now: columns added while the job ran are the table's too
        EntitySpec live = job.target() == ReplayTarget.SHADOW ? applier.shapes().reread(job.entity()) : null;
        position.inTransaction(ds, c -> {
            String detail = null;
            if (job.target() == ReplayTarget.SHADOW) {
                ShadowTables.Swap swap = ShadowTables.swap(c, writer, live, target, job.id());
                detail = "swapped in; the replaced table is kept as " + swap.retiredTable() + " (memory " + swap.retiredMemory()
                        + "); " + swap.merged().applied() + " events of the live memory merged at the swap";
                ReplayJobs.advance(c, job.id(), Map.of(), 0,
                        (long) swap.merged().rowsInserted() + swap.merged().rowsUpdated() + swap.merged().rowsDeleted());
            }
            ReplayJobs.finish(c, job.id(), JobState.SUCCEEDED, null, detail);
        });
        return true;
    }

    /** The job's range: start offsets from its source, end offsets (read_committed) now. */
    static List<PartitionProgress> ranges(KafkaConsumer<byte[], byte[]> consumer, ReplayJob job) {
        List<PartitionInfo> infos = consumer.partitionsFor(job.topic(), Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic " + job.topic() + " does not exist");
        }
        List<TopicPartition> all = infos.stream().map(i -> new TopicPartition(i.topic(), i.partition()))
                .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
        ReplaySource src = job.source();
        List<TopicPartition> tps = all;
        if (src.kind() == ReplaySource.Kind.OFFSETS) {
            for (int p : src.offsets().keySet()) {
                if (p >= all.size()) {
                    throw new IllegalArgumentException("from: topic " + job.topic() + " has no partition " + p + " (it has " + all.size() + ")");
                }
            }
            tps = all.stream().filter(tp -> src.offsets().containsKey(tp.partition())).toList();
        }
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(30));
        Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
        Map<TopicPartition, OffsetAndTimestamp> byTime = src.kind() != ReplaySource.Kind.INSTANT ? Map.of()
                : consumer.offsetsForTimes(tps.stream().collect(Collectors.toMap(tp -> tp, tp -> src.instant().toEpochMilli())),
                        Duration.ofSeconds(30));
        List<PartitionProgress> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            long b = begin.get(tp);
            long e = end.get(tp);
            long s = switch (src.kind()) {
                case EARLIEST -> b;
                case INSTANT -> byTime.get(tp) == null ? e : Math.min(byTime.get(tp).offset(), e);
                case OFFSETS -> {
                    long o = src.offsets().get(tp.partition());
                    if (o > e) {
                        throw new IllegalArgumentException("from: offset " + o + " of partition " + tp.partition() + " is past its end offset " + e);
                    }
                    if (o < b) {
                        LOG.warn("replay job {}: offset {} of partition {} is no longer retained; starting at {}", job.id(), o, tp.partition(), b);
                    }
                    yield Math.max(o, b);
                }
            };
            out.add(new PartitionProgress(tp.partition(), s, e, s));
        }
        return out;
    }
}
