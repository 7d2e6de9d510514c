package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
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
 * Any failure rolls everything back and rethrows: nothing of the batch is committed.
 */
final class SinkTransaction {

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
        return apply(tp, entity, expected, records, nextOffset, null);
    }

    /**
     * As above, and records the batch's figures in {@code dimstream.sink_batches} (for the admin
     * dashboard) in the same transaction.
     *
     * @param lagAfter records left in the partition after this batch, null when unknown
     */
    Outcome apply(TopicPartition tp, EntitySpec entity, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records,
                  long nextOffset, Long lagAfter) throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                OptionalLong stored = SinkOffsets.lock(c, group, tp);
                if (!stored.equals(expected)) {
                    c.rollback();
                    return new Fenced(stored);
                }
                List<Reject> rejects = new ArrayList<>();
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
                                + " that is not in the batch of " + tp + ": " + rej.reason());
                    }
                    rejects.add(new Reject(r, rej.reason()));
                }
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
