package io.dimstream.app.change;

import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.Map;

/**
 * One record of the changes topic: a decoded, validated event of one entity, its classification,
 * and where it came from (the source topic, partition and offset: the lineage the table keeps).
 * Key of the Kafka record: {@link ChangeCodec#key} of the business key, so all events of a key
 * share a partition of the changes topic.
 *
 * <p>The topology writes these; the sink reads them and turns each into a writer {@link Event}
 * whose arrival order ({@code seq}) is the record's offset in the changes topic.
 *
 * @param newColumns the columns of {@code data} the config does not declare, which the topology
 *                   passed through for {@code new-columns:} (column to the SQL type it inferred):
 *                   the sink adds each its entity does not have yet before applying the record
 * @param widened    columns whose type the topology widened for this record's values, or which the
 *                   source's schema retyped ({@code schema-evolution: lenient}; column to the SQL
 *                   type, {@link io.dimstream.db.entity.TypeWidening}): the sink widens each its
 *                   entity's column is narrower than, or stops the partition when the change is no
 *                   safe widening ({@link io.dimstream.db.schema.EvolvedColumns#widen})
 */
public record ChangeRecord(String entity, ChangeClass changeClass, Op op, Instant eventTime, Map<String, Object> data,
                           String sourceTopic, int sourcePartition, long sourceOffset, Map<String, String> newColumns,
                           Map<String, String> widened) {

    public ChangeRecord {
        newColumns = Map.copyOf(newColumns);
        widened = Map.copyOf(widened);
    }

    /** A change with no column retyped. */
    public ChangeRecord(String entity, ChangeClass changeClass, Op op, Instant eventTime, Map<String, Object> data,
                        String sourceTopic, int sourcePartition, long sourceOffset, Map<String, String> newColumns) {
        this(entity, changeClass, op, eventTime, data, sourceTopic, sourcePartition, sourceOffset, newColumns, Map.of());
    }

    /** A change of the config's columns only. */
    public ChangeRecord(String entity, ChangeClass changeClass, Op op, Instant eventTime, Map<String, Object> data,
                        String sourceTopic, int sourcePartition, long sourceOffset) {
        this(entity, changeClass, op, eventTime, data, sourceTopic, sourcePartition, sourceOffset, Map.of());
    }

    /**
     * The writer's view of this change, read at {@code changesOffset} of the changes topic: its
     * {@code seq} is {@link ArrivalSeq#ofChangesOffset}.
     */
    public Event toEvent(long changesOffset) {
        return new Event(op, eventTime, data, ArrivalSeq.ofChangesOffset(changesOffset).value(),
                Source.kafka(sourceTopic, sourcePartition, sourceOffset), null);
    }
}
