package io.dimstream.app.replay;

import io.dimstream.app.kafka.KafkaClients;

import io.dimstream.app.decode.Decoded;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.sink.SinkRejects;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.sql.SqlFailures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.jobs.WriterLock;
import io.dimstream.db.write.ApplyOptions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs replay jobs ({@code dimstream.replay_jobs}) of the entities this instance serves, one at a
 * time, on a thread of its own.
 *
 * <p>A job: claim it under a lease (a QUEUED job, or a RUNNING one whose lease expired because its
 * worker died); on its first start take the range (start offsets from the job's source, end
 * offsets = the read_committed end offsets now) and store it; read the range with a
 * {@link KafkaConsumer} using {@code assign()} (no consumer group, nothing committed to Kafka),
 * decode each record with the entity's own decoder (undecodable records are counted in
 * {@code events_rejected}, not re-sent to the DLQ; a Debezium truncate with
 * {@code on-truncate: delete-all} is applied in read order, deleting every key live at its time that
 * has no event there, over the whole table), and apply each poll's events through
 * {@link Scd2Writer#apply(Connection, EntitySpec, List)} in ONE transaction with the job's
 * per-partition positions and counters, under the job row's lock. A crash therefore resumes
 * exactly at the last committed batch, and a worker that lost its lease cannot commit.
 * Cancellation is honoured between batches. A live job writes the entity table (duplicates are
 * no-ops, old events land as late events, see {@link ArrivalSeq#ofReplay}); a shadow job writes
 * {@code <table>_shadow_<job>} and, once at the end offsets, swaps it in ({@link ShadowTables#swap}), or, submitted
 * with {@code no_swap}, stops READY for a user to preview, swap or discard it ({@code ShadowPreviews}).
 * A repair (a live job restricted to keys, {@link ReplayKeys}) first clears its keys' rows and
 * memory in one transaction, then takes its range and applies the events of its keys only.
 */
public final class ReplayWorker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayWorker.class);

    private final String owner;
    private final Map<String, EntityPipeline> entities;
    private final DataSource ds;
    private final KafkaClients kafka;
    private final ReplaySettings settings;
    private final ReplayJobs jobs;
    private final Scd2Writer writer;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean releaseOnStop = new AtomicBoolean(true);
    private final ScheduledExecutorService heartbeats;
    private final List<Long> claimed = java.util.Collections.synchronizedList(new ArrayList<>());
    private Thread thread;
    /** The slice side of the running job of a {@code mode: snapshot} entity, else null (one job at a time, on the worker's thread). */
    private SnapshotReplay slices;
    private final Map<String, Counter> outcomes = new java.util.concurrent.ConcurrentHashMap<>();

    /** Counter of finished replay jobs (Prometheus {@code dimstream_replay_jobs_total}), see {@link #metrics}. */
    public static final String JOBS = "dimstream.replay.jobs";
    private static final String SUCCEEDED = "succeeded";
    private static final String FAILED = "failed";
    private static final String CANCELLED = "cancelled";

    /**
     * @param owner    this instance's name in the job leases (unique per running instance)
     * @param entities the entities this instance serves; jobs of others are left to instances that serve them
     */
    public ReplayWorker(String owner, List<EntityPipeline> entities, DataSource ds, String bootstrapServers, ReplaySettings settings) {
        this(owner, entities, ds, KafkaClients.of(bootstrapServers), settings);
    }

    public ReplayWorker(String owner, List<EntityPipeline> entities, DataSource ds, KafkaClients kafka, ReplaySettings settings) {
        this.owner = owner;
        this.entities = new LinkedHashMap<>();
        entities.forEach(p -> this.entities.put(p.entity().name(), p));
        this.ds = ds;
        this.kafka = kafka;
        this.settings = settings;
        this.jobs = new ReplayJobs(ds);
        this.writer = new Scd2Writer(ds);
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-replay-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Counts this worker's finished jobs on {@code registry}: {@value #JOBS} (counter, tags
     * {@code entity} and {@code outcome}: succeeded, failed, cancelled), registered at 0 for every
     * entity and outcome at once, so that the first failure after a start is an increase a
     * Prometheus rule sees. Call before {@link #start()}; without it the counts go nowhere.
     */
    public ReplayWorker metrics(MeterRegistry registry) {
        for (String entity : entities.keySet()) {
            for (String outcome : List.of(SUCCEEDED, FAILED, CANCELLED)) {
                outcomes.put(entity + "/" + outcome, Counter.builder(JOBS).description("replay jobs this instance finished, by outcome")
                        .tag("entity", entity).tag("outcome", outcome).register(registry));
            }
        }
        return this;
    }

    private void finished(ReplayJob job, String outcome) {
        Counter c = outcomes.get(job.entity() + "/" + outcome);
        if (c != null) {
            c.increment();
        }
    }

    public ReplayWorker start() {
        thread = new Thread(this::loop, "dimstream-replay-worker");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        while (!stopping.get()) {
            try {
                Optional<ReplayJob> job = jobs.claim(owner, entities.keySet(), settings.lease());
                if (job.isPresent()) {
                    runClaimed(job.get());
                    continue;
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("replay worker {}: cannot look for jobs (will retry): {}", owner, e.getMessage());
            }
            sleep(settings.pollInterval());
        }
    }

    /** Why a run stopped before the end of its range. */
    private static final class Abandoned extends Exception {
        Abandoned(String why) {
            super(why, null, false, false);
        }
    }

    /** The ids of the jobs this worker claimed, in order (a job resumed after a takeover appears in both workers). */
    public List<Long> claimed() {
        synchronized (claimed) {
            return List.copyOf(claimed);
        }
    }

    private void runClaimed(ReplayJob job) {
        claimed.add(job.id());
        LOG.info("replay job {} ({} from {} into {} of {}) claimed by {}", job.id(), job.topic(), job.source(), job.target().sql(),
                job.entity(), owner);
        AtomicBoolean leaseLost = new AtomicBoolean();
        long every = Math.max(100, settings.lease().toMillis() / 3);
        var beat = heartbeats.scheduleWithFixedDelay(() -> {
            try {
                if (!jobs.heartbeat(job.id(), owner, settings.lease())) {
                    leaseLost.set(true);
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("replay job {}: heartbeat failed: {}", job.id(), e.getMessage());
            }
        }, every, every, TimeUnit.MILLISECONDS);
        try {
            run(job, leaseLost);
        } catch (Abandoned a) {
            LOG.info("replay job {}: {}", job.id(), a.getMessage());
            if (stopping.get() && releaseOnStop.get()) {
                release(job);
            }
        } catch (Exception e) {
            if (!stopping.get() && SqlFailures.isTransient(e)) {
                // PostgreSQL restarting, a connection cut, a deadlock victim: nothing of the batch
                // was committed; the job is resumed from its last committed batch
                LOG.warn("replay job {}: {} (transient; it resumes from its last committed batch)", job.id(), e.toString());
                release(job);
                sleep(Duration.ofSeconds(1));
            } else if (stopping.get()) {
                // stopped mid-batch (interrupted, connections closing): not the job's fault
                LOG.info("replay job {}: stopped mid-batch ({}); it resumes from its last committed batch", job.id(), e.toString());
                if (releaseOnStop.get()) {
                    release(job);
                }
            } else {
                LOG.error("replay job {} failed", job.id(), e);
                finished(job, FAILED);
                try {
                    jobs.fail(job.id(), owner, String.valueOf(e.getMessage() == null ? e.toString() : e.getMessage()));
                } catch (SQLException | RuntimeException f) {
                    LOG.warn("replay job {}: cannot mark it failed: {}", job.id(), f.getMessage());
                }
            }
        } finally {
            beat.cancel(false);
        }
    }

    private void release(ReplayJob job) {
        try {
            jobs.release(job.id(), owner);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("replay job {}: cannot release its lease (it resumes when the lease expires): {}", job.id(), e.getMessage());
        }
    }

    private void run(ReplayJob job, AtomicBoolean leaseLost) throws Exception {
        EntityPipeline pipeline = entities.get(job.entity());
        slices = null;
        // the catalog as of the job's start: columns added while running since this instance started
        // are written by the replay too, and a shadow table is made with them
        EntitySpec live = io.dimstream.db.schema.EvolvedColumns.withCatalog(ds, pipeline.entity());
        EntitySpec target = job.target() == ReplayTarget.LIVE ? live : ShadowTables.shadowSpec(live, job.id());
        // a repair: only these keys, rebuilt from the range (null: every key)
        ReplayKeys keys = ReplayKeys.of(ds, job.id()).orElse(null);
        if (keys != null && job.target() != ReplayTarget.LIVE) {
            throw new IllegalArgumentException("a replay restricted to keys writes the live table, not a shadow");
        }
        if (keys != null && pipeline.snapshot()) {
            throw new IllegalArgumentException("entity " + job.entity() + " is a snapshot feed (mode: snapshot): a repair of some keys "
                    + "would judge its slices' deletions by absence on those keys only; replay the whole entity instead");
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<PartitionProgress> progress = jobs.progress(job.id());
            if (progress.isEmpty()) {
                if (job.target() == ReplayTarget.SHADOW) {
                    ShadowTables.create(ds, target);
                }
                if (keys != null) {
                    // before the range is taken: an event the sink applies before the clear is in the range
                    inJobTransaction(job, c -> {
                        WriterLock.exclusiveWriter(c, target);
                        int cleared = keys.clear(c, target);
                        ReplayJobs.advance(c, job.id(), Map.of(), 0, cleared);
                        LOG.info("replay job {}: repair of {}: {} version rows of them removed, to be rebuilt from the range", job.id(), keys, cleared);
                    });
                }
                progress = ranges(consumer, job);
                List<PartitionProgress> ranges = progress;
                inJobTransaction(job, c -> ReplayJobs.start(c, job.id(), ranges));
                LOG.info("replay job {}: range {}", job.id(), ranges);
            } else if (job.target() == ReplayTarget.SHADOW && !ShadowTables.exists(ds, target)) {
                throw new IllegalStateException("shadow table " + target.table() + " of a started job is missing (dropped by hand?); "
                        + "submit the replay again");
            }
            // mode: snapshot: the end-of-slice markers and the deletions by absence of the slices complete in the range
            slices = pipeline.snapshot() ? SnapshotReplay.resume(ds, job, progress, writer) : null;
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
                if (stopping.get()) {
                    throw new Abandoned("stopped by the service; it resumes from its last committed batch");
                }
                if (leaseLost.get()) {
                    throw new Abandoned("lease lost to another instance; leaving the job to it");
                }
                List<Step> steps = new ArrayList<>();
                List<SinkReject> rejects = new ArrayList<>();
                Map<Source, ConsumerRecord<byte[], byte[]>> bySource = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Long end = ends.get(tp);
                    if (end == null || r.offset() >= end) {
                        continue;
                    }
                    if (slices != null && slices.control(r, rejects)) {
                        continue;
                    }
                    addStep(pipeline, r, steps, rejects, bySource);
                }
                Map<Integer, Long> moved = new HashMap<>();
                for (Map.Entry<TopicPartition, Long> e : new ArrayList<>(positions.entrySet())) {
                    TopicPartition tp = e.getKey();
                    long now = Math.min(consumer.position(tp), ends.get(tp));
                    if (now != e.getValue()) {
                        moved.put(tp.partition(), now);
                        e.setValue(now);
                    }
                }
                if (moved.isEmpty()) {
                    if (System.nanoTime() - lastCommit > 1_000_000_000L) {
                        // nothing to read (broker unreachable?): still honour a cancel, notice a lost lease
                        inJobTransaction(job, c -> { });
                        lastCommit = System.nanoTime();
                    }
                    continue;
                }
                if (keys != null) {
                    steps = onlyKeys(steps, keys, target); // the records of other keys are read (counted), not applied
                }
                if (slices != null) {
                    slices.prepare(steps.stream().flatMap(st -> st instanceof Events ev ? ev.events().stream() : java.util.stream.Stream.empty())
                            .toList());
                }
                // a repeat dropped here shares its first copy's fate: refused with it when it is refused (below)
                Map<Source, List<Source>> repeats = new HashMap<>();
                List<Step> batch = steps.stream()
                        .map(st -> st instanceof Events ev ? new Events(withoutExactDuplicates(ev.events(), repeats)) : st).toList();
                try {
                    applyBatch(job, target, batch, moved, rejects, bySource, repeats, false);
                } catch (SQLException e) {
                    if (!SqlFailures.isData(e)) {
                        throw e;
                    }
                    // a value PostgreSQL refuses is isolated and kept, never a reason to fail the job
                    applyBatch(job, target, batch, moved, rejects, bySource, repeats, true);
                }
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
                if (!settings.pauseBetweenBatches().isZero()) {
                    sleep(settings.pauseBetweenBatches());
                }
            }
            if (job.noSwap()) {
                // a previewed rebuild: the shadow is filled, the live table untouched; a user swaps or discards (ShadowPreviews)
                inJobTransaction(job, c -> ReplayJobs.ready(c, job.id(), "shadow table " + target.table() + " filled to the end "
                        + "offsets; waiting for a swap or a discard (the live table is untouched)"));
                LOG.info("replay job {} READY: {} waits for a swap or a discard", job.id(), target.table());
                return;
            }
            inJobTransaction(job, c -> {
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
            finished(job, SUCCEEDED);
            LOG.info("replay job {} succeeded", job.id());
        }
    }

    /**
     * Drops a repeat of an event already in the batch (same op, event time and data: a producer
     * retry), keeping the first arrival, as the topology's dedup does: the writer would let the
     * later copy win, which changes no version but would stamp the later offset as the version's
     * lineage. Across batches the writer finds the copy remembered and changes nothing.
     */
    static List<Event> withoutExactDuplicates(List<Event> events) {
        return withoutExactDuplicates(events, new HashMap<>());
    }

    /**
     * As {@link #withoutExactDuplicates(List)}, noting in {@code repeats} the lineage of each dropped
     * repeat under its kept first copy's: a repeat of an event the writer refuses is a record of its
     * own, refused with the same reason (kept in the rejects and counted), not silently gone.
     */
    static List<Event> withoutExactDuplicates(List<Event> events, Map<Source, List<Source>> repeats) {
        Map<List<Object>, Event> first = new LinkedHashMap<>();
        for (Event e : events) {
            Event kept = first.putIfAbsent(java.util.Arrays.asList(e.op(), e.eventTime(), byContent(e.data())), e);
            if (kept != null && kept.source() != null && e.source() != null) {
                repeats.computeIfAbsent(kept.source(), k -> new ArrayList<>()).add(e.source());
            }
        }
        return first.size() == events.size() ? events : List.copyOf(first.values());
    }

    /** The data with bytes (a Debezium bytes column's byte[], equal by identity only) wrapped to compare by content. */
    private static Map<String, Object> byContent(Map<String, Object> data) {
        if (data.values().stream().noneMatch(v -> v instanceof byte[])) {
            return data;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        data.forEach((k, v) -> m.put(k, v instanceof byte[] b ? java.nio.ByteBuffer.wrap(b) : v));
        return m;
    }

    /** What one poll holds, in read order: runs of events, and the truncates to apply between them. */
    private sealed interface Step {
    }

    private record Events(List<Event> events) implements Step {
    }

    /**
     * A truncate of the source table ({@code on-truncate: delete-all}): every key live at
     * {@code time} with no event remembered at exactly {@code time} is deleted at it, as the live
     * sink does per changes partition, here over the whole table.
     */
    private record Truncate(Instant time, Source source, long seq, ReplayKeys only) implements Step {
    }

    /** The steps of a key-restricted job: events of its keys only; a truncate deletes among its keys only. */
    private static List<Step> onlyKeys(List<Step> steps, ReplayKeys keys, EntitySpec target) {
        List<Step> out = new ArrayList<>(steps.size());
        for (Step st : steps) {
            if (st instanceof Events ev) {
                out.add(new Events(ev.events().stream().filter(e -> keys.matches(target, e.data())).toList()));
            } else if (st instanceof Truncate t) {
                out.add(new Truncate(t.time(), t.source(), t.seq(), keys));
            }
        }
        return out;
    }

    /**
     * One batch of a job in one transaction: the events (validated here, the replay's one
     * validation, by {@link Scd2Writer#apply(Connection, EntitySpec, List, ApplyOptions)}, isolating
     * the refused ones when {@code isolate}, after PostgreSQL refused the batch) and truncates in
     * read order, the rejects, the job's progress.
     */
    private void applyBatch(ReplayJob job, EntitySpec target, List<Step> batch, Map<Integer, Long> moved, List<SinkReject> decodeRejects,
                            Map<Source, ConsumerRecord<byte[], byte[]>> bySource, Map<Source, List<Source>> repeats, boolean isolate)
            throws SQLException, Abandoned {
        boolean work = batch.stream().anyMatch(st -> !(st instanceof Events ev) || !ev.events().isEmpty())
                || (slices != null && slices.judges());
        inJobTransaction(job, c -> {
            if (job.target() == ReplayTarget.LIVE && work) {
                WriterLock.exclusiveWriter(c, target); // never beside a sink batch on the same keys
            }
            ApplyResult r = ApplyResult.empty();
            for (Step st : batch) {
                if (st instanceof Truncate t) {
                    r = r.plus(truncate(c, target, t));
                } else if (st instanceof Events ev && !ev.events().isEmpty()) {
                    r = r.plus(writer.apply(c, target, ev.events(), new ApplyOptions(isolate)));
                }
            }
            if (slices != null) {
                r = r.plus(slices.apply(c, target));
            }
            List<SinkReject> rejects = new ArrayList<>(decodeRejects);
            for (Rejection rej : r.rejected()) {
                List<Source> refused = new ArrayList<>();
                refused.add(rej.source());
                refused.addAll(repeats.getOrDefault(rej.source(), List.of()));
                for (Source src : refused) {
                    ConsumerRecord<byte[], byte[]> rec = bySource.get(src);
                    rejects.add(new SinkReject(new PartitionRef(job.topic(), rec == null ? -1 : rec.partition()),
                            rec == null ? -1 : rec.offset(), job.entity(), rej.reason(), rej.sqlState(),
                            rec == null ? null : rec.key(), rec == null ? null : rec.value()));
                }
            }
            SinkRejects.insert(c, rejectsGroup(job), rejects);
            ReplayJobs.advance(c, job.id(), moved, rejects.size(), (long) r.rowsInserted() + r.rowsUpdated() + r.rowsDeleted());
        });
    }

    /**
     * The {@code consumer_group} under which a job's rejects are kept in {@code dimstream.sink_rejects}
     * (beside the live sink's): undecodable or invalid source records, and values PostgreSQL refused.
     */
    public static String rejectsGroup(ReplayJob job) {
        return "replay-" + job.id();
    }

    /** Deletes what a replayed truncate deletes ({@link Truncate}) through the writer. */
    private ApplyResult truncate(Connection c, EntitySpec target, Truncate t) throws SQLException {
        List<Event> deletes = new ArrayList<>();
        SnapshotSlices.forEachLiveWithoutEventAt(c, target, t.time(), key -> {
            Map<String, Object> data = new LinkedHashMap<>();
            for (int i = 0; i < key.size(); i++) {
                data.put(target.key().get(i), key.get(i));
            }
            if (t.only() == null || t.only().matches(target, data)) {
                deletes.add(Event.delete(t.time(), data, t.seq(), t.source()));
            }
        });
        LOG.info("replay into {}: truncate {} at {}: {} live keys deleted", target.table(), t.source(), t.time(), deletes.size());
        if (deletes.isEmpty()) {
            return ApplyResult.empty();
        }
        ApplyResult r = writer.apply(c, target, deletes);
        if (!r.rejected().isEmpty()) {
            throw new IllegalStateException("the writer refused a delete made for truncate " + t.source() + " at " + t.time()
                    + ": " + r.rejected().get(0).reason());
        }
        return r;
    }

    /**
     * Decodes {@code r} with the entity's decoder and adds what it makes: an event to the last
     * {@link Events} step (or a new one), a {@link Truncate} step, or a reject for an undecodable record.
     */
    private void addStep(EntityPipeline pipeline, ConsumerRecord<byte[], byte[]> r, List<Step> steps, List<SinkReject> rejects,
                         Map<Source, ConsumerRecord<byte[], byte[]>> bySource) {
        Decoded d;
        try {
            d = pipeline.decoder().decode(r.key(), r.value(), r.timestamp(), r.topic(), r.partition(), r.offset());
        } catch (RuntimeException e) {
            d = Decoded.error("decoder failed: " + e);
        }
        if (d instanceof Decoded.Ok ok) {
            Event e = ok.event();
            if (steps.isEmpty() || !(steps.get(steps.size() - 1) instanceof Events)) {
                steps.add(new Events(new ArrayList<>()));
            }
            ((Events) steps.get(steps.size() - 1)).events()
                    .add(new Event(e.op(), e.eventTime(), e.data(), ArrivalSeq.ofReplay(r.offset()).value(), e.source(), e.badTimeReason()));
            bySource.put(e.source(), r);
        } else if (d instanceof Decoded.Truncated t) {
            // applied in read order: after the events read before it, before those read after it
            steps.add(new Truncate(t.time(), t.source(), ArrivalSeq.ofReplay(r.offset()).value(), null));
        } else if (d instanceof Decoded.Failed f) {
            LOG.debug("replay of {}-{}@{}: undecodable: {}", r.topic(), r.partition(), r.offset(), f.reason());
            rejects.add(new SinkReject(new PartitionRef(r.topic(), r.partition()), r.offset(), pipeline.entity().name(), f.reason(), null,
                    r.key(), r.value()));
        }
    }

    @FunctionalInterface
    private interface InTransaction {
        void run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code body} in one transaction that first locks the job row and checks this worker
     * still holds it. A cancel request ends the job instead (a shadow job's tables are dropped).
     */
    private void inJobTransaction(ReplayJob job, InTransaction body) throws SQLException, Abandoned {
        // why the job was abandoned (the transaction then already rolled back or committed), or null
        String abandoned = Transactions.inTransaction(ds, c -> {
            ReplayJobs.Lease lease = ReplayJobs.lockForBatch(c, job.id(), owner, settings.lease());
            if (lease == ReplayJobs.Lease.LOST) {
                c.rollback();
                return "lease lost to another instance; leaving the job to it";
            }
            if (lease == ReplayJobs.Lease.CANCEL_REQUESTED) {
                if (job.target() == ReplayTarget.SHADOW) {
                    ShadowTables.drop(c, ShadowTables.shadowSpec(entities.get(job.entity()).entity(), job.id()));
                }
                ReplayJobs.finish(c, job.id(), JobState.CANCELLED, null, job.target() == ReplayTarget.SHADOW
                        ? "cancelled; the shadow table was dropped, the live table is untouched" : "cancelled between two batches; "
                        + "the batches before it stay applied");
                c.commit();
                finished(job, CANCELLED);
                return "cancelled";
            }
            body.run(c);
            return null;
        });
        if (abandoned != null) {
            throw new Abandoned(abandoned);
        }
    }

    /** The job's range: start offsets from its source, end offsets (read_committed) now. */
    private static List<PartitionProgress> ranges(KafkaConsumer<byte[], byte[]> consumer, ReplayJob job) {
        List<PartitionInfo> infos = consumer.partitionsFor(job.topic(), Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic " + job.topic() + " does not exist");
        }
        List<TopicPartition> all = infos.stream().map(i -> new TopicPartition(i.topic(), i.partition()))
                .sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
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
                : consumer.offsetsForTimes(tps.stream().collect(java.util.stream.Collectors.toMap(tp -> tp, tp -> src.instant().toEpochMilli())),
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

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> p = kafka.properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // a mistyped --topic must fail the job, not create the topic
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.batchSize());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "dimstream-replay-" + owner);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.set(true);
        }
    }

    /** Stops between two batches and gives the job's lease up, so the next instance resumes it at once. */
    @Override
    public void close() {
        stopAndJoin(true);
    }

    /**
     * Stops like a crashed instance would look to the others: the lease is not given up, so the
     * job is resumed only after it expires. For fault tests.
     */
    public void halt() {
        stopAndJoin(false);
    }

    private void stopAndJoin(boolean release) {
        releaseOnStop.set(release);
        stopping.set(true);
        if (thread != null) {
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        heartbeats.shutdownNow();
    }
}
