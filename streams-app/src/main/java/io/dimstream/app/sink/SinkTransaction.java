package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.apply.Batch;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.apply.Applied;
import io.dimstream.db.apply.Outcome;
import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.write.ApplyResult;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The sink as a source of the one apply pipeline ({@link BatchApplier}): a group of batches, the
 * first batches of one or more partitions of ONE entity, becomes one {@link Batch} whose steps
 * {@link SinkSteps} makes from the records (markers split a lone partition's batch into events,
 * deletes, events), whose shape change is the columns the records name, and whose position is the
 * partitions' fenced offsets ({@link SinkPosition}). The applier does the rest in one PostgreSQL
 * transaction: fence, shared writer lock, columns, rows, rejects, offsets. A lone partition is a
 * group of one. Holds no per-transaction state: the sink's parallel groups share one.
 */
final class SinkTransaction {

    private final BatchApplier applier;
    private final String group;

    SinkTransaction(BatchApplier applier, String group) {
        this.applier = applier;
        this.group = group;
    }

    /** What a group's transaction did. */
    sealed interface GroupOutcome {
    }

    /**
     * Committed: each batch's partition now stores the batch's {@code nextOffset}.
     * {@code disagreements}: per class, how far the topology's count of its classes (the
     * {@code class} of each change record) is from the writer's count for the same events
     * ({@link ClassDisagreement}). {@code validated}: change records the sink validated again instead
     * of taking the topology's typed events as written, by why ({@code other-shape}: typed for a
     * shape of the entity this sink does not have, e.g. a column added in between); each costs the
     * validation the typed form saves, so a steady count is worth a look.
     */
    record Committed(ApplyResult result, int rejects, Map<ChangeClass, Integer> disagreements, Map<String, Integer> validated)
            implements GroupOutcome {
    }

    /**
     * Rolled back, nothing written: partition {@code tp} did not store the offset this instance
     * expected, so another instance owns (or owned) it; {@code stored} is what PostgreSQL holds
     * now. The group's other batches were not applied either and stay buffered.
     */
    record Fenced(TopicPartition tp, OptionalLong stored) implements GroupOutcome {
    }

    /**
     * One partition's part of a group.
     *
     * @param expected   the next offset this instance last read or committed for the partition
     *                   (empty: it found no row)
     * @param records    the batch, in offset order, all of {@code tp}
     * @param nextOffset the partition's next offset once the batch is applied (past the last
     *                   record, and past any transaction markers the consumer skipped after it)
     * @param lagAfter   records left in the partition after this batch, null when unknown
     * @param partitions how many partitions the changes topic has (needed only when the batch holds
     *                   an end-of-slice marker; 0 when unknown, which rejects such a marker)
     */
    record PartitionBatch(TopicPartition tp, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records, long nextOffset,
                          Long lagAfter, int partitions) {

        PartitionBatch {
            records = List.copyOf(records);
        }
    }

    /** Applies the group; see the class comment. Any failure rolls everything back and is rethrown. */
    GroupOutcome apply(EntitySpec entity, List<PartitionBatch> batches) throws SQLException {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("a group of no batches");
        }
        if (batches.size() > 1 && batches.stream().anyMatch(b -> b.records().stream().anyMatch(r -> SliceMarker.isControl(r.headers())))) {
            throw new IllegalArgumentException("a batch holding a control record goes alone, not in a group of " + batches.size());
        }
        long t0 = System.nanoTime();
        List<PartitionBatch> ordered = batches.stream()
                .sorted(Comparator.comparing((PartitionBatch b) -> b.tp().topic()).thenComparingInt(b -> b.tp().partition()))
                .toList();
        String what = ordered.stream().mapToInt(b -> b.records().size()).sum() + " records of "
                + ordered.stream().map(b -> b.tp().toString()).toList();
        Batch<SinkSteps.Made> batch = new Batch<>(entity.name(), null,
                SinkSteps.shapeChange(entity, ordered, applier.shapes().tracksNewColumns(entity.name())), WriterLock.Mode.STREAMING,
                shape -> SinkSteps.make(shape, ordered), what);
        Outcome<SinkSteps.Made, Fenced> out = applier.apply(batch, new SinkPosition(group, entity.name(), ordered, t0));
        if (out instanceof Outcome.Stopped<SinkSteps.Made, Fenced> stopped) {
            return stopped.why();
        }
        Applied<SinkSteps.Made> applied = ((Outcome.Done<SinkSteps.Made, Fenced>) out).applied();
        return new Committed(applied.result(), applied.rejects().size(),
                ClassDisagreement.between(applied.prepared().topologyClasses(), applied.events()), Map.copyOf(applied.prepared().validated()));
    }
}
