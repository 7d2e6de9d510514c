package io.dimstream.app.sink;

import io.dimstream.db.apply.Applied;
import io.dimstream.db.apply.Position;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkBatch;
import io.dimstream.db.sink.SinkBatches;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * The sink's position in a group's transaction: each partition's stored offset, locked (in
 * partition order, so two instances never wait on each other in a cycle) and checked to still be
 * the offset this instance expects (the fence), then advanced past the batch with a row per
 * partition in {@code dimstream.sink_batches}.
 *
 * <p>First of all, the transaction waits at most {@link #LOCK_WAIT} for any lock. A sink wave runs
 * its groups' transactions at once and waits for all of them, so one entity's table held by another
 * transaction (a replay's or a {@code load}'s exclusive writer lock, a {@code LOCK TABLE}, an
 * {@code ALTER TABLE} or {@code VACUUM FULL} by hand, a user's open transaction on its rows) held
 * every entity's next batches with it. Now the wait ends with SQL state 55P03 and only that group's
 * partitions back off and retry ({@code ChangeSink}); statements that run are never cut.
 */
final class SinkPosition implements Position<SinkTransaction.Fenced> {

    /** The longest a sink transaction waits for a lock before its partitions back off and retry. */
    static final Duration LOCK_WAIT = Duration.ofSeconds(5);

    private final String group;
    private final String entity;
    private final List<SinkTransaction.PartitionBatch> ordered;
    private final long t0;

    /** @param ordered the group's batches in partition order; {@code t0} when the group started (nanoTime) */
    SinkPosition(String group, String entity, List<SinkTransaction.PartitionBatch> ordered, long t0) {
        this.group = group;
        this.entity = entity;
        this.ordered = List.copyOf(ordered);
        this.t0 = t0;
    }

    @Override
    public SinkTransaction.Fenced lock(Connection c) throws SQLException {
        Transactions.limitLockWaits(c, LOCK_WAIT);
        for (SinkTransaction.PartitionBatch b : ordered) {
            OptionalLong stored = SinkOffsets.lock(c, group, ref(b.tp()));
            if (!stored.equals(b.expected())) {
                return new SinkTransaction.Fenced(b.tp(), stored);
            }
        }
        return null;
    }

    @Override
    public String rejectsGroup() {
        return group;
    }

    @Override
    public SinkTransaction.Fenced advance(Connection c, Applied<?> applied) throws SQLException {
        for (SinkTransaction.PartitionBatch b : ordered) {
            if (!SinkOffsets.advance(c, group, ref(b.tp()), b.expected(), b.nextOffset())) {
                return new SinkTransaction.Fenced(b.tp(), SinkOffsets.lock(c, group, ref(b.tp())));
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        boolean first = true;
        for (SinkTransaction.PartitionBatch b : ordered) {
            if (b.records().isEmpty()) {
                continue;
            }
            PartitionRef ref = ref(b.tp());
            int partitionRejects = (int) applied.rejects().stream().filter(r -> r.partition().equals(ref)).count();
            // one writer call served every partition: its class counts go on the first partition's
            // row, so the dashboard's sums over rows stay exact; events, rejects and lag are each row's own
            SinkBatches.record(c, new SinkBatch(group, entity, b.tp().topic(), b.tp().partition(), b.records().get(0).offset(),
                    b.nextOffset(), b.records().size(), first ? applied.result() : ApplyResult.empty(), partitionRejects, millis,
                    b.lagAfter()));
            first = false;
        }
        return null;
    }

    static PartitionRef ref(TopicPartition tp) {
        return new PartitionRef(tp.topic(), tp.partition());
    }
}
