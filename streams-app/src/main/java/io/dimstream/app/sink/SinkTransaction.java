package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.TypedEventCodec;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkBatch;
import io.dimstream.db.sink.SinkBatches;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.sink.SinkRejects;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.sql.SqlFailures;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyOptions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one group of batches, the first batches of one or more partitions of ONE entity, in ONE
 * PostgreSQL transaction: lock every partition's offset row (in partition order, so two instances
 * never wait on each other in a cycle) and check it still holds the offset this instance expects
 * (the fence); read the records straight into typed events ({@link ChangeCodec#toSinkChange}: the
 * topology validated and hashed them once, so they are not validated again; records of the older,
 * untyped form are validated here) and apply them with {@link Scd2Writer#applyTyped}; keep what
 * could not be applied in
 * {@code dimstream.sink_rejects}; advance every offset; record each partition's batch in
 * {@code dimstream.sink_batches}; commit. A lone partition is a group of one.
 *
 * <p><b>Records PostgreSQL refuses.</b> When PostgreSQL refuses the batch for a data reason (a
 * value it cannot store, a constraint of a table altered by hand, an index entry too large), the
 * transaction is rolled back and run again with the events applied with
 * {@link ApplyOptions#ISOLATING}: the refused events are isolated under savepoints and each of
 * their records is kept in the rejects with the SQLSTATE and the message; everything else lands in
 * the same transaction as the offsets. Any other failure rolls the whole transaction back and is
 * rethrown.
 *
 * <p><b>Control records.</b> An end-of-slice marker of a snapshot feed, or a truncate marker
 * ({@code on-truncate: delete-all}), splits a batch (its group is then that partition alone,
 * {@link BatchPlanner}): the events before it are applied, then the slice's absent keys, or every
 * key of the partition live at the truncate's time, are deleted ({@link #endOfSlice},
 * {@link #truncate}), then the events after it, all in the same transaction.
 */
final class SinkTransaction {

    private static final Logger LOG = LoggerFactory.getLogger(SinkTransaction.class);

    private final DataSource ds;
    private final Scd2Writer writer;
    private final String group;
    /** The current group transaction's class disagreements, summed over its writer calls (the sink's thread only). */
    private Map<ChangeClass, Integer> disagreements = new EnumMap<>(ChangeClass.class);
    /** The current group transaction's records validated again, by why (the sink's thread only), see {@link Committed}. */
    private Map<String, Integer> validated = new java.util.TreeMap<>();
    /**
     * Per entity, its spec with the columns this sink added while running (committed): the spec the
     * next batch applies with. The writer caches its SQL per spec object, so a new spec gets
     * statements with the new columns.
     */
    private final Map<String, EntitySpec> evolved = new java.util.concurrent.ConcurrentHashMap<>();
    /** The entities whose new columns are type-1 ({@code new-columns: type1}); the others' are tracked. */
    private volatile java.util.Set<String> type1NewColumns = java.util.Set.of();

    SinkTransaction(DataSource ds, Scd2Writer writer, String group) {
        this.ds = ds;
        this.writer = writer;
        this.group = group;
    }

    /** What a group's transaction did. */
    sealed interface Outcome {
    }

    /**
     * Committed: each batch's partition now stores the batch's {@code nextOffset}.
     * {@code disagreements}: per class, how far the topology's count of its classes (the
     * {@code class} of each change record) is from the writer's count for the same events
     * ({@link ClassDisagreement}). {@code validated}: change records the sink validated again
     * instead of taking the topology's typed events as written, by why: {@code older-form} (written
     * by a release before the typed form) or {@code other-shape} (typed for a shape of the entity
     * this sink does not have, e.g. a column added in between); each costs the validation the typed
     * form saves, so a steady count outside an upgrade is worth a look.
     */
    record Committed(ApplyResult result, int rejects, Map<ChangeClass, Integer> disagreements, Map<String, Integer> validated)
            implements Outcome {
    }

    /**
     * Rolled back, nothing written: partition {@code tp} did not store the offset this instance
     * expected, so another instance owns (or owned) it; {@code stored} is what PostgreSQL holds
     * now. The group's other batches were not applied either and stay buffered.
     */
    record Fenced(TopicPartition tp, OptionalLong stored) implements Outcome {
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

        /** A batch of a partition of a topic with no control record (partition count not needed). */
        static PartitionBatch of(TopicPartition tp, OptionalLong expected, List<ConsumerRecord<byte[], byte[]>> records, long nextOffset) {
            return new PartitionBatch(tp, expected, records, nextOffset, null, 0);
        }
    }

    /** A record and the typed event made of it. */
    private record Item(ConsumerRecord<byte[], byte[]> record, TypedEvent event, ChangeClass changeClass) {
    }

    /** Which entities add their new columns as type-1 columns ({@code new-columns: type1}). */
    void type1NewColumns(java.util.Set<String> entities) {
        this.type1NewColumns = java.util.Set.copyOf(entities);
    }

    /** The entity's spec as this sink applies it now: {@code entity} with the columns added since. */
    EntitySpec current(EntitySpec entity) {
        EntitySpec e = evolved.get(entity.name());
        return e != null && e.table().equals(entity.table()) ? e : entity;
    }

    /** Applies the group; see the class comment. Any failure rolls everything back and is rethrown. */
    Outcome apply(EntitySpec configured, List<PartitionBatch> batches) throws SQLException {
        EntitySpec entity = current(configured);
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
        try {
            return attempt(configured, entity, ordered, t0, false);
        } catch (SQLException e) {
            if (!SqlFailures.isData(e)) {
                throw e;
            }
            // rolled back whole: the same transaction again, the events under savepoints this time
            LOG.info("{}: PostgreSQL refused a value in a batch of {} (SQL state {}); applying it again, isolating the refused records",
                    entity.name(), ordered.stream().map(b -> b.tp().toString()).toList(), SqlFailures.sqlState(e).orElse("?"));
            return attempt(configured, entity, ordered, t0, true);
        }
    }

    /**
     * One try of the group's transaction. A batch is applied without savepoints first (they cost a
     * subtransaction per writer call, {@link ApplyOptions#isolate()}); only one PostgreSQL refused
     * is applied again with {@code isolate}.
     */
    private Outcome attempt(EntitySpec configured, EntitySpec entity, List<PartitionBatch> ordered, long t0, boolean isolate)
            throws SQLException {
        EntitySpec[] applied = {entity};
        Outcome outcome = Transactions.inTransaction(ds, c -> {
            for (PartitionBatch b : ordered) {
                OptionalLong stored = SinkOffsets.lock(c, group, ref(b.tp()));
                if (!stored.equals(b.expected())) {
                    c.rollback();
                    return new Fenced(b.tp(), stored);
                }
            }
            // before anything is written: ALTER TABLE waits for the table's other writers, and must
            // not find this transaction holding locks they wait for
            applied[0] = addNewColumns(c, entity, ordered);
            return applyGroup(c, applied[0], ordered, t0, isolate);
        });
        if (outcome instanceof Committed && applied[0] != entity) {
            // committed: the columns and types exist for every later transaction. Two transactions of the
            // entity may have changed different ones: the catalog has both
            EntitySpec next = applied[0];
            try {
                next = EvolvedColumns.withCatalog(ds, configured);
            } catch (SQLException | RuntimeException e) {
                LOG.warn("{}: catalog not read again after a column change ({}); going on with this transaction's spec", entity.name(),
                        e.toString());
            }
            evolved.put(entity.name(), next);
        }
        return outcome;
    }

    /**
     * The columns the group's change records name in {@code new_columns} that the entity does not
     * have yet: added to its tables and the catalog in this transaction ({@link EvolvedColumns#add}),
     * which gives the spec to apply the group with. Only records that may name new columns are read
     * here ({@link ChangeCodec#mayHaveNewColumns}); one that does not decode is left for the reject
     * of {@link #toTypedEvent}. A type the sink does not know adds nothing (the validator then refuses the
     * column, naming it).
     */
    private EntitySpec addNewColumns(Connection c, EntitySpec entity, List<PartitionBatch> ordered) throws SQLException {
        Map<String, EvolvedColumns.NewColumn> wanted = new LinkedHashMap<>();
        List<EvolvedColumns.Widening> widenings = new ArrayList<>();
        boolean tracked = !type1NewColumns.contains(entity.name());
        for (PartitionBatch b : ordered) {
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
                for (Map.Entry<String, String> w : change.widened().entrySet()) {
                    try {
                        widenings.add(new EvolvedColumns.Widening(w.getKey(), io.dimstream.db.entity.TypeWidening.ColumnDef.parse(w.getValue()),
                                change.sourceTopic() + "-" + change.sourcePartition() + "@" + change.sourceOffset()));
                    } catch (IllegalArgumentException unknown) {
                        // a type this sink does not know: the validator refuses the value, naming the column
                    }
                }
                for (Map.Entry<String, String> n : change.newColumns().entrySet()) {
                    if (entity.columns().containsKey(n.getKey()) || wanted.containsKey(n.getKey())) {
                        continue;
                    }
                    io.dimstream.db.entity.ColumnType.fromConfig(n.getValue()).ifPresent(t -> wanted.put(n.getKey(),
                            new EvolvedColumns.NewColumn(n.getKey(), t, tracked,
                                    change.sourceTopic() + "-" + change.sourcePartition() + "@" + change.sourceOffset())));
                }
            }
        }
        EntitySpec out = entity;
        if (!wanted.isEmpty()) {
            try {
                out = EvolvedColumns.add(c, entity, List.copyOf(wanted.values()));
            } catch (IllegalArgumentException refused) {
                // a name no column may take (checked by EntitySpec): nothing added, the validator refuses the records naming it
                LOG.warn("{}: new columns {} not added: {}", entity.name(), wanted.keySet(), refused.getMessage());
            }
        }
        if (!widenings.isEmpty()) {
            // an UnsafeTypeChange fails the whole group before anything is written: the partition
            // retries with backoff, is reported failing, then stuck, with the message saying what to do
            out = EvolvedColumns.widen(c, out, widenings);
        }
        return out;
    }

    /** The group's records applied, rejects kept, offsets advanced, batches recorded: the body of {@link #attempt}'s transaction. */
    private Outcome applyGroup(Connection c, EntitySpec entity, List<PartitionBatch> ordered, long t0, boolean isolate)
            throws SQLException {
        {
            List<SinkReject> rejects = new ArrayList<>();
            disagreements = new EnumMap<>(ChangeClass.class);
            validated = new java.util.TreeMap<>();
            ApplyResult result;
            if (ordered.size() == 1) {
                result = applyWithMarkers(c, entity, ordered.get(0), rejects, isolate);
            } else {
                List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
                ordered.forEach(b -> all.addAll(b.records()));
                result = applyEvents(c, entity, all, rejects, isolate);
            }
            SinkRejects.insert(c, group, rejects);
            for (PartitionBatch b : ordered) {
                if (!SinkOffsets.advance(c, group, ref(b.tp()), b.expected(), b.nextOffset())) {
                    c.rollback();
                    return new Fenced(b.tp(), SinkOffsets.lock(c, group, ref(b.tp())));
                }
            }
            long millis = (System.nanoTime() - t0) / 1_000_000;
            boolean first = true;
            for (PartitionBatch b : ordered) {
                if (b.records().isEmpty()) {
                    continue;
                }
                int partitionRejects = (int) rejects.stream().filter(r -> r.partition().equals(ref(b.tp()))).count();
                // one writer call served every partition: its class counts go on the first partition's
                // row, so the dashboard's sums over rows stay exact; events, rejects and lag are each row's own
                SinkBatches.record(c, new SinkBatch(group, entity.name(), b.tp().topic(), b.tp().partition(),
                        b.records().get(0).offset(), b.nextOffset(), b.records().size(), first ? result : ApplyResult.empty(),
                        partitionRejects, millis, b.lagAfter()));
                first = false;
            }
            return new Committed(result, rejects.size(), Map.copyOf(disagreements), Map.copyOf(validated));
        }
    }

    private static PartitionRef ref(TopicPartition tp) {
        return new PartitionRef(tp.topic(), tp.partition());
    }

    /** One partition's batch: events up to a marker, then the marker (same transaction), then the next events. */
    private ApplyResult applyWithMarkers(Connection c, EntitySpec entity, PartitionBatch b, List<SinkReject> rejects, boolean isolate)
            throws SQLException {
        List<ConsumerRecord<byte[], byte[]>> segment = new ArrayList<>(b.records().size());
        ApplyResult result = ApplyResult.empty();
        for (ConsumerRecord<byte[], byte[]> r : b.records()) {
            if (!SliceMarker.isControl(r.headers())) {
                segment.add(r);
                continue;
            }
            if (TruncateMarker.is(r.headers())) {
                TruncateMarker truncate = decodeTruncate(b.tp(), entity, r, b.partitions(), rejects);
                if (truncate != null) {
                    result = result.plus(applyEvents(c, entity, segment, rejects, isolate));
                    segment.clear();
                    result = result.plus(truncate(c, b.tp(), entity, truncate, r.offset(), b.partitions()));
                }
                continue;
            }
            SliceMarker marker = decodeMarker(b.tp(), entity, r, b.partitions(), rejects);
            if (marker != null) {
                result = result.plus(applyEvents(c, entity, segment, rejects, isolate));
                segment.clear();
                result = result.plus(endOfSlice(c, b.tp(), entity, marker, r.offset(), b.partitions()));
            }
        }
        return result.plus(applyEvents(c, entity, segment, rejects, isolate));
    }

    /**
     * Reads and applies change records (no markers among them); what cannot be applied is noted in
     * {@code rejects}. Records of the typed form go to the writer as they are ({@link Scd2Writer#applyTyped});
     * only records of the older form, or of a shape this entity no longer has, are validated here.
     */
    private ApplyResult applyEvents(Connection c, EntitySpec entity, List<ConsumerRecord<byte[], byte[]>> records,
                                    List<SinkReject> rejects, boolean isolate) throws SQLException {
        TypedEventCodec codec = TypedEventCodec.of(entity);
        EventValidator[] validator = {null}; // made only for a record that needs it
        List<Item> items = new ArrayList<>(records.size());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Item item = toTypedEvent(entity, codec, validator, r, rejects, validated);
            if (item != null) {
                items.add(item);
            }
        }
        if (items.isEmpty()) {
            return ApplyResult.empty();
        }
        List<TypedEvent> events = new ArrayList<>(items.size());
        items.forEach(i -> events.add(i.event()));
        ApplyResult result = writer.applyTyped(c, entity, events, new ApplyOptions(isolate));
        rejectRefused(entity, items, result, rejects);
        Map<ChangeClass, Integer> topology = new EnumMap<>(ChangeClass.class);
        items.forEach(i -> topology.merge(i.changeClass(), 1, Integer::sum));
        ClassDisagreement.between(topology, result).forEach((cls, n) -> disagreements.merge(cls, n, Integer::sum));
        return result;
    }

    /** The events the writer refused (PostgreSQL), matched back to their records by lineage. */
    private static void rejectRefused(EntitySpec entity, List<Item> items, ApplyResult result, List<SinkReject> rejects) {
        if (result.rejected().isEmpty()) {
            return;
        }
        Map<Source, Deque<ConsumerRecord<byte[], byte[]>>> bySource = new HashMap<>();
        for (Item i : items) {
            bySource.computeIfAbsent(i.event().source(), s -> new ArrayDeque<>()).add(i.record());
        }
        for (Rejection rej : result.rejected()) {
            Deque<ConsumerRecord<byte[], byte[]>> rs = bySource.get(rej.source());
            ConsumerRecord<byte[], byte[]> r = rs == null ? null : rs.poll();
            if (r == null) {
                throw new IllegalStateException("the writer rejected an event of " + rej.source()
                        + " that is not in the batch: " + rej.reason());
            }
            rejects.add(reject(entity, r, rej.reason(), rej.sqlState()));
        }
    }

    private static SinkReject reject(EntitySpec entity, ConsumerRecord<byte[], byte[]> r, String reason, String sqlState) {
        return new SinkReject(new PartitionRef(r.topic(), r.partition()), r.offset(), entity.name(), reason, sqlState, r.key(), r.value());
    }

    /** The end-of-slice marker of a record with the control header, or null with a reject noted. */
    private static SliceMarker decodeMarker(TopicPartition tp, EntitySpec entity, ConsumerRecord<byte[], byte[]> r, int partitions,
                                            List<SinkReject> rejects) {
        String kind = SliceMarker.controlKind(r.headers());
        if (!SliceMarker.END_OF_SLICE.equals(kind)) {
            rejects.add(reject(entity, r, "unknown control record kind " + SliceMarker.HEADER + "=" + kind + " (known: "
                    + SliceMarker.END_OF_SLICE + ", " + TruncateMarker.KIND + ")", null));
            return null;
        }
        SliceMarker m;
        try {
            m = SliceMarker.fromBytes(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(entity, r, e.getMessage(), null));
            return null;
        }
        if (!entity.name().equals(m.entity())) {
            rejects.add(reject(entity, r, "end-of-slice marker of entity '" + m.entity() + "' on the changes topic of entity '"
                    + entity.name() + "'", null));
            return null;
        }
        if (m.partition() != tp.partition() || m.partitions() != partitions) {
            rejects.add(reject(entity, r, "end-of-slice marker for partition " + m.partition() + " of " + m.partitions()
                    + " read from partition " + tp.partition() + " of " + (partitions > 0 ? partitions : "an unknown number of")
                    + " partitions: nothing deleted", null));
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
            result = result.plus(deleteLiveAt(c, tp, entity, t, offset, partitions, lineage, "slice " + t));
        }
        return result;
    }

    /**
     * A truncate of the source table ({@code on-truncate: delete-all}) reached this partition, after
     * every change before it on its source partition: each key of this partition live at its time
     * {@code t} gets a delete event at {@code t} through the writer, exactly as a slice with no rows
     * would ({@link SnapshotSlices#forEachLiveWithoutEventAt}); the deletes' lineage is the truncate's
     * source record, their arrival order the marker's offset.
     *
     * <p>A key with an event remembered at exactly {@code t} is left alone, as a slice leaves a key
     * it carried: that event is either the truncate's own delete, remembered (so the same truncate
     * re-delivered, or replayed, deletes nothing more), or a row written in the truncate's source
     * transaction ({@code TRUNCATE; INSERT ...} shares its commit time), which must survive the
     * truncate whether it reached this partition before the marker or after. The price: a row
     * written at {@code t} BEFORE the truncate in the same transaction ({@code INSERT ...; TRUNCATE})
     * survives it too. Keys are not re-judged when an older change reaches the partition after the
     * marker (possible only when the source topic has several partitions, across which Debezium
     * orders nothing): docs/formats.md says so.
     */
    private ApplyResult truncate(Connection c, TopicPartition tp, EntitySpec entity, TruncateMarker m, long offset, int partitions)
            throws SQLException {
        ApplyResult r = deleteLiveAt(c, tp, entity, m.time(), offset, partitions, m.source(), "truncate " + m.source() + " at " + m.time());
        LOG.info("{}: truncate {} at {} of {}: {} live keys of this partition deleted", tp, m.source(), m.time(), entity.name(),
                r.received());
        return r;
    }

    /**
     * Deletes, at {@code t}, each key of this partition live at {@code t} with no remembered event at
     * exactly {@code t}, through the writer (arrival order {@code seq}, lineage {@code lineage}).
     */
    private ApplyResult deleteLiveAt(Connection c, TopicPartition tp, EntitySpec entity, Instant t, long changesOffset, int partitions,
                                     Source lineage, String what) throws SQLException {
        long seq = ArrivalSeq.ofChangesOffset(changesOffset).value();
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
                deletes.add(Event.delete(t, data, seq, lineage));
            }
        });
        LOG.debug("{}: {} of {}: {} keys to delete", tp, what, entity.name(), deletes.size());
        if (deletes.isEmpty()) {
            return ApplyResult.empty();
        }
        ApplyResult r = writer.apply(c, entity, deletes);
        if (!r.rejected().isEmpty()) {
            throw new IllegalStateException("the writer refused a delete made for " + what + " of " + entity.name()
                    + ": " + r.rejected().get(0).reason());
        }
        return r;
    }

    /** The truncate marker of a record with the truncate header, or null with a reject noted. */
    private static TruncateMarker decodeTruncate(TopicPartition tp, EntitySpec entity, ConsumerRecord<byte[], byte[]> r, int partitions,
                                                 List<SinkReject> rejects) {
        TruncateMarker m;
        try {
            m = TruncateMarker.fromBytes(r.value());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(entity, r, e.getMessage(), null));
            return null;
        }
        if (!entity.name().equals(m.entity())) {
            rejects.add(reject(entity, r, "truncate marker of entity '" + m.entity() + "' on the changes topic of entity '"
                    + entity.name() + "'", null));
            return null;
        }
        if (partitions < 1 || (m.partition().isPresent() && m.partition().getAsInt() != tp.partition())) {
            rejects.add(reject(entity, r, "truncate marker for partition " + m.partition() + " read from partition " + tp.partition()
                    + " of " + (partitions > 0 ? partitions : "an unknown number of") + " partitions: nothing deleted", null));
            return null;
        }
        return m;
    }

    /**
     * The typed event of a change record, or null with a reject noted: the typed form of the entity's
     * shape as written (validated once, by the topology); the older form, or another shape, through
     * {@code validator[0]} (made here when first needed), as before the typed form.
     */
    private static Item toTypedEvent(EntitySpec entity, TypedEventCodec codec, EventValidator[] validator,
                                     ConsumerRecord<byte[], byte[]> r, List<SinkReject> rejects, Map<String, Integer> validated) {
        if (r.value() == null) {
            rejects.add(reject(entity, r, "null value: a changes topic carries no tombstones", null));
            return null;
        }
        ChangeCodec.SinkChange change;
        try {
            change = ChangeCodec.toSinkChange(r.value(), codec, r.offset());
        } catch (IllegalArgumentException e) {
            rejects.add(reject(entity, r, reason(e), null));
            return null;
        }
        if (!entity.name().equals(change.entity())) {
            rejects.add(reject(entity, r, "change of entity '" + change.entity() + "' on the changes topic of entity '"
                    + entity.name() + "'", null));
            return null;
        }
        if (change.typed() != null) {
            return new Item(r, change.typed(), change.changeClass());
        }
        if (change.validatedBecause() != null) {
            validated.merge(change.validatedBecause(), 1, Integer::sum);
        }
        if (validator[0] == null) {
            validator[0] = new EventValidator(entity);
        }
        EventValidator.Result v = validator[0].validate(change.untyped());
        if (!v.ok()) {
            rejects.add(reject(entity, r, v.rejection().reason(), null));
            return null;
        }
        return new Item(r, v.event(), change.changeClass());
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
