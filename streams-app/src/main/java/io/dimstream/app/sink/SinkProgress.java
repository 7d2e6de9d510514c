package io.dimstream.app.sink;

import io.dimstream.db.sql.SqlFailures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sink's poll loop makes of its partitions' progress: the batches a group takes, a
 * committed group settled (buffers, metrics, the monitoring-only Kafka commit), a failing partition
 * reported, the lag, and the status other threads read. On the sink's thread only, beside
 * {@link PartitionBuffers}, whose state it moves.
 */
final class SinkProgress {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeSink.class);

    private final SinkSettings settings;
    private final PartitionBuffers buffers;
    private final SinkMetrics metrics;

    SinkProgress(SinkSettings settings, PartitionBuffers buffers, SinkMetrics metrics) {
        this.settings = settings;
        this.buffers = buffers;
        this.metrics = metrics;
    }

    /** The first batch of each partition of a group, as the sink's transaction takes them (read from the consumer, on the sink's thread). */
    List<SinkTransaction.PartitionBatch> batches(KafkaConsumer<byte[], byte[]> c, List<PartitionBuffer> group) {
        List<SinkTransaction.PartitionBatch> out = new ArrayList<>(group.size());
        for (PartitionBuffer b : group) {
            List<ConsumerRecord<byte[], byte[]>> batch = List.copyOf(b.firstBatch(settings.batchSize()));
            int n = batch.size();
            // the whole buffer: up to the consumer's position, which is past any skipped transaction markers
            long next = n == b.records.size() ? c.position(b.tp) : batch.get(n - 1).offset() + 1;
            if (b.partitionCount == 0 && b.hasControlRecord(settings.batchSize())) {
                b.partitionCount = c.partitionsFor(b.tp.topic()).size();
            }
            out.add(new SinkTransaction.PartitionBatch(b.tp, b.committed, batch, next, lagAfter(c, b.tp, next), b.partitionCount));
        }
        return out;
    }

    /** What a wave of groups applies, for the status: "500 records of t-0, t-1; 20 records of u-3". */
    static String describe(List<List<SinkTransaction.PartitionBatch>> wave) {
        return wave.stream().map(g -> g.stream().mapToInt(b -> b.records().size()).sum() + " records of "
                + g.stream().map(b -> b.tp().toString()).collect(Collectors.joining(", "))).collect(Collectors.joining("; "));
    }

    /** A group's transaction committed: its batches leave the buffers, its figures go to the metrics, Kafka is told (for its lag tools only). */
    void committed(KafkaConsumer<byte[], byte[]> c, List<PartitionBuffer> group, List<SinkTransaction.PartitionBatch> batches,
                   SinkTransaction.Committed done, long t0) {
        Map<TopicPartition, OffsetAndMetadata> kafkaOffsets = new HashMap<>();
        int total = 0;
        for (int i = 0; i < group.size(); i++) {
            PartitionBuffer b = group.get(i);
            SinkTransaction.PartitionBatch batch = batches.get(i);
            if (b.failure != null) {
                LOG.warn("{}: applied again after {} failed attempts", b.tp, b.failures);
            }
            buffers.applied(b, batch.records().size(), batch.nextOffset());
            kafkaOffsets.put(b.tp, new OffsetAndMetadata(batch.nextOffset()));
            total += batch.records().size();
        }
        if (total > 0) {
            metrics.batchCommitted(group.get(0).entity.name(), total, Duration.ofNanos(System.nanoTime() - t0), done.result(),
                    done.rejects());
            metrics.classDisagreements(group.get(0).entity.name(), done.disagreements());
            metrics.recordsValidated(group.get(0).entity.name(), done.validated());
        }
        LOG.debug("{}: applied {} records in one transaction", kafkaOffsets.keySet(), total);
        c.commitAsync(kafkaOffsets, (offsets, ex) -> {
            if (ex != null) {
                LOG.debug("monitoring-only Kafka commit of {} failed: {}", offsets, ex.toString());
            }
        });
    }

    /** A failure neither transient nor a record's: this partition waits and retries alone, the others go on. */
    void partitionFailed(PartitionBuffer b, String what, Throwable e) {
        String state = SqlFailures.sqlState(e).map(s -> " (SQL state " + s + ")").orElse("");
        String reason = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
        String previous = b.failure;
        Duration wait = buffers.failed(b, reason + state);
        metrics.partitionFailure(b.entity.name(), SqlFailures.classify(e).name().toLowerCase(Locale.ROOT));
        if (SqlFailures.isLockTimeout(e) && (previous == null || !previous.equals(b.failure))) {
            LOG.warn("{}: {} waited more than {} for a lock another transaction holds on the table (a replay's or a load's "
                    + "writer lock, LOCK TABLE, ALTER TABLE, VACUUM FULL, an open transaction on its rows); the partition "
                    + "retries in {}, the others go on", b.tp, what, SinkPosition.LOCK_WAIT, wait);
        } else if (previous == null || !previous.equals(b.failure)) {
            LOG.error("{}: {} failed: {}{}; the partition waits and retries (next in {}), the others go on. Nothing is skipped: "
                    + "fix the cause (the table, its permissions) and it resumes by itself", b.tp, what, reason, state, wait, e);
        } else {
            LOG.debug("{}: {} failed again ({} attempts)", b.tp, what, b.failures);
        }
    }

    /** Records left after {@code next}: the log end the consumer knows, minus next; null when it knows none. */
    private static Long lagAfter(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long next) {
        OptionalLong lag = c.currentLag(tp);
        return lag.isPresent() ? Math.max(0, c.position(tp) + lag.getAsLong() - next) : null;
    }

    /** The partitions' lag as the consumer knows it, for the status and the metrics. */
    void updateLag(KafkaConsumer<byte[], byte[]> c) {
        for (PartitionBuffer b : buffers.all()) {
            OptionalLong lag = b.resolved && b.stopped == null ? c.currentLag(b.tp) : OptionalLong.empty();
            if (lag.isPresent()) {
                long behind = c.position(b.tp) + lag.getAsLong() - b.committed.orElse(0L);
                buffers.lag(b, behind);
                metrics.lag(b.tp, behind);
            }
        }
    }

    /**
     * PostgreSQL holds {@code stored}, not what this instance expected: another instance applied the
     * partition meanwhile, or PostgreSQL lost commits ({@link StoredOffsetMoved}: logged and counted
     * as such). Either way: drop what is buffered and read again from the stored offset.
     */
    void fencedOff(KafkaConsumer<byte[], byte[]> c, PartitionBuffer b, OptionalLong stored, String rolledBack) {
        StoredOffsetMoved moved = new StoredOffsetMoved(b.tp, b.committed, stored);
        LOG.warn("{}", moved.message(rolledBack));
        if (moved.regressed()) {
            metrics.offsetsRegressed(b.entity.name());
        }
        buffers.fenced(b, stored);
        if (stored.isPresent()) {
            c.seek(b.tp, stored.getAsLong());
        } else {
            c.seekToBeginning(List.of(b.tp));
        }
    }

    /** The sink's state for other threads: its partitions as the buffers hold them. */
    SinkStatus status(SinkStatus.State state, Throwable failure, DatabaseBackoff backoff) {
        List<SinkStatus.Partition> parts = new ArrayList<>();
        long now = buffers.now();
        for (PartitionBuffer b : buffers.all()) {
            parts.add(new SinkStatus.Partition(b.tp.topic(), b.tp.partition(), b.entity.name(), b.committed.orElse(-1L), b.lag,
                    b.records.size(), Optional.ofNullable(b.failure), Optional.ofNullable(b.stopped),
                    Duration.ofNanos(Math.max(0, now - b.lastProgressNanos)), buffers.stuck(b, settings.stuckAfter())));
        }
        return new SinkStatus(state, Optional.ofNullable(failure).map(Throwable::toString),
                backoff.failing() ? Optional.of(backoff.lastFailure()) : Optional.empty(), parts);
    }
}
