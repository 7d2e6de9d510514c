package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.db.entity.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classifies each event of a key against the key's {@link KeyState} and emits it as a
 * {@link io.dimstream.app.change.ChangeRecord} (ChangeCodec bytes, keyed by the business key):
 * <ul>
 *   <li>an exact duplicate (same event time and content as a remembered event) is dropped and counted;</li>
 *   <li>a key never seen: NEW for an upsert, DELETED for a delete;</li>
 *   <li>older than the key's newest event: LATE (the newest state stays);</li>
 *   <li>otherwise against the newest state: CHANGED (other hash, or an upsert after a delete),
 *       DELETED (a delete after an upsert), UNCHANGED (same hash, or a delete after a delete).</li>
 * </ul>
 * Of two events with the same time the later arrival becomes the newest (DESIGN section 3).
 */
final class ClassifyProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private static final Logger LOG = LoggerFactory.getLogger(ClassifyProcessor.class);

    private final String storeName;
    private final String sliceStoreName;
    private final boolean repartitioned;
    private final EventCounters counters;
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<byte[], byte[]> store;
    private KeyValueStore<byte[], byte[]> slices;

    /**
     * @param sliceStoreName the store of {@link SliceBarrier}s (snapshot entities), or null
     * @param repartitioned  whether the task reads the repartition topic (by business key), so its
     *                       keys are exactly those of the changes partition of its number; false
     *                       with {@code partitioned-by-key: true}
     */
    ClassifyProcessor(String storeName, String sliceStoreName, boolean repartitioned, EventCounters counters) {
        this.storeName = storeName;
        this.sliceStoreName = sliceStoreName;
        this.repartitioned = repartitioned;
        this.counters = counters;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.store = context.getStateStore(storeName);
        this.slices = sliceStoreName == null ? null : context.getStateStore(sliceStoreName);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (TruncateMarker.is(record.headers())) {
            truncate(record);
            return;
        }
        if (SliceMarker.isControl(record.headers())) {
            endOfSlice(record);
            return;
        }
        PendingChange pending = PendingChange.fromBytes(record.value());
        byte[] stored = store.get(record.key());
        KeyState state = stored == null ? null : KeyState.fromBytes(stored);
        KeyState.Fingerprint fp = new KeyState.Fingerprint(pending.eventMicros(), pending.contentFingerprint());
        if (state != null && state.remembers(fp)) {
            counters.count(EventCounters.DUPLICATE);
            return;
        }
        ChangeClass cls;
        KeyState next;
        if (state == null) {
            cls = pending.delete() ? ChangeClass.DELETED : ChangeClass.NEW;
            next = new KeyState(fp.eventMicros(), pending.trackedHash(), List.of(fp));
        } else if (fp.eventMicros() < state.newestMicros()) {
            cls = ChangeClass.LATE;
            next = state.remember(fp);
        } else {
            cls = against(state, pending);
            next = state.advance(fp, pending.trackedHash());
        }
        store.put(record.key(), next.toBytes());
        counters.count(cls.name());
        context.forward(record.withValue(pending.classified(cls)).withHeaders(new RecordHeaders()));
    }

    /**
     * An end-of-slice marker from one source partition (the decode step checked it). Once every
     * source partition's marker of the slice has reached this task, every slice record this task
     * will ever see of that slice has been forwarded before, so the task emits one marker to its
     * own changes partition ({@link SlicePartitioners#changes()}) and forgets the slice.
     */
    private void endOfSlice(Record<byte[], byte[]> record) {
        if (slices == null) {
            throw new IllegalStateException("end-of-slice marker reached the classifier of an entity that is not mode: snapshot");
        }
        SliceMarker m = SliceMarker.fromBytes(record.value());
        int task = context.recordMetadata().map(md -> md.partition()).orElseThrow(() ->
                new IllegalStateException("end-of-slice marker without record metadata"));
        byte[] key = ColumnType.CANONICAL_TIMESTAMP.format(m.slice()).getBytes(StandardCharsets.UTF_8);
        byte[] stored = slices.get(key);
        SliceBarrier b = stored == null ? null : SliceBarrier.fromBytes(stored);
        if (b == null || b.partitions() != m.partitions()) {
            if (b != null) {
                LOG.warn("end-of-slice markers of {} slice {} disagree on the partition count ({} then {}); counting again",
                        m.entity(), m.slice(), b.partitions(), m.partitions());
            }
            b = SliceBarrier.empty(m.partitions());
        }
        b = b.with(m.partition());
        if (!b.complete()) {
            slices.put(key, b.toBytes());
            return;
        }
        slices.delete(key);
        SliceMarker out = m.onPartition(task, m.partitions());
        context.forward(record.withKey(key).withValue(out.toBytes()).withHeaders(SliceMarker.mark(new RecordHeaders())));
    }

    /**
     * A truncate of the source table ({@code on-truncate: delete-all}), which the decode step turned
     * into a marker. Behind the repartition step every task gets it (multicast), after the events
     * its source partition held before it, and writes it to its own changes partition, where exactly
     * its keys go. Without that step only the task of the truncate's source partition sees it; its
     * keys may go to any changes partition, so it writes the marker for all of them
     * ({@link SlicePartitioners#changes()}). Not counted here: the decode step counted its record.
     */
    private void truncate(Record<byte[], byte[]> record) {
        TruncateMarker m = TruncateMarker.fromBytes(record.value());
        if (repartitioned) {
            int task = context.recordMetadata().map(md -> md.partition()).orElseThrow(() ->
                    new IllegalStateException("truncate marker without record metadata"));
            m = m.forPartition(task);
        }
        context.forward(record.withValue(m.toBytes()).withHeaders(TruncateMarker.mark(new RecordHeaders())));
    }

    private static ChangeClass against(KeyState newest, PendingChange e) {
        if (newest.newestDeleted()) {
            return e.delete() ? ChangeClass.UNCHANGED : ChangeClass.CHANGED;
        }
        if (e.delete()) {
            return ChangeClass.DELETED;
        }
        return Arrays.equals(newest.newestHash(), e.trackedHash()) ? ChangeClass.UNCHANGED : ChangeClass.CHANGED;
    }
}
