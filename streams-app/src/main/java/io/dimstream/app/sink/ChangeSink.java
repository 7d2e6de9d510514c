package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.sql.SqlFailures;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming sink (DESIGN section 2): reads the changes topics of all configured entities
 * ({@code <application-id>.<entity>.changes}) with one {@code read_committed} consumer and applies them to
 * the SCD2 tables in batches, each batch in ONE PostgreSQL transaction together with its
 * partition's next offset in {@code dimstream.sink_offsets}. This class is the poll loop and the
 * rebalance listener; the parts it drives are each on their own:
 * {@link PartitionBuffers} (the batching policy), {@link BatchPlanner} (which batches go
 * together), {@link ApplyExecutor} (transactions at once), {@link SinkTransaction} (one
 * transaction: fence, apply, rejects, offsets).
 *
 * <p><b>Offsets live in PostgreSQL.</b> On assignment the sink seeks each partition to its stored
 * next offset (the beginning when none is stored). Every batch transaction first locks the
 * partition's offset row and checks that it still holds the offset this instance read or last
 * committed; if another instance moved it, this one lost the partition: the batch is rolled back
 * and the consumer re-seeks to the stored offset. Offsets are also committed to Kafka after each
 * batch, only so that the usual tools show the group's lag; the sink never reads them.
 *
 * <p><b>Failures</b> (what each is: {@link SqlFailures}; the sink package's notes say what the sink
 * does with each): a record that cannot be applied goes to the rejects and the rest lands;
 * PostgreSQL unavailable pauses every partition with backoff; any other failure holds back only its
 * partition ({@code stuck-after}); a stored offset no longer in the log is {@link OutOfRangePolicy}'s;
 * whatever ends the thread is in {@link #failure()} and {@link #status()}.
 *
 * <p>One thread: {@link #run()} (or {@link #start()}) polls and applies; the consumer is only ever
 * touched by it. {@link #close()} from any thread stops it; the records already buffered are
 * applied once if PostgreSQL answers, otherwise abandoned (nothing committed: read again next time).
 */
public final class ChangeSink implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeSink.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final SinkSettings settings;
    private final Map<String, Object> consumerProps;
    private final Map<String, EntitySpec> entityByTopic;
    private final DataSource ds;
    private final SinkTransaction tx;
    private final SinkMetrics metrics;
    private final DatabaseBackoff backoff;
    private final PartitionBuffers buffers;
    private final ApplyExecutor executor;
    private final OutOfRangePolicy outOfRange;
    private final SinkProgress progress;

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Throwable failure;
    private volatile SinkStatus status = SinkStatus.starting();
    private volatile Set<TopicPartition> ownedView = Set.of();

    /**
     * @param kafka  the cluster and the {@code kafka.client:} settings (security) every client of dimstream takes
     * @param shapes the entities whose changes topics to read, as they are now (config plus catalog)
     * @param ds     the PostgreSQL holding the entity tables (created beforehand with
     *               {@code EntityTables.ensure}) and dimstream's schema (migrated)
     */
    public ChangeSink(SinkSettings settings, KafkaClients kafka, EntityShapes shapes, DataSource ds, SinkMetrics metrics) {
        if (shapes.entities().isEmpty()) {
            throw new IllegalArgumentException("entities: the sink needs at least one entity");
        }
        this.settings = settings;
        this.ds = ds;
        this.metrics = metrics;
        this.tx = new SinkTransaction(new BatchApplier(ds, new Scd2Writer(ds), shapes), settings.groupId());
        this.backoff = new DatabaseBackoff(settings.backoffInitial(), settings.backoffMax(), LOG);
        this.buffers = new PartitionBuffers(settings.batchSize(), settings.batchMaxWait(), settings.backoffInitial(),
                settings.backoffMax(), System::nanoTime);
        this.executor = new ApplyExecutor(settings.parallelism());
        this.outOfRange = new OutOfRangePolicy(settings, ds, metrics, backoff, buffers);
        this.progress = new SinkProgress(settings, buffers, metrics);
        Map<String, EntitySpec> byTopic = new LinkedHashMap<>();
        for (String name : shapes.entities()) {
            byTopic.put(ChangeTopics.name(settings.applicationId(), name), shapes.configured(name));
        }
        this.entityByTopic = Map.copyOf(byTopic);
        this.consumerProps = settings.consumerProperties(kafka.properties());
        metrics.bindStatus(this::status);
    }

    /**
     * A sink of {@code entities} (their columns added while running tracked) on a cluster without
     * client security settings.
     */
    public ChangeSink(SinkSettings settings, String bootstrapServers, List<EntitySpec> entities, DataSource ds, SinkMetrics metrics) {
        this(settings, KafkaClients.of(bootstrapServers), new EntityShapes(ds, entities, Set.of()), ds, metrics);
    }

    /** Runs {@link #run()} on a new thread named {@code dimstream-sink}; returns this. */
    public ChangeSink start() {
        Thread t = new Thread(this, "dimstream-sink");
        t.start();
        return this;
    }

    /** The changes topics this sink reads. */
    public Set<String> topics() {
        return entityByTopic.keySet();
    }

    /** The consumer group (and key of the offsets in PostgreSQL). */
    public String groupId() {
        return settings.groupId();
    }

    /** The partitions this instance owns right now (a snapshot; safe from any thread). */
    public Set<TopicPartition> ownedPartitions() {
        return ownedView;
    }

    /** What stopped {@link #run()} other than {@link #close()}, if anything did. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** The sink's state as of its last loop; safe from any thread. */
    public SinkStatus status() {
        return status;
    }

    @Override
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("a ChangeSink runs once");
        }
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer = c;
            try (AutoCloseable clientMetrics = metrics.bindKafkaClient(c)) {
                if (!closing) {
                    LOG.info("sink {} reading {}", settings.groupId(), entityByTopic.keySet());
                    c.subscribe(entityByTopic.keySet(), new Rebalance(c));
                    loop(c);
                }
                // a clean stop leaves the group, static member or not: the other instances take the
                // partitions at once instead of leaving them idle until this one is back
                c.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30)));
            }
            // closing the consumer revokes its partitions: Rebalance applies what is buffered once
        } catch (Throwable e) {
            // anything that ends the loop but close(): an Error, a Kafka authorization or fatal client
            // failure. The thread ends; health reports the sink down so the process is restarted.
            failure = e;
            LOG.error("sink {} stopped: {}", settings.groupId(), e.toString(), e);
        } finally {
            executor.close();
            for (PartitionBuffer b : List.copyOf(buffers.all())) {
                forget(b.tp);
            }
            consumer = null;
            publish(failure == null ? SinkStatus.State.STOPPED : SinkStatus.State.FAILED);
            finished.countDown();
            LOG.info("sink {} stopped", settings.groupId());
        }
    }

    private void loop(KafkaConsumer<byte[], byte[]> c) {
        while (!closing) {
            try {
                ConsumerRecords<byte[], byte[]> records = poll(c, backoff.failing() ? backoff.remaining() : buffers.pollTimeout());
                buffer(records);
                if (!records.isEmpty()) {
                    // nothing polled: nothing fetched either, so nothing to drain
                    drainFetched(c);
                }
                if (backoff.remaining().isZero() && resolvePending(c)) {
                    flushDue(c);
                }
                updatePauses(c);
                progress.updateLag(c);
                publish(SinkStatus.State.RUNNING);
            } catch (WakeupException e) {
                if (!closing) {
                    throw e;
                }
            }
        }
    }

    /**
     * With parallelism above 1: takes what the consumer has fetched already for the partitions
     * whose batch is not full yet, before applying. A poll returns up to max.poll.records of one
     * partition's fetched data first, so with a backlog each poll would fill one partition's batch
     * and the others would wait for the next poll: one transaction at a time. Polling on (without
     * waiting; full partitions are paused) fills the batches of several partitions, which then go
     * to PostgreSQL at once.
     */
    private void drainFetched(KafkaConsumer<byte[], byte[]> c) {
        if (settings.parallelism() < 2) {
            return;
        }
        for (int i = 0; i < buffers.all().size(); i++) {
            updatePauses(c);
            ConsumerRecords<byte[], byte[]> more = poll(c, Duration.ZERO);
            if (more.isEmpty()) {
                return;
            }
            buffer(more);
        }
    }

    /** One poll; an out-of-range position is handled ({@link OutOfRangePolicy}) and gives no records. */
    private ConsumerRecords<byte[], byte[]> poll(KafkaConsumer<byte[], byte[]> c, Duration timeout) {
        try {
            return c.poll(timeout);
        } catch (OffsetOutOfRangeException e) {
            outOfRange.handle(c, e, this::fencedOff);
            return ConsumerRecords.empty();
        }
    }

    private void buffer(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            buffers.buffer(tp, records.records(tp));
        }
    }

    /** Reads the stored offsets of partitions not positioned yet and seeks to them; false if PostgreSQL failed. */
    private boolean resolvePending(KafkaConsumer<byte[], byte[]> c) {
        List<PartitionBuffer> pending = buffers.unresolved();
        if (pending.isEmpty()) {
            return true;
        }
        Map<PartitionRef, Long> stored;
        try (Connection conn = ds.getConnection()) {
            stored = SinkOffsets.read(conn, settings.groupId(), pending.stream().map(b -> ref(b.tp)).toList());
        } catch (SQLException | RuntimeException e) {
            backoff.failed("reading the stored offsets of " + pending.stream().map(b -> b.tp.toString())
                    .collect(Collectors.joining(", ")), e);
            return false;
        }
        backoff.succeeded();
        for (PartitionBuffer b : pending) {
            Long next = stored.get(ref(b.tp));
            if (next == null) {
                buffers.positioned(b, OptionalLong.empty());
                c.seekToBeginning(List.of(b.tp));
                LOG.info("{}: no offset stored for group {}, reading from the beginning", b.tp, settings.groupId());
            } else {
                buffers.positioned(b, OptionalLong.of(next));
                c.seek(b.tp, next);
                LOG.info("{}: resuming at stored offset {}", b.tp, next);
            }
        }
        return true;
    }

    /** Applies every batch that is due, in waves; stops at the first transient PostgreSQL failure. */
    private void flushDue(KafkaConsumer<byte[], byte[]> c) {
        Set<PartitionBuffer> failedNow = new HashSet<>();
        while (true) {
            List<PartitionBuffer> due = new ArrayList<>(buffers.dueNow(b -> movedPastMarkers(c, b)));
            due.removeAll(failedNow);
            if (due.isEmpty()) {
                return;
            }
            for (List<List<PartitionBuffer>> wave : BatchPlanner.plan(due, settings.batchSize(), settings.parallelism())) {
                if (!applyWave(c, wave, failedNow)) {
                    return;
                }
            }
        }
    }

    /** No records, but the position moved past transaction markers: store it, so the lag reads 0. */
    private static boolean movedPastMarkers(KafkaConsumer<byte[], byte[]> c, PartitionBuffer b) {
        return c.currentLag(b.tp).isPresent() && c.position(b.tp) > b.committed.orElse(0L);
    }

    /**
     * Applies the groups of one wave at once, each in its own transaction, and settles each outcome.
     *
     * @return false when PostgreSQL was unavailable for any group (the batches stay buffered for the retry)
     */
    private boolean applyWave(KafkaConsumer<byte[], byte[]> c, List<List<PartitionBuffer>> wave, Set<PartitionBuffer> failedNow) {
        // the consumer is not thread-safe: positions and lags are read here, before the applies
        List<List<SinkTransaction.PartitionBatch>> batches = new ArrayList<>(wave.size());
        List<Callable<SinkTransaction.GroupOutcome>> tasks = new ArrayList<>(wave.size());
        for (List<PartitionBuffer> group : wave) {
            List<SinkTransaction.PartitionBatch> b = progress.batches(c, group);
            EntitySpec entity = group.get(0).entity;
            batches.add(b);
            tasks.add(() -> tx.apply(entity, b));
        }
        long t0 = System.nanoTime();
        status = status.applying(SinkProgress.describe(batches), Instant.now());
        List<ApplyExecutor.Done<SinkTransaction.GroupOutcome>> done = executor.runAll(tasks);
        Throwable unavailable = null;
        String unavailableWhat = null;
        for (int i = 0; i < wave.size(); i++) {
            List<PartitionBuffer> group = wave.get(i);
            List<SinkTransaction.PartitionBatch> b = batches.get(i);
            ApplyExecutor.Done<SinkTransaction.GroupOutcome> d = done.get(i);
            if (d.ok()) {
                settle(c, group, b, d.outcome(), t0);
                continue;
            }
            if (d.failure() instanceof Error err) {
                throw err;
            }
            String what = "applying " + b.stream().mapToInt(x -> x.records().size()).sum() + " records of "
                    + group.stream().map(g -> g.tp.toString()).collect(Collectors.joining(", "));
            // a lock held on one entity's table is that group's to wait out, not every partition's (SinkPosition)
            if (SqlFailures.isTransient(d.failure()) && !SqlFailures.isLockTimeout(d.failure())) {
                if (unavailable == null) {
                    unavailable = d.failure();
                    unavailableWhat = what;
                }
            } else {
                for (PartitionBuffer g : group) {
                    progress.partitionFailed(g, what, d.failure());
                    failedNow.add(g);
                }
            }
        }
        if (unavailable != null) {
            backoff.failed(unavailableWhat, unavailable instanceof Exception e ? e : new IllegalStateException(unavailable));
            return false;
        }
        backoff.succeeded();
        return true;
    }

    private void settle(KafkaConsumer<byte[], byte[]> c, List<PartitionBuffer> group, List<SinkTransaction.PartitionBatch> batches,
                        SinkTransaction.GroupOutcome outcome, long t0) {
        if (outcome instanceof SinkTransaction.Fenced fenced) {
            int total = batches.stream().mapToInt(x -> x.records().size()).sum();
            fencedOff(c, buffers.get(fenced.tp()), fenced.stored(), total + " records");
            return;
        }
        progress.committed(c, group, batches, (SinkTransaction.Committed) outcome, t0);
    }

    private void fencedOff(KafkaConsumer<byte[], byte[]> c, PartitionBuffer b, OptionalLong stored, String rolledBack) {
        progress.fencedOff(c, b, stored, rolledBack);
    }

    /** Pauses what must not fetch ({@link PartitionBuffers#hold}), resumes the rest. */
    private void updatePauses(KafkaConsumer<byte[], byte[]> c) {
        Set<TopicPartition> pause = new HashSet<>();
        Set<TopicPartition> resume = new HashSet<>();
        Set<TopicPartition> paused = c.paused();
        for (PartitionBuffer b : buffers.all()) {
            boolean hold = buffers.hold(b, backoff.failing());
            if (hold && !paused.contains(b.tp)) {
                pause.add(b.tp);
            } else if (!hold && paused.contains(b.tp)) {
                resume.add(b.tp);
            }
        }
        if (!pause.isEmpty()) {
            c.pause(pause);
        }
        if (!resume.isEmpty()) {
            c.resume(resume);
        }
    }

    private void publish(SinkStatus.State state) {
        status = progress.status(state, failure, backoff);
    }

    private static PartitionRef ref(TopicPartition tp) {
        return new PartitionRef(tp.topic(), tp.partition());
    }

    private void forget(TopicPartition tp) {
        buffers.remove(tp);
        metrics.forget(tp);
        ownedView = Set.copyOf(buffers.all().stream().map(b -> b.tp).toList());
    }

    /** Runs inside {@code poll} (and {@code close}) on the sink's thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> c;

        Rebalance(KafkaConsumer<byte[], byte[]> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                EntitySpec entity = entityByTopic.get(tp.topic());
                if (entity == null) {
                    throw new IllegalStateException("assigned " + tp + ", which is no changes topic of this sink");
                }
                buffers.assign(tp, entity);
            }
            ownedView = Set.copyOf(buffers.all().stream().map(b -> b.tp).toList());
            LOG.info("assigned {}", partitions);
            if (!partitions.isEmpty() && !(backoff.remaining().isZero() && resolvePending(c))) {
                // PostgreSQL did not answer: give the consumer some position, fetch nothing, seek once it answers
                c.seekToBeginning(partitions);
                c.pause(partitions);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                PartitionBuffer b = buffers.get(tp);
                if (b == null) {
                    continue;
                }
                // still the owner: apply what is buffered once, so the next owner need not read it again
                Set<PartitionBuffer> failedNow = new HashSet<>();
                while (b.resolved && !b.records.isEmpty() && !backoff.failing() && b.failure == null && b.stopped == null
                        && buffers.get(tp) == b && applyWave(c, List.of(List.of(b)), failedNow)) {
                    LOG.debug("{}: applied buffered records before giving the partition up", tp);
                }
                if (!b.records.isEmpty()) {
                    LOG.info("{}: given up with {} buffered records not applied (nothing committed; the next owner reads them)",
                            tp, b.records.size());
                }
                forget(tp);
            }
            LOG.info("revoked {}", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitions.forEach(ChangeSink.this::forget);
            LOG.warn("lost {} (buffered records abandoned; the fence keeps this instance from committing them)", partitions);
        }
    }

    /**
     * Stops the sink: wakes the consumer, lets {@link #run()} apply or abandon what is buffered
     * and close the consumer, and waits for it (up to a minute).
     */
    @Override
    public void close() {
        closing = true;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (!started.get()) {
            return;
        }
        try {
            if (!finished.await(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("sink {} did not stop within {}", settings.groupId(), CLOSE_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
