package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.snapshot.SnapshotSlices;
import java.time.Instant;
import java.util.LinkedHashMap;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.status.SinkBatch;
import io.dimstream.db.status.SinkBatches;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies one batch of one changes-topic partition in ONE PostgreSQL transaction: lock the
 * partition's offset row, check it still holds the offset this instance expects (the fence),
 * decode the records, apply the events with {@link Scd2Writer#apply(Connection, EntitySpec, List)},
 * keep what could not be applied in {@code dimstream.sink_rejects}, advance the offset, record the
 * batch's figures in {@code dimstream.sink_batches} (for the admin dashboard), commit.
 * An end-of-slice marker of a snapshot feed splits the batch: the events before it are applied,
 * then the slice's absent keys are deleted ({@link #endOfSlice}), then the events after it, all in
 * the same transaction.
 * Any failure rolls everything back and rethrows: nothing of the batch is committed.
 */
final class SinkTransaction {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SinkTransaction.class);

    private final DataSource ds;
    private final Scd2Writer writer;
    private final String group;

    SinkTransaction(DataSource ds, Scd2Writer writer, String group) {
        this.ds = ds;
        this.writer = writer;
        this.group = group;
    }

    /** What a batch transaction did. */
    sealed interface Outcome {
    }

    /** Committed: the partition's stored next offset is now {@code nextOffset}. */
    record Committed(ApplyResult result, int rejects, long nextOffset) implements Outcome {
    }

    /**
     * Rolled back, nothing written: the stored offset was not the one expected, so another
     * instance owns (or owned) the partition. {@code stored} is what PostgreSQL holds now.
     */
    record Fenced(OptionalLong stored) implements Outcome {
    }

    /**
     * Rolled back, nothing written: partition {@code tp} of a merged batch was fenced (see
     * {@link Fenced}); the other partitions' batches were not applied either and stay buffered.
     */
    record FencedIn(TopicPartition tp, OptionalLong stored) implements Outcome {
    }

    /** One partition's part of a merged batch ({@link #applyMerged}). */
    record PartitionBatch(TopicPartition tp, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records, long nextOffset,
                          Long lagAfter) {
    }

    /** The body of one batch transaction; it commits or rolls back itself, and any exception rolls back. */
    @FunctionalInterface
    private interface Body {
        Outcome run(Connection c) throws SQLException;
    }

    /** Runs a batch on a connection of its own with autocommit off; rolls back and rethrows on failure. */
    private Outcome inTransaction(Body body) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                return body.run(c);
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException r) {
                    e.addSuppressed(r);
                }
                throw e;
            }
        }
    }

    /** A record set aside, with the reason. */
    private record Reject(ConsumerRecord<byte[], byte[]> record, String reason) {
    }

    /**
     * @param expected   the next offset this instance last read or committed for the partition
     *                   (empty: it found no row)
     * @param records    the batch, in offset order, all of {@code tp}
     * @param nextOffset the partition's next offset once the batch is applied (past the last
     *                   record, and past any transaction markers the consumer skipped after it)
     */
    Outcome apply(TopicPartition tp, EntitySpec entity, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records,
                  long nextOffset) throws SQLException {
        return apply(tp, entity, expected, records, nextOffset, 0);
    }

    /**
     * @param partitions how many partitions the changes topic has (needed only when the batch holds
     *                   an end-of-slice marker; 0 when unknown, which rejects such a marker)
     */
    Outcome apply(TopicPartition tp, EntitySpec entity, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records,
                  long nextOffset, int partitions) throws SQLException {
        return apply(tp, entity, expected, records, nextOffset, partitions, null);
    }

    /**
     * As above, and records the batch's figures in {@code dimstream.sink_batches} (for the admin
     * dashboard) in the same transaction.
     *
     * @param lagAfter records left in the partition after this batch, null when unknown
     */
    Outcome apply(TopicPartition tp, EntitySpec entity, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records,
                  long nextOffset, int partitions, Long lagAfter) throws SQLException {
        long t0 = System.nanoTime();
        return inTransaction(c -> {
            OptionalLong stored = SinkOffsets.lock(c, group, tp);
            if (!stored.equals(expected)) {
                c.rollback();
                return new Fenced(stored);
            }
            List<Reject> rejects = new ArrayList<>();
            List<ConsumerRecord<byte[], byte[]>> segment = new ArrayList<>(records.size());
            ApplyResult result = ApplyResult.empty();
            // events up to a marker, then the marker (in the same transaction), then the next events
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (!SliceMarker.isControl(r.headers())) {
                    segment.add(r);
                    continue;
                }
                SliceMarker marker = decodeMarker(tp, entity, r, partitions, rejects);
                if (marker != null) {
                    result = result.plus(applyEvents(c, tp, entity, segment, rejects));
                    segment.clear();
                    result = result.plus(endOfSlice(c, tp, entity, marker, r.offset(), partitions));
                }
            }
            result = result.plus(applyEvents(c, tp, entity, segment, rejects));
            insertRejects(c, entity, rejects);
            if (!SinkOffsets.advance(c, group, tp, expected, nextOffset)) {
                c.rollback();
                return new Fenced(SinkOffsets.lock(c, group, tp));
            }
            if (!records.isEmpty()) {
                // the dashboard's figures, committed (or rolled back) with the batch itself
                SinkBatches.record(c, new SinkBatch(group, entity.name(), tp.topic(), tp.partition(), records.get(0).offset(),
                        nextOffset, records.size(), result, rejects.size(), (System.nanoTime() - t0) / 1_000_000, lagAfter));
            }
            c.commit();
            return new Committed(result, rejects.size(), nextOffset);
        });
    }

    /**
     * The due batches of several partitions of one entity's changes topic in ONE transaction: one
     * writer call for all their events (a key lives on one partition, so their keys are disjoint)
     * and every partition's offset fenced and advanced beside it. The writer's cost per call is
     * mostly fixed (temp tables, a dozen statements, the commit), so with N partitions due at once
     * this costs about one partition's batch instead of N: the sink keeps up with more partitions
     * at lower latency. No batch may hold a control record (end-of-slice markers go one partition
     * at a time, {@link #apply}).
     *
     * @return {@link Committed} (its {@code nextOffset} is the first batch's; each batch's own is in
     *         the batch), or {@link FencedIn} naming the first fenced partition
     */
    Outcome applyMerged(EntitySpec entity, List<PartitionBatch> batches) throws SQLException {
        long t0 = System.nanoTime();
        // lock the offset rows in partition order, so two instances never wait on each other in a cycle
        List<PartitionBatch> ordered = batches.stream()
                .sorted(java.util.Comparator.comparing((PartitionBatch b) -> b.tp().topic()).thenComparingInt(b -> b.tp().partition()))
                .toList();
        return inTransaction(c -> {
            for (PartitionBatch b : ordered) {
                OptionalLong stored = SinkOffsets.lock(c, group, b.tp());
                if (!stored.equals(b.expected())) {
                    c.rollback();
                    return new FencedIn(b.tp(), stored);
                }
            }
            List<Reject> rejects = new ArrayList<>();
            List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
            for (PartitionBatch b : ordered) {
                if (b.records().stream().anyMatch(r -> SliceMarker.isControl(r.headers()))) {
                    throw new IllegalArgumentException(b.tp() + ": a merged batch cannot hold a control record");
                }
                all.addAll(b.records());
            }
            ApplyResult result = applyEvents(c, null, entity, all, rejects);
            insertRejects(c, entity, rejects);
            for (PartitionBatch b : ordered) {
                if (!SinkOffsets.advance(c, group, b.tp(), b.expected(), b.nextOffset())) {
                    c.rollback();
                    return new FencedIn(b.tp(), SinkOffsets.lock(c, group, b.tp()));
                }
            }
            long millis = (System.nanoTime() - t0) / 1_000_000;
            boolean first = true;
            for (PartitionBatch b : ordered) {
                if (b.records().isEmpty()) {
                    continue;
                }
                int partitionRejects = (int) rejects.stream().filter(r -> r.record().partition() == b.tp().partition()).count();
                // one writer call served every partition: its class counts go on the first partition's
                // row, so the dashboard's sums over rows stay exact; events, rejects and lag are each row's own
                SinkBatches.record(c, new SinkBatch(group, entity.name(), b.tp().topic(), b.tp().partition(),
                        b.records().get(0).offset(), b.nextOffset(), b.records().size(), first ? result : ApplyResult.empty(),
                        partitionRejects, millis, b.lagAfter()));
                first = false;
            }
            c.commit();
            return new Committed(result, rejects.size(), ordered.get(0).nextOffset());
        });
    }

    /** Decodes and applies change records (no markers among them); what cannot be applied is noted in {@code rejects}. */
    private ApplyResult applyEvents(Connection c, TopicPartition tp, EntitySpec entity, List<ConsumerRecord<byte[], byte[]>> records,
                                    List<Reject> rejects) throws SQLException {
        List<Event> events = new ArrayList<>(records.size());
        Map<Source, Deque<ConsumerRecord<byte[], byte[]>>> bySource = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Event ev = decode(entity, r, rejects);
            if (ev != null) {
                events.add(ev);
                bySource.computeIfAbsent(ev.source(), s -> new ArrayDeque<>()).add(r);
            }
        }
        ApplyResult result = events.isEmpty() ? ApplyResult.empty() : writer.apply(c, entity, events);
        for (Rejection rej : result.rejected()) {
            Deque<ConsumerRecord<byte[], byte[]>> rs = bySource.get(rej.source());
            ConsumerRecord<byte[], byte[]> r = rs == null ? null : rs.poll();
            if (r == null) {
                throw new IllegalStateException("the writer rejected an event of " + rej.source()
                        + " that is not in the batch of " + (tp == null ? "these partitions" : tp) + ": " + rej.reason());
            }
            rejects.add(new Reject(r, rej.reason()));
        }
        return result;
    }

    /** The end-of-slice marker of a record with the control header, or null with a reject noted. */
    private static SliceMarker decodeMarker(TopicPartition tp, EntitySpec entity, ConsumerRecord<byte[], byte[]> r, int partitions,
                                            List<Reject> rejects) {
        String kind = SliceMarker.controlKind(r.headers());
        if (!SliceMarker.END_OF_SLICE.equals(kind)) {
            rejects.add(new Reject(r, "unknown control record kind " + SliceMarker.HEADER + "=" + kind));
            return null;
        }
        SliceMarker m;
        try {
            m = SliceMarker.decode(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(new Reject(r, e.getMessage()));
            return null;
        }
        if (!entity.name().equals(m.entity())) {
            rejects.add(new Reject(r, "end-of-slice marker of entity '" + m.entity() + "' on the changes topic of entity '"
                    + entity.name() + "'"));
            return null;
        }
        if (m.partition() != tp.partition() || m.partitions() != partitions) {
            rejects.add(new Reject(r, "end-of-slice marker for partition " + m.partition() + " of " + m.partitions()
                    + " read from partition " + tp.partition() + " of " + (partitions > 0 ? partitions : "an unknown number of")
                    + " partitions: nothing deleted"));
            return null;
        }
        return m;
    }

    /**
     * A slice is complete on this partition: record it, then judge it and every complete slice
     * after it ({@link SnapshotSlices#complete}): each key of this partition live at the slice's
     * instant that the slice did not carry gets a delete event at that instant, applied by the
     * writer (arrival order: the marker's offset, so a slice record arriving after the marker wins).
     */
    private ApplyResult endOfSlice(Connection c, TopicPartition tp, EntitySpec entity, SliceMarker m, long offset, int partitions)
            throws SQLException {
        ApplyResult result = ApplyResult.empty();
        Source lineage = Source.kafka(tp.topic(), tp.partition(), offset);
        for (Instant t : SnapshotSlices.complete(c, entity.name(), tp.partition(), m.slice())) {
            List<Event> deletes = new ArrayList<>();
            SnapshotSlices.forEachLiveWithoutEventAt(c, entity, t, key -> {
                List<String> canonical = new ArrayList<>(key.size());
                Map<String, Object> data = new LinkedHashMap<>();
                for (int i = 0; i < key.size(); i++) {
                    String col = entity.key().get(i);
                    canonical.add(entity.type(col).canonical(key.get(i)));
                    data.put(col, key.get(i));
                }
                if (ChangesPartitioner.partitionOf(ChangeCodec.key(canonical), partitions) == tp.partition()) {
                    deletes.add(Event.delete(t, data, offset, lineage));
                }
            });
            LOG.debug("{}: slice {} of {} complete: {} keys absent", tp, t, entity.name(), deletes.size());
            if (!deletes.isEmpty()) {
                ApplyResult r = writer.apply(c, entity, deletes);
                if (!r.rejected().isEmpty()) {
                    throw new IllegalStateException("the writer refused a delete made for slice " + t + " of " + entity.name()
                            + ": " + r.rejected().get(0).reason());
                }
                result = result.plus(r);
            }
        }
        return result;
    }

    /** The writer's event of a change record, or null with a reject noted. */
    private static Event decode(EntitySpec entity, ConsumerRecord<byte[], byte[]> r, List<Reject> rejects) {
        if (r.value() == null) {
            rejects.add(new Reject(r, "null value: a changes topic carries no tombstones"));
            return null;
        }
        ChangeRecord change;
        try {
            change = ChangeCodec.decode(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(new Reject(r, reason(e)));
            return null;
        }
        if (!entity.name().equals(change.entity())) {
            rejects.add(new Reject(r, "change of entity '" + change.entity() + "' on the changes topic of entity '"
                    + entity.name() + "'"));
            return null;
        }
        return change.toEvent(r.offset());
    }

    /**
     * Why the decoder refused a record, in one line: the record itself is kept as bytes beside
     * the reason, so the decoder's repetition of it and parser locations are left out.
     */
    private static String reason(IllegalArgumentException e) {
        Throwable cause = e.getCause();
        String msg;
        if (cause instanceof NullPointerException) {
            msg = "malformed change record: a required field is missing (entity, class, op, event_time, data and source are required)";
        } else if (cause instanceof IllegalArgumentException && cause.getMessage() != null) {
            msg = "malformed change record: " + cause.getMessage();
        } else {
            msg = String.valueOf(e.getMessage());
        }
        msg = msg.lines().findFirst().orElse(msg);
        return msg.length() <= 1000 ? msg : msg.substring(0, 1000) + "...";
    }

    private void insertRejects(Connection c, EntitySpec entity, List<Reject> rejects) throws SQLException {
        if (rejects.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.sink_rejects (consumer_group, topic, partition, "
                + "\"offset\", entity, reason, key, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (consumer_group, topic, partition, \"offset\") DO NOTHING")) {
            for (Reject r : rejects) {
                p.setString(1, group);
                p.setString(2, r.record().topic());
                p.setInt(3, r.record().partition());
                p.setLong(4, r.record().offset());
                p.setString(5, entity.name());
                p.setString(6, r.reason());
                p.setBytes(7, r.record().key());
                p.setBytes(8, r.record().value());
                p.addBatch();
            }
            p.executeBatch();
        }
    }
}
