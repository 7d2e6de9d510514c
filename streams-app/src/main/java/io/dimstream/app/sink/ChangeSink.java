package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.metrics.SinkMetrics;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.write.Scd2Writer;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming sink (DESIGN section 2): reads the changes topics of all configured entities
 * ({@code dimstream.<entity>.changes}) with one {@code read_committed} consumer and applies them
 * to the SCD2 tables in batches, each partition's batch in ONE PostgreSQL transaction together
 * with that partition's next offset in {@code dimstream.sink_offsets}.
 *
 * <p><b>Offsets live in PostgreSQL.</b> On assignment the sink seeks each partition to its stored
 * next offset (the beginning when none is stored). Every batch transaction first locks the
 * partition's offset row and checks that it still holds the offset this instance read or last
 * committed; if another instance moved it, this one lost the partition: the batch is rolled back
 * and the consumer re-seeks to the stored offset. A sink that lost its partition can therefore
 * never commit a stale batch. Offsets are also committed to Kafka after each batch, only so that
 * the usual tools show the group's lag; the sink never reads them.
 *
 * <p><b>Batches</b> close per partition at {@link SinkSettings#batchSize()} records or when the
 * first buffered record has waited {@link SinkSettings#batchMaxWait()}. The due batches of several
 * partitions of one entity are applied together: split into {@link SinkSettings#parallelism()}
 * groups, each group in one transaction on a connection of its own, the groups at once (one
 * PostgreSQL backend is the limit of a single transaction; partitions hold disjoint keys).
 *
 * <p><b>Nothing vanishes.</b> A record that is not a change record of the topic's entity, and an
 * event the writer refuses, is kept in {@code dimstream.sink_rejects} with the reason and its
 * offset, in the same transaction; the records around it are applied.
 *
 * <p><b>PostgreSQL down:</b> the transaction rolls back, nothing advances, the buffered batch is
 * kept and retried with exponential backoff while the consumer stays in its group with all
 * partitions paused; one log line when it fails, one when it is back. A broker restart is the
 * consumer's business: it reconnects and continues from its position, and the offsets in
 * PostgreSQL make a re-read harmless anyway.
 *
 * <p>One thread: {@link #run()} (or {@link #start()}) polls and applies; with parallelism above 1,
 * helper threads ({@code dimstream-sink-apply-N}) run the other groups' transactions while it waits
 * (the consumer is only ever touched by the sink's thread). {@link #close()} from any thread stops it. On close, the records already buffered are applied once if PostgreSQL
 * answers, otherwise abandoned (nothing committed: they are read again next time).
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

    /** Partitions this instance owns; touched only by the consumer thread. */
    private final Map<TopicPartition, PartitionState> owned = new LinkedHashMap<>();
    private volatile Set<TopicPartition> ownedView = Set.of();

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Throwable failure;
    /** See {@link #applyPool()}; touched only by the consumer thread. */
    private ExecutorService applyPool;

    /** What the sink knows of one partition it owns. */
    private static final class PartitionState {
        final TopicPartition tp;
        final EntitySpec entity;
        final List<ConsumerRecord<byte[], byte[]>> buffer = new ArrayList<>();
        long firstBufferedNanos;
        /** The stored offset has been read and the consumer seeked to it. */
        boolean resolved;
        /** The next offset stored in PostgreSQL as this instance knows it; empty: no row. */
        OptionalLong committed = OptionalLong.empty();
        /** The changes topic's partition count, looked up when a batch first holds a control record; 0 until then. */
        int partitionCount;

        PartitionState(TopicPartition tp, EntitySpec entity) {
            this.tp = tp;
            this.entity = entity;
        }
    }

    /**
     * @param bootstrapServers the Kafka cluster ({@code host:port,...}; for an embedded broker,
     *                         its {@code bootstrapServers()})
     * @param entities         the entities whose changes topics to read
     * @param ds               the PostgreSQL holding the entity tables (created beforehand with
     *                         {@code EntityTables.ensure}) and dimstream's schema (migrated)
     */
    public ChangeSink(SinkSettings settings, String bootstrapServers, List<EntitySpec> entities, DataSource ds, SinkMetrics metrics) {
        this(settings, KafkaClients.of(bootstrapServers), entities, ds, metrics);
    }

    /** @param kafka the cluster and the {@code kafka.client:} settings (security) every client of dimstream takes */
    public ChangeSink(SinkSettings settings, KafkaClients kafka, List<EntitySpec> entities, DataSource ds, SinkMetrics metrics) {
        if (entities.isEmpty()) {
            throw new IllegalArgumentException("entities: the sink needs at least one entity");
        }
        this.settings = settings;
        this.ds = ds;
        this.metrics = metrics;
        this.tx = new SinkTransaction(ds, new Scd2Writer(ds), settings.groupId());
        this.backoff = new DatabaseBackoff(settings.backoffInitial(), settings.backoffMax(), LOG);
        Map<String, EntitySpec> byTopic = new LinkedHashMap<>();
        for (EntitySpec e : entities) {
            if (byTopic.put(ChangeTopics.name(e.name()), e) != null) {
                throw new IllegalArgumentException("entities: '" + e.name() + "' is listed twice");
            }
        }
        this.entityByTopic = Map.copyOf(byTopic);
        Map<String, Object> p = kafka.properties();
        p.putAll(settings.consumerOverrides());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // positions always come from PostgreSQL; an out-of-range one is reported, never reset silently
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        // a poll can fill the batches of as many partitions as there are connections to apply them on
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.batchSize() * settings.parallelism());
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        this.consumerProps = Map.copyOf(p);
    }

    /**
     * The sink of a config file's entities with {@link SinkSettings#defaults()}: what
     * {@code dimstream run} starts.
     */
    public static ChangeSink create(DimstreamConfig config, String bootstrapServers, DataSource ds, MeterRegistry registry) {
        return create(config, SinkSettings.defaults(), bootstrapServers, ds, registry);
    }

    public static ChangeSink create(DimstreamConfig config, SinkSettings settings, String bootstrapServers, DataSource ds,
                                    MeterRegistry registry) {
        return create(config, settings, KafkaClients.of(bootstrapServers), ds, registry);
    }

    public static ChangeSink create(DimstreamConfig config, SinkSettings settings, KafkaClients kafka, DataSource ds,
                                    MeterRegistry registry) {
        List<EntitySpec> entities = config.entities().stream().map(EntityConfig::toEntitySpec).toList();
        return new ChangeSink(settings, kafka, entities, ds, new SinkMetrics(registry));
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

    /** The partitions this instance owns right now (a snapshot; safe from any thread). */
    public Set<TopicPartition> ownedPartitions() {
        return ownedView;
    }

    /** What stopped {@link #run()} other than {@link #close()}, if anything did. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
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
            }
            // closing the consumer revokes its partitions: Rebalance applies what is buffered once
        } catch (Exception e) {
            failure = e;
            LOG.error("sink {} stopped: {}", settings.groupId(), e.toString(), e);
        } finally {
            if (applyPool != null) {
                applyPool.shutdown();
            }
            owned.clear();
            ownedView = Set.of();
            consumer = null;
            finished.countDown();
            LOG.info("sink {} stopped", settings.groupId());
        }
    }

    private void loop(KafkaConsumer<byte[], byte[]> c) {
        while (!closing) {
            try {
                ConsumerRecords<byte[], byte[]> records = poll(c, pollTimeout());
                if (records == null) {
                    continue;
                }
                buffer(records);
                if (!records.isEmpty()) {
                    // nothing polled: nothing fetched either, so nothing to drain
                    drainFetched(c);
                }
                if (backoff.remaining().isZero() && resolvePending(c)) {
                    flushDue(c);
                }
                updatePauses(c);
                updateLag(c);
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
     * to PostgreSQL at once ({@link #flushMerged}).
     */
    private void drainFetched(KafkaConsumer<byte[], byte[]> c) {
        if (settings.parallelism() < 2) {
            return;
        }
        for (int i = 0; i < owned.size(); i++) {
            updatePauses(c);
            ConsumerRecords<byte[], byte[]> more = poll(c, Duration.ZERO);
            if (more == null || more.isEmpty()) {
                return;
            }
            buffer(more);
        }
    }

    /** One poll; null when a position was out of range (reported and handled by {@link #outOfRange}). */
    private ConsumerRecords<byte[], byte[]> poll(KafkaConsumer<byte[], byte[]> c, Duration timeout) {
        try {
            return c.poll(timeout);
        } catch (OffsetOutOfRangeException e) {
            outOfRange(c, e);
            return null;
        }
    }

    /** Until the next retry, or the earliest batch deadline, at most the batch wait. */
    private Duration pollTimeout() {
        if (backoff.failing()) {
            return backoff.remaining();
        }
        long now = System.nanoTime();
        long wait = settings.batchMaxWait().toNanos();
        for (PartitionState st : owned.values()) {
            if (st.buffer.size() >= settings.batchSize()) {
                return Duration.ZERO;
            }
            if (!st.buffer.isEmpty()) {
                wait = Math.min(wait, Math.max(0, st.firstBufferedNanos + settings.batchMaxWait().toNanos() - now));
            }
        }
        return Duration.ofNanos(wait);
    }

    private void buffer(ConsumerRecords<byte[], byte[]> records) {
        long now = System.nanoTime();
        for (TopicPartition tp : records.partitions()) {
            PartitionState st = owned.get(tp);
            if (st == null || !st.resolved) {
                // not positioned from PostgreSQL yet: read again once it is
                continue;
            }
            if (st.buffer.isEmpty()) {
                st.firstBufferedNanos = now;
            }
            st.buffer.addAll(records.records(tp));
        }
    }

    /** Reads the stored offsets of partitions not positioned yet and seeks to them; false if PostgreSQL failed. */
    private boolean resolvePending(KafkaConsumer<byte[], byte[]> c) {
        List<PartitionState> pending = owned.values().stream().filter(st -> !st.resolved).toList();
        if (pending.isEmpty()) {
            return true;
        }
        Map<TopicPartition, Long> stored;
        try (Connection conn = ds.getConnection()) {
            stored = SinkOffsets.read(conn, settings.groupId(), pending.stream().map(st -> st.tp).toList());
        } catch (SQLException | RuntimeException e) {
            backoff.failed("reading the stored offsets of " + pending.stream().map(st -> st.tp.toString())
                    .collect(Collectors.joining(", ")), e);
            return false;
        }
        backoff.succeeded();
        for (PartitionState st : pending) {
            Long next = stored.get(st.tp);
            st.buffer.clear();
            st.resolved = true;
            if (next == null) {
                st.committed = OptionalLong.empty();
                c.seekToBeginning(List.of(st.tp));
                LOG.info("{}: no offset stored for group {}, reading from the beginning", st.tp, settings.groupId());
            } else {
                st.committed = OptionalLong.of(next);
                c.seek(st.tp, next);
                LOG.info("{}: resuming at stored offset {}", st.tp, next);
            }
        }
        return true;
    }

    /** Applies every batch that is full or has waited long enough; stops at the first PostgreSQL failure. */
    private void flushDue(KafkaConsumer<byte[], byte[]> c) {
        // first, the due batches of the partitions of one entity together (flushMerged), in rounds
        // while any is due (a partition may hold more than one batch)
        while (true) {
            Map<EntitySpec, List<PartitionState>> mergeable = new java.util.LinkedHashMap<>();
            for (PartitionState st : owned.values()) {
                if (st.resolved && !st.buffer.isEmpty() && due(c, st) && firstBatch(st).stream().noneMatch(r -> SliceMarker.isControl(r.headers()))) {
                    mergeable.computeIfAbsent(st.entity, e -> new ArrayList<>()).add(st);
                }
            }
            if (mergeable.isEmpty()) {
                break;
            }
            for (List<PartitionState> group : mergeable.values()) {
                if (!(group.size() > 1 ? flushMerged(c, group) : flushOne(c, group.get(0)))) {
                    return;
                }
            }
        }
        // then batches holding an end-of-slice marker, and positions moved past transaction markers
        for (PartitionState st : List.copyOf(owned.values())) {
            while (st.resolved && due(c, st)) {
                if (!flushOne(c, st)) {
                    return;
                }
            }
        }
    }

    /**
     * Drops an applied batch from the front of the buffer. What remains (a backlog) starts its own
     * batch now: it is topped up by the next poll instead of going to PostgreSQL on its own, part-full,
     * because its first record had waited while the batch before it was applied.
     */
    private static void dropApplied(PartitionState st, int n) {
        st.buffer.subList(0, n).clear();
        if (!st.buffer.isEmpty()) {
            st.firstBufferedNanos = System.nanoTime();
        }
    }

    private boolean due(KafkaConsumer<byte[], byte[]> c, PartitionState st) {
        if (st.buffer.size() >= settings.batchSize()) {
            return true;
        }
        if (!st.buffer.isEmpty()) {
            return System.nanoTime() - st.firstBufferedNanos >= settings.batchMaxWait().toNanos();
        }
        // no records, but the position moved past transaction markers: store it, so the lag reads 0
        return c.currentLag(st.tp).isPresent() && c.position(st.tp) > st.committed.orElse(0L);
    }

    private List<ConsumerRecord<byte[], byte[]>> firstBatch(PartitionState st) {
        return st.buffer.subList(0, Math.min(settings.batchSize(), st.buffer.size()));
    }

    /**
     * Applies the first batch of each of these partitions (one entity, no control record among them):
     * in ONE transaction, or with {@link SinkSettings#parallelism()} above 1 split into that many
     * groups of partitions, each group's batches in one transaction on a connection of its own, all
     * at once. Partitions of a changes topic hold disjoint keys, so the transactions never touch the
     * same rows (the same holds between instances; see {@code WriterLock} for what does cross
     * partitions). Each transaction fences and advances its own partitions' offsets, so a group
     * that fails or is fenced leaves the others committed.
     *
     * @return false when PostgreSQL failed for any group (its batches are kept for the retry)
     */
    private boolean flushMerged(KafkaConsumer<byte[], byte[]> c, List<PartitionState> group) {
        int n = Math.min(settings.parallelism(), group.size());
        // balanced by records: the biggest batch first, each to the group with the fewest so far
        List<List<PartitionState>> parts = new ArrayList<>(n);
        int[] size = new int[n];
        for (int i = 0; i < n; i++) {
            parts.add(new ArrayList<>());
        }
        List<PartitionState> bySize = new ArrayList<>(group);
        bySize.sort(Comparator.comparingInt((PartitionState st) -> firstBatch(st).size()).reversed());
        for (PartitionState st : bySize) {
            int least = 0;
            for (int i = 1; i < n; i++) {
                if (size[i] < size[least]) {
                    least = i;
                }
            }
            parts.get(least).add(st);
            size[least] += firstBatch(st).size();
        }
        // the consumer is not thread-safe: positions and lags are read here, before the applies
        List<List<SinkTransaction.PartitionBatch>> batches = new ArrayList<>(n);
        for (List<PartitionState> part : parts) {
            batches.add(prepare(c, part));
        }
        EntitySpec entity = group.get(0).entity;
        long t0 = System.nanoTime();
        // the first group on this thread, the others on the pool; every outcome read the same way
        List<FutureTask<SinkTransaction.Outcome>> applies = new ArrayList<>(n);
        for (List<SinkTransaction.PartitionBatch> b : batches) {
            applies.add(new FutureTask<>(() -> tx.applyMerged(entity, b)));
        }
        for (FutureTask<SinkTransaction.Outcome> f : applies.subList(1, n)) {
            applyPool().execute(f);
        }
        applies.get(0).run();
        // every group is awaited (this loop reads each outcome in turn) before the sink goes on
        Exception failed = null;
        String failedWhat = null;
        for (int i = 0; i < n; i++) {
            List<PartitionState> part = parts.get(i);
            List<SinkTransaction.PartitionBatch> b = batches.get(i);
            int total = b.stream().mapToInt(x -> x.records().size()).sum();
            SinkTransaction.Outcome outcome;
            try {
                outcome = awaitApply(applies.get(i));
            } catch (Exception e) {
                if (failed == null) {
                    failed = e;
                    failedWhat = "applying " + total + " records of "
                            + part.stream().map(st -> st.tp.toString()).collect(Collectors.joining(", "));
                }
                continue;
            }
            if (outcome instanceof SinkTransaction.Committed done) {
                committedMerged(c, entity, part, b, done, total, t0);
            } else {
                SinkTransaction.FencedIn fenced = (SinkTransaction.FencedIn) outcome;
                fencedOff(c, owned.get(fenced.tp()), fenced.stored(), "the merged batch of " + total + " records");
            }
        }
        if (failed != null) {
            backoff.failed(failedWhat, failed);
            return false;
        }
        backoff.succeeded();
        return true;
    }

    private List<SinkTransaction.PartitionBatch> prepare(KafkaConsumer<byte[], byte[]> c, List<PartitionState> part) {
        List<SinkTransaction.PartitionBatch> batches = new ArrayList<>(part.size());
        for (PartitionState st : part) {
            List<ConsumerRecord<byte[], byte[]>> batch = List.copyOf(firstBatch(st));
            int n = batch.size();
            long next = n == st.buffer.size() ? c.position(st.tp) : batch.get(n - 1).offset() + 1;
            batches.add(new SinkTransaction.PartitionBatch(st.tp, st.committed, batch, next, lagAfter(c, st.tp, next)));
        }
        return batches;
    }

    private void committedMerged(KafkaConsumer<byte[], byte[]> c, EntitySpec entity, List<PartitionState> part,
                                 List<SinkTransaction.PartitionBatch> batches, SinkTransaction.Committed done, int total, long t0) {
        Map<TopicPartition, OffsetAndMetadata> kafkaOffsets = new HashMap<>();
        for (int i = 0; i < part.size(); i++) {
            PartitionState st = part.get(i);
            SinkTransaction.PartitionBatch b = batches.get(i);
            dropApplied(st, b.records().size());
            st.committed = OptionalLong.of(b.nextOffset());
            kafkaOffsets.put(st.tp, new OffsetAndMetadata(b.nextOffset()));
        }
        metrics.batchCommitted(entity.name(), total, Duration.ofNanos(System.nanoTime() - t0), done.result(), done.rejects());
        LOG.debug("{}: applied {} records in one transaction", kafkaOffsets.keySet(), total);
        c.commitAsync(kafkaOffsets, (offsets, ex) -> {
            if (ex != null) {
                LOG.debug("monitoring-only Kafka commit of {} failed: {}", offsets, ex.toString());
            }
        });
    }

    /** The threads applying all but the first group of a parallel flush; made on first use. */
    private ExecutorService applyPool() {
        if (applyPool == null) {
            AtomicInteger no = new AtomicInteger();
            applyPool = Executors.newFixedThreadPool(settings.parallelism() - 1, r -> {
                Thread t = new Thread(r, "dimstream-sink-apply-" + no.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return applyPool;
    }

    /** The group's outcome; throws what failed it. Waits through interrupts (the transaction runs on). */
    private static SinkTransaction.Outcome awaitApply(Future<SinkTransaction.Outcome> f) throws Exception {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception ex ? ex : new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Another instance applied the partition meanwhile (PostgreSQL holds {@code stored}, not what this
     * instance expected): drop what is buffered and read again from the stored offset.
     */
    private void fencedOff(KafkaConsumer<byte[], byte[]> c, PartitionState st, OptionalLong stored, String rolledBack) {
        LOG.warn("{}: fenced: PostgreSQL holds next offset {} but this instance expected {}; another instance applied "
                        + "the partition meanwhile. Rolled back {}; re-reading from the stored offset",
                st.tp, describe(stored), describe(st.committed), rolledBack);
        st.buffer.clear();
        st.committed = stored;
        if (stored.isPresent()) {
            c.seek(st.tp, stored.getAsLong());
        } else {
            c.seekToBeginning(List.of(st.tp));
        }
    }

    /**
     * Applies the partition's first batch (up to batch-size records) in one transaction.
     *
     * @return false when PostgreSQL failed (the batch is kept for the retry)
     */
    private boolean flushOne(KafkaConsumer<byte[], byte[]> c, PartitionState st) {
        int n = Math.min(settings.batchSize(), st.buffer.size());
        List<ConsumerRecord<byte[], byte[]>> batch = List.copyOf(st.buffer.subList(0, n));
        // the whole buffer: up to the consumer's position, which is past any skipped transaction markers
        long next = n == st.buffer.size() ? c.position(st.tp) : batch.get(n - 1).offset() + 1;
        long t0 = System.nanoTime();
        SinkTransaction.Outcome outcome;
        try {
            if (st.partitionCount == 0 && batch.stream().anyMatch(r -> SliceMarker.isControl(r.headers()))) {
                st.partitionCount = c.partitionsFor(st.tp.topic()).size();
            }
            outcome = tx.apply(st.tp, st.entity, st.committed, batch, next, st.partitionCount, lagAfter(c, st.tp, next));
        } catch (SQLException | RuntimeException e) {
            backoff.failed("applying " + n + " records of " + st.tp + " from offset "
                    + (batch.isEmpty() ? next : batch.get(0).offset()), e);
            return false;
        }
        backoff.succeeded();
        if (outcome instanceof SinkTransaction.Committed done) {
            dropApplied(st, n);
            st.committed = OptionalLong.of(done.nextOffset());
            if (n > 0) {
                metrics.batchCommitted(st.entity.name(), n, Duration.ofNanos(System.nanoTime() - t0), done.result(),
                        done.rejects());
            }
            LOG.debug("{}: applied {} records, next offset {}", st.tp, n, next);
            c.commitAsync(Map.of(st.tp, new OffsetAndMetadata(next)), (offsets, ex) -> {
                if (ex != null) {
                    LOG.debug("monitoring-only Kafka commit of {} failed: {}", offsets, ex.toString());
                }
            });
            return true;
        }
        fencedOff(c, st, ((SinkTransaction.Fenced) outcome).stored(), n + " records");
        return true;
    }

    /** Records left after {@code next}: the log end the consumer knows, minus next; null when it knows none. */
    private static Long lagAfter(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long next) {
        OptionalLong lag = c.currentLag(tp);
        return lag.isPresent() ? Math.max(0, c.position(tp) + lag.getAsLong() - next) : null;
    }

    private static String describe(OptionalLong offset) {
        return offset.isPresent() ? Long.toString(offset.getAsLong()) : "none";
    }

    /** Pauses what must not fetch: partitions not positioned yet, full ones, all while PostgreSQL fails. */
    private void updatePauses(KafkaConsumer<byte[], byte[]> c) {
        Set<TopicPartition> pause = new HashSet<>();
        Set<TopicPartition> resume = new HashSet<>();
        Set<TopicPartition> paused = c.paused();
        for (PartitionState st : owned.values()) {
            boolean hold = !st.resolved || backoff.failing() || st.buffer.size() >= settings.batchSize();
            if (hold && !paused.contains(st.tp)) {
                pause.add(st.tp);
            } else if (!hold && paused.contains(st.tp)) {
                resume.add(st.tp);
            }
        }
        if (!pause.isEmpty()) {
            c.pause(pause);
        }
        if (!resume.isEmpty()) {
            c.resume(resume);
        }
    }

    private void updateLag(KafkaConsumer<byte[], byte[]> c) {
        for (PartitionState st : owned.values()) {
            OptionalLong lag = st.resolved ? c.currentLag(st.tp) : OptionalLong.empty();
            if (lag.isPresent()) {
                long end = c.position(st.tp) + lag.getAsLong();
                metrics.lag(st.tp, end - st.committed.orElse(0L));
            }
        }
    }

    private void outOfRange(KafkaConsumer<byte[], byte[]> c, OffsetOutOfRangeException e) {
        for (Map.Entry<TopicPartition, Long> o : e.offsetOutOfRangePartitions().entrySet()) {
            LOG.error("{}: offset {} is outside the partition's log: records were deleted by retention before the sink "
                    + "applied them, or the topic was recreated. Continuing from the earliest offset Kafka still has; "
                    + "the missing changes must be replayed from the source topic", o.getKey(), o.getValue());
            PartitionState st = owned.get(o.getKey());
            if (st != null) {
                st.buffer.clear();
            }
            c.seekToBeginning(List.of(o.getKey()));
        }
    }

    private void publishOwned() {
        ownedView = Set.copyOf(owned.keySet());
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
                owned.put(tp, new PartitionState(tp, entity));
            }
            publishOwned();
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
                PartitionState st = owned.get(tp);
                if (st == null) {
                    continue;
                }
                // still the owner: apply what is buffered once, so the next owner need not read it again
                while (st.resolved && !st.buffer.isEmpty() && !backoff.failing() && flushOne(c, st)) {
                    LOG.debug("{}: applied buffered records before giving the partition up", tp);
                }
                if (!st.buffer.isEmpty()) {
                    LOG.info("{}: given up with {} buffered records not applied while PostgreSQL fails (nothing committed; "
                            + "the next owner reads them)", tp, st.buffer.size());
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

    private void forget(TopicPartition tp) {
        owned.remove(tp);
        metrics.forget(tp);
        publishOwned();
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
