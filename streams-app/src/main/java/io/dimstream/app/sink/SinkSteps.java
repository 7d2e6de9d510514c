package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.db.apply.Prepared;
import io.dimstream.db.apply.ShapeChange;
import io.dimstream.db.apply.Step;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.TypedEventCodec;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.snapshot.SnapshotSlices;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A group's changes-topic records as {@link Step}s for the {@link io.dimstream.db.apply.BatchApplier}:
 * the records read straight into typed events ({@link ChangeCodec#toSinkChange}: the topology
 * validated and hashed them once), a record typed for another shape of the entity validated again
 * here, and each end-of-slice or truncate marker a {@link Step.DeleteLiveAt} over this partition's
 * keys between the events before and after it. What cannot be read is a reject with the reason.
 */
final class SinkSteps {

    private SinkSteps() {
    }

    /**
     * What one group's transaction applies: its steps, the records refused on the way, and per
     * event source the records it came from (to map a refused event back to its record), the
     * topology's classes of the records made into events, and the records validated again by why.
     */
    record Made(List<Step> steps, List<SinkReject> rejects, Map<Source, Deque<ConsumerRecord<byte[], byte[]>>> bySource,
                Map<ChangeClass, Integer> topologyClasses, Map<String, Integer> validated, String entity) implements Prepared {

        @Override
        public List<SinkReject> refused(Rejection rejection) {
            Deque<ConsumerRecord<byte[], byte[]>> rs = bySource.get(rejection.source());
            ConsumerRecord<byte[], byte[]> r = rs == null ? null : rs.poll();
            if (r == null) {
                throw new IllegalStateException("the writer rejected an event of " + rejection.source() + " that is not in the batch: "
                        + rejection.reason());
            }
            return List.of(reject(entity, r, rejection.reason(), rejection.sqlState()));
        }
    }

    /**
     * The columns the group's records name in {@code new_columns} or {@code widened} (only records that
     * may name any are read twice, {@link ChangeCodec#mayHaveNewColumns}; one that does not decode is
     * left for its reject). A type the sink does not know adds nothing: the validator then refuses
     * the column, naming it.
     */
    static ShapeChange shapeChange(EntitySpec entity, List<SinkTransaction.PartitionBatch> ordered, boolean tracked) {
        Map<String, EvolvedColumns.NewColumn> add = new LinkedHashMap<>();
        List<EvolvedColumns.Widening> widen = new ArrayList<>();
        Map<String, List<ShapeChange.Carrier>> carriers = new LinkedHashMap<>();
        Map<EvolvedColumns.Widening, ShapeChange.Carrier> widenedBy = new HashMap<>();
        for (SinkTransaction.PartitionBatch b : ordered) {
            for (ConsumerRecord<byte[], byte[]> r : b.records()) {
                if (r.value() == null || SliceMarker.isControl(r.headers()) || !ChangeCodec.mayHaveNewColumns(r.value())) {
                    continue;
                }
                ChangeRecord change;
                try {
                    change = ChangeCodec.decode(r.value());
                } catch (IllegalArgumentException e) {
                    continue;
                }
                String first = change.sourceTopic() + "-" + change.sourcePartition() + "@" + change.sourceOffset();
                ShapeChange.Carrier carrier = change.newColumns().isEmpty() && change.widened().isEmpty() ? null
                        : ShapeChange.Carrier.of(entity, change.data(), first);
                for (Map.Entry<String, String> w : change.widened().entrySet()) {
                    try {
                        EvolvedColumns.Widening widening = new EvolvedColumns.Widening(w.getKey(), TypeWidening.ColumnDef.parse(w.getValue()),
                                first);
                        widen.add(widening);
                        if (carrier != null) {
                            widenedBy.put(widening, carrier);
                        }
                    } catch (IllegalArgumentException unknown) {
                        // a type this sink does not know: the validator refuses the value, naming the column
                    }
                }
                for (Map.Entry<String, String> n : change.newColumns().entrySet()) {
                    List<ShapeChange.Carrier> by = carriers.computeIfAbsent(n.getKey(), c -> new ArrayList<>());
                    if (carrier != null && change.data().get(n.getKey()) != Unchanged.VALUE) {
                        by.add(carrier); // a record holding a value of it, not one carrying it on
                    }
                    if (!add.containsKey(n.getKey())) {
                        ColumnType.fromConfig(n.getValue())
                                .ifPresent(t -> add.put(n.getKey(), new EvolvedColumns.NewColumn(n.getKey(), t, tracked, first)));
                    }
                }
            }
        }
        return new ShapeChange(List.copyOf(add.values()), widen, carriers, widenedBy);
    }


    /** The group's steps for {@code shape}: a lone partition's with its markers in order, several partitions' events as one step. */
    static Made make(EntitySpec shape, List<SinkTransaction.PartitionBatch> ordered) {
        Made made = new Made(new ArrayList<>(), new ArrayList<>(), new HashMap<>(), new EnumMap<>(ChangeClass.class), new TreeMap<>(),
                shape.name());
        Reader reader = new Reader(shape, made);
        if (ordered.size() > 1) {
            List<TypedEvent> events = new ArrayList<>();
            ordered.forEach(b -> b.records().forEach(r -> reader.read(r, events)));
            made.steps().add(new Step.TypedEvents(events));
            return made;
        }
        SinkTransaction.PartitionBatch b = ordered.get(0);
        List<TypedEvent> segment = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : b.records()) {
            if (!SliceMarker.isControl(r.headers())) {
                reader.read(r, segment);
                continue;
            }
            Step.DeleteLiveAt marker = TruncateMarker.is(r.headers()) ? truncate(b, shape, r, made.rejects())
                    : endOfSlice(b, shape, r, made.rejects());
            if (marker != null) {
                addSegment(made, shape, b, segment);
                segment = new ArrayList<>();
                made.steps().add(marker);
            }
        }
        addSegment(made, shape, b, segment);
        return made;
    }

    /** A lone partition's events up to a marker, then the later slices judged again for its late slice rows ({@link LateSliceRows}). */
    private static void addSegment(Made made, EntitySpec shape, SinkTransaction.PartitionBatch b, List<TypedEvent> segment) {
        made.steps().add(new Step.TypedEvents(segment));
        Step.DeleteLiveAt late = LateSliceRows.after(shape, b.tp(), segment);
        if (late != null) {
            made.steps().add(late);
        }
    }

    /** Reads records into typed events for one group, noting what it refused, validated again and classed. */
    private static final class Reader {
        private final EntitySpec shape;
        private final Made made;
        private final TypedEventCodec codec;
        /** Made for the first record typed for another shape of the entity (a column added in between). */
        private EventValidator validator;

        Reader(EntitySpec shape, Made made) {
            this.shape = shape;
            this.made = made;
            this.codec = TypedEventCodec.of(shape);
        }

        void read(ConsumerRecord<byte[], byte[]> r, List<TypedEvent> into) {
            TypedEvent e = typed(r);
            if (e != null) {
                into.add(e);
                made.bySource().computeIfAbsent(e.source(), s -> new ArrayDeque<>()).add(r);
            }
        }

        /** The typed event of a change record, or null with a reject noted. */
        private TypedEvent typed(ConsumerRecord<byte[], byte[]> r) {
            if (r.value() == null) {
                return refuse(r, "null value: a changes topic carries no tombstones");
            }
            ChangeCodec.SinkChange change;
            try {
                change = ChangeCodec.toSinkChange(r.value(), codec, r.offset());
            } catch (IllegalArgumentException e) {
                return refuse(r, reason(e));
            }
            if (!shape.name().equals(change.entity())) {
                return refuse(r, "change of entity '" + change.entity() + "' on the changes topic of entity '" + shape.name() + "'");
            }
            TypedEvent event = change.typed();
            if (event == null) {
                made.validated().merge(ChangeCodec.SinkChange.OTHER_SHAPE, 1, Integer::sum);
                if (validator == null) {
                    validator = new EventValidator(shape);
                }
                EventValidator.Result v = validator.validate(change.untyped());
                if (!v.ok()) {
                    return refuse(r, v.rejection().reason());
                }
                event = v.event();
            }
            made.topologyClasses().merge(change.changeClass(), 1, Integer::sum);
            return event;
        }

        private TypedEvent refuse(ConsumerRecord<byte[], byte[]> r, String reason) {
            made.rejects().add(reject(shape.name(), r, reason, null));
            return null;
        }
    }

    /**
     * A slice is complete on this partition: in the transaction, it is recorded and it and every
     * complete slice after it are judged ({@link SnapshotSlices#complete}): each key of this
     * partition live at a slice's instant that the slice did not carry gets a delete there (arrival
     * order: the marker's offset, so a slice record arriving after the marker wins). Null with a
     * reject noted when the marker is not one this partition can take.
     */
    private static Step.DeleteLiveAt endOfSlice(SinkTransaction.PartitionBatch b, EntitySpec shape, ConsumerRecord<byte[], byte[]> r,
                                                List<SinkReject> rejects) {
        String kind;
        try {
            kind = SliceMarker.controlKind(r.headers());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(shape.name(), r, e.getMessage(), null));
            return null;
        }
        if (!SliceMarker.END_OF_SLICE.equals(kind)) {
            rejects.add(reject(shape.name(), r, "unknown control record kind " + SliceMarker.HEADER + "=" + kind + " (known: "
                    + SliceMarker.END_OF_SLICE + ", " + TruncateMarker.KIND + ")", null));
            return null;
        }
        SliceMarker m;
        try {
            m = SliceMarker.fromBytes(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(shape.name(), r, e.getMessage(), null));
            return null;
        }
        String bad = !shape.name().equals(m.entity())
                ? "end-of-slice marker of entity '" + m.entity() + "' on the changes topic of entity '" + shape.name() + "'"
                : m.partition() != b.tp().partition() || m.partitions() != b.partitions()
                ? "end-of-slice marker for partition " + m.partition() + " of " + m.partitions() + " read from partition "
                + b.tp().partition() + " of " + partitions(b) + " partitions: nothing deleted"
                : null;
        if (bad != null) {
            rejects.add(reject(shape.name(), r, bad, null));
            return null;
        }
        TopicPartition tp = b.tp();
        return new Step.DeleteLiveAt(c -> SnapshotSlices.complete(c, shape.name(), tp.partition(), m.slice()),
                ArrivalSeq.ofChangesOffset(r.offset()).value(), Source.kafka(tp.topic(), tp.partition(), r.offset()),
                onPartition(tp.partition(), b.partitions()), "slice " + m.slice() + " ending on " + tp);
    }

    /**
     * A truncate of the source table ({@code on-truncate: delete-all}) reached this partition, after
     * every change before it on its source partition: each key of this partition live at its time
     * with no event remembered at exactly that time gets a delete there, as a slice with no rows
     * would; the deletes' lineage is the truncate's source record, their arrival order the marker's
     * offset. A key with an event at exactly the truncate's time is left alone: that event is the
     * truncate's own delete remembered (the same truncate re-delivered deletes nothing more), or a row
     * written in the truncate's source transaction ({@code TRUNCATE; INSERT ...} shares its commit
     * time), which survives it. docs/formats.md states the price (a row of {@code INSERT ...; TRUNCATE}
     * in one transaction survives too).
     */
    private static Step.DeleteLiveAt truncate(SinkTransaction.PartitionBatch b, EntitySpec shape, ConsumerRecord<byte[], byte[]> r,
                                              List<SinkReject> rejects) {
        TruncateMarker m;
        try {
            m = TruncateMarker.fromBytes(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(shape.name(), r, e.getMessage(), null));
            return null;
        }
        String bad = !shape.name().equals(m.entity())
                ? "truncate marker of entity '" + m.entity() + "' on the changes topic of entity '" + shape.name() + "'"
                : b.partitions() < 1 || (m.partition().isPresent() && m.partition().getAsInt() != b.tp().partition())
                ? "truncate marker for partition " + m.partition() + " read from partition " + b.tp().partition() + " of "
                + partitions(b) + " partitions: nothing deleted"
                : null;
        if (bad != null) {
            rejects.add(reject(shape.name(), r, bad, null));
            return null;
        }
        return new Step.DeleteLiveAt(Step.LiveAt.at(m.time()), ArrivalSeq.ofChangesOffset(r.offset()).value(), m.source(),
                onPartition(b.tp().partition(), b.partitions()), "truncate " + m.source() + " at " + m.time() + " on " + b.tp());
    }

    /** The keys the changes topic puts in {@code partition} of {@code partitions}. */
    private static Step.KeyFilter onPartition(int partition, int partitions) {
        return (shape, key) -> {
            List<String> canonical = new ArrayList<>(key.size());
            for (int i = 0; i < key.size(); i++) {
                canonical.add(shape.type(shape.key().get(i)).canonical(key.get(i)));
            }
            return ChangesPartitioner.partitionOf(ChangeCodec.key(canonical), partitions) == partition;
        };
    }

    private static String partitions(SinkTransaction.PartitionBatch b) {
        return b.partitions() > 0 ? Integer.toString(b.partitions()) : "an unknown number of";
    }

    static SinkReject reject(String entity, ConsumerRecord<byte[], byte[]> r, String reason, String sqlState) {
        return new SinkReject(new PartitionRef(r.topic(), r.partition()), r.offset(), entity, reason, sqlState, r.key(), r.value());
    }

    /**
     * Why the decoder refused a record, in one line: the record itself is kept as bytes beside
     * the reason, so the decoder's repetition of it and parser locations are left out.
     */
    private static String reason(IllegalArgumentException e) {
        Throwable cause = e.getCause();
        if (cause instanceof NullPointerException) {
            return "malformed change record: a required field is missing (entity, class, op, event_time, data and source are required)";
        }
        if (cause instanceof IllegalArgumentException && cause.getMessage() != null) {
            return "malformed change record: " + cause.getMessage();
        }
        return String.valueOf(e.getMessage());
    }
}
