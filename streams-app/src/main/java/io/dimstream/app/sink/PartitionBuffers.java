package io.dimstream.app.sink;

import io.dimstream.db.entity.EntitySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The batching policy of the sink, with no consumer and no SQL: which partitions it owns, what
 * each has buffered, when a partition's batch is due, how long the next poll may wait, which
 * partitions must not fetch, and the per-partition backoff of a partition whose batches fail.
 * Time comes from the clock it is given, so the policy is unit-tested without waiting.
 *
 * <p>A batch is due when it is full ({@code batchSize} records) or its first record has waited
 * {@code batchMaxWait}. A partition that is not positioned yet (its stored offset not read), is
 * full, is failing, or is stopped fetches nothing. Not thread-safe: the sink's thread owns it.
 */
final class PartitionBuffers {

    private final int batchSize;
    private final Duration batchMaxWait;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final LongSupplier clock;
    private final Map<TopicPartition, PartitionBuffer> owned = new LinkedHashMap<>();

    PartitionBuffers(int batchSize, Duration batchMaxWait, Duration backoffInitial, Duration backoffMax, LongSupplier clock) {
        this.batchSize = batchSize;
        this.batchMaxWait = batchMaxWait;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
        this.clock = clock;
    }

    int batchSize() {
        return batchSize;
    }

    long now() {
        return clock.getAsLong();
    }

    PartitionBuffer assign(TopicPartition tp, EntitySpec entity) {
        PartitionBuffer b = new PartitionBuffer(tp, entity, now());
        owned.put(tp, b);
        return b;
    }

    PartitionBuffer get(TopicPartition tp) {
        return owned.get(tp);
    }

    PartitionBuffer remove(TopicPartition tp) {
        return owned.remove(tp);
    }

    Collection<PartitionBuffer> all() {
        return owned.values();
    }

    List<PartitionBuffer> unresolved() {
        return owned.values().stream().filter(b -> !b.resolved).toList();
    }

    /** Adds what a poll returned for a partition (dropped when the partition is not positioned from PostgreSQL yet, or stopped). */
    void buffer(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
        PartitionBuffer b = owned.get(tp);
        if (b == null || !b.resolved || b.stopped != null || records.isEmpty()) {
            // not positioned yet: read again once it is
            return;
        }
        if (b.records.isEmpty()) {
            b.firstBufferedNanos = now();
        }
        b.records.addAll(records);
    }

    /** Positioned at {@code stored} (empty: the beginning): what is buffered is dropped, it will be read again. */
    void positioned(PartitionBuffer b, OptionalLong stored) {
        b.records.clear();
        b.resolved = true;
        b.committed = stored;
    }

    /**
     * True when the partition's first batch should go to PostgreSQL now.
     *
     * @param movedPastMarkers tells whether the consumer's position passed transaction markers
     *                         beyond the stored offset with nothing buffered (storing it makes the lag read 0)
     */
    boolean due(PartitionBuffer b, Predicate<PartitionBuffer> movedPastMarkers) {
        if (!b.resolved || b.stopped != null || (b.failure != null && now() < b.retryAtNanos)) {
            return false;
        }
        if (b.records.size() >= batchSize) {
            return true;
        }
        if (!b.records.isEmpty()) {
            return now() - b.firstBufferedNanos >= batchMaxWait.toNanos();
        }
        return movedPastMarkers.test(b);
    }

    /** The partitions whose batches are due, in assignment order. */
    List<PartitionBuffer> dueNow(Predicate<PartitionBuffer> movedPastMarkers) {
        List<PartitionBuffer> due = new ArrayList<>();
        for (PartitionBuffer b : owned.values()) {
            if (due(b, movedPastMarkers)) {
                due.add(b);
            }
        }
        return due;
    }

    /**
     * A batch of {@code n} records was committed with stored next offset {@code next}. What remains
     * (a backlog) starts its own batch now: it is topped up by the next poll instead of going to
     * PostgreSQL on its own, part-full, because its first record had waited while the batch before
     * it was applied.
     */
    void applied(PartitionBuffer b, int n, long next) {
        b.records.subList(0, n).clear();
        b.committed = OptionalLong.of(next);
        long now = now();
        if (!b.records.isEmpty()) {
            b.firstBufferedNanos = now;
        }
        b.lastProgressNanos = now;
        b.failure = null;
        b.failures = 0;
    }

    /** The partition's batch failed for a reason that is neither transient nor a record's: wait (doubling) and retry it alone. */
    Duration failed(PartitionBuffer b, String reason) {
        b.failure = reason;
        b.failures++;
        long ms = backoffInitial.toMillis() << Math.min(b.failures - 1, 20);
        Duration wait = Duration.ofMillis(Math.min(ms, backoffMax.toMillis()));
        b.retryAtNanos = now() + wait.toNanos();
        return wait;
    }

    /**
     * PostgreSQL holds another offset than this instance expected (another instance applied the
     * partition meanwhile, or a commit succeeded though its answer was lost): drop what is buffered,
     * expect {@code stored}, read again from there. A failure of the dropped batch is over with it.
     */
    void fenced(PartitionBuffer b, OptionalLong stored) {
        b.records.clear();
        b.committed = stored;
        b.failure = null;
        b.failures = 0;
    }

    /**
     * True when the partition must not fetch: not positioned, full, stopped, failing with records
     * held for the retry, or every partition while PostgreSQL is away.
     */
    boolean hold(PartitionBuffer b, boolean databaseFailing) {
        return !b.resolved || databaseFailing || b.stopped != null || (b.failure != null && !b.records.isEmpty())
                || b.records.size() >= batchSize;
    }

    /** Until the earliest batch deadline or partition retry, at most the batch wait; zero when a batch is full. */
    Duration pollTimeout() {
        long now = now();
        long wait = batchMaxWait.toNanos();
        for (PartitionBuffer b : owned.values()) {
            if (b.stopped != null) {
                continue;
            }
            if (b.failure != null) {
                wait = Math.min(wait, Math.max(0, b.retryAtNanos - now));
                continue;
            }
            if (b.records.size() >= batchSize && b.resolved) {
                return Duration.ZERO;
            }
            if (!b.records.isEmpty()) {
                wait = Math.min(wait, Math.max(0, b.firstBufferedNanos + batchMaxWait.toNanos() - now));
            }
        }
        return Duration.ofNanos(wait);
    }

    /** The partition's lag as the consumer knows it; a partition with nothing left counts as progressing. */
    void lag(PartitionBuffer b, long lag) {
        b.lag = lag;
        if (lag == 0 && b.records.isEmpty()) {
            b.lastProgressNanos = now();
        }
    }

    /** Records left to apply and no progress for {@code stuckAfter}: the partition is stuck. */
    boolean stuck(PartitionBuffer b, Duration stuckAfter) {
        boolean behind = b.lag > 0 || !b.records.isEmpty() || b.stopped != null || b.failure != null;
        return behind && now() - b.lastProgressNanos >= stuckAfter.toNanos();
    }
}
