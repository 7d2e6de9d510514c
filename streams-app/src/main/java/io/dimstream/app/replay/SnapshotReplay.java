package io.dimstream.app.replay;

import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.apply.Step;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplaySlices;
import io.dimstream.db.jobs.ReplaySlices.Part;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slice side of a replay job of a {@code mode: snapshot} entity: which slices the job's range
 * holds whole, and the deletions by absence of those slices, applied in the job's batch
 * transactions. {@link ReplayWorker} reads and applies the slice rows as any events (upserts at
 * the slice's instant, through the writer); this class takes the end-of-slice markers out of the
 * read records and, once a slice is complete in the range, judges it (and every complete slice
 * after it) exactly as {@code dimstream load --slice-at} does (a {@link Step.DeleteLiveAt} of the batch).
 *
 * <p><b>When a slice is complete in the range.</b> The source topic holds, on each partition
 * {@code p}, a slice's rows then its marker {@code marker(t, p)}; a marker names the topic's
 * partition count {@code n}. A slice {@code t} deletes keys only when, for every partition
 * {@code 0..n-1}, its marker was read in the range AND none of its rows on that partition can lie
 * before the range's start: its first record there (a row, or the marker when it has no row
 * there) was read after a <i>boundary</i>, i.e. the range on that partition starts at offset 0,
 * or an end-of-slice marker (of another slice) was read on it earlier in the range. This assumes
 * what {@code publish-snapshot} does: one slice's rows and markers are written before the next
 * slice's rows (slices published concurrently to one partition can hide a cut). A slice cut by
 * the range's start, whose markers are not all in the range (the end offsets were taken before
 * they came, or a partition is not in the range) or that never got them, deletes nothing: its rows
 * in the range are applied as upserts at {@code t} (what they say is true), as the live sink does
 * with a slice whose markers never came.
 *
 * <p><b>Which slices are judged.</b> A live job records each slice complete under
 * {@link SnapshotSlices#LOADED} and judges it and every complete slice of the entity after it
 * ({@link SnapshotSlices#completeLoaded}), for every key, as a load does. A shadow job judges the
 * slices its own range completed from {@code t} on (the entity's recorded slices describe the live
 * table) and records them for the entity only in the swap's transaction (ShadowTables.swap, from ReplaySlices),
 * so the live sink's later judgements include them only once the shadow is the table. Deletes
 * lose every tie ({@code ArrivalSeq.LOADED_ABSENCE}: a straggler row of {@code t} read later wins)
 * and carry the completing marker's place in the source topic as lineage. Judging a slice whose
 * deletes are remembered finds nothing, so a replay of the same range again changes nothing.
 *
 * <p><b>Resume.</b> What the job has read of each slice per partition ({@link ReplaySlices},
 * {@code dimstream.replay_slices}) is written in the batch's transaction with its positions and
 * rows; a resumed job loads it and goes on exactly. A slice whose rows were partly applied when the
 * job stopped is completed by the batches after the resume, its first batches' rows being in the
 * table already.
 *
 * <p>Memory: per slice and partition one small entry; the absent keys of one judged slice at a time.
 * Not thread-safe: one job on the worker's thread.
 */
final class SnapshotReplay {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReplay.class);
    private static final Comparator<Key> ORDER = Comparator.comparing(Key::slice).thenComparingInt(Key::partition);

    private record Key(Instant slice, int partition) {
    }

    /** An end-of-slice marker read in the current poll, checked. */
    private record Mark(int partition, long offset, SliceMarker marker) {
    }

    private final ReplayJob job;
    private final Map<Integer, Long> starts = new HashMap<>();
    /** What the committed batches read. */
    private TreeMap<Key, Part> parts = new TreeMap<>(ORDER);
    /** The markers of the poll being read. */
    private final List<Mark> marks = new ArrayList<>();
    /** The state once the pending batch commits ({@link #prepare}), with its changed parts and the slices it completes. */
    private TreeMap<Key, Part> next;
    private final Map<Key, Part> changed = new HashMap<>();
    private final TreeMap<Instant, Mark> completing = new TreeMap<>();

    private SnapshotReplay(ReplayJob job) {
        this.job = job;
    }

    /** The job's slice state as its committed batches left it ({@code progress}: the job's stored range). */
    static SnapshotReplay resume(DataSource ds, ReplayJob job, List<PartitionProgress> progress) throws SQLException {
        SnapshotReplay s = new SnapshotReplay(job);
        progress.forEach(p -> s.starts.put(p.partition(), p.startOffset()));
        for (Part p : Transactions.inTransaction(ds, c -> ReplaySlices.load(c, job.id()))) {
            s.parts.put(new Key(p.slice(), p.partition()), p);
        }
        long complete = s.parts.keySet().stream().map(Key::slice).distinct().filter(t -> s.complete(s.parts, t)).count();
        if (!s.parts.isEmpty()) {
            LOG.info("replay job {}: resumed with {} slices seen, {} complete", job.id(),
                    s.parts.keySet().stream().map(Key::slice).distinct().count(), complete);
        }
        return s;
    }

    /**
     * Takes a control record out of the read records: an end-of-slice marker is kept for this
     * poll's batch, a bad one (another entity, another partition, unreadable, unknown kind) becomes
     * a reject, as the topology dead-letters it.
     *
     * @return whether {@code r} is a control record (then it is no event)
     */
    boolean control(ConsumerRecord<byte[], byte[]> r, List<SinkReject> rejects) {
        if (!SliceMarker.isControl(r.headers())) {
            return false;
        }
        String bad;
        SliceMarker m = null;
        try {
            String kind = SliceMarker.controlKind(r.headers());
            bad = SliceMarker.END_OF_SLICE.equals(kind) ? null
                    : "unknown control record kind " + SliceMarker.HEADER + "=" + kind + " (known: " + SliceMarker.END_OF_SLICE + ")";
        } catch (IllegalArgumentException e) {
            bad = e.getMessage(); // the header is not text: refused as the topology dead-letters it
        }
        if (bad == null) {
            try {
                m = SliceMarker.fromBytes(r.value());
                if (!m.entity().equals(job.entity())) {
                    bad = "end-of-slice marker of entity '" + m.entity() + "' on the topic of entity '" + job.entity() + "'";
                } else if (m.partition() != r.partition()) {
                    bad = "end-of-slice marker says partition " + m.partition() + " but is on partition " + r.partition();
                }
            } catch (IllegalArgumentException e) {
                bad = e.getMessage();
            }
        }
        if (bad != null) {
            rejects.add(new SinkReject(new PartitionRef(r.topic(), r.partition()), r.offset(), job.entity(), bad, null, r.key(), r.value()));
        } else {
            marks.add(new Mark(r.partition(), r.offset(), m));
        }
        return true;
    }

    /**
     * Computes what the poll's batch does to the slices: {@code rows} are its decoded slice rows
     * (each at its slice's instant, with its source partition and offset), the markers those
     * {@link #control} kept. Called once per batch, before {@link #judgement}; the state moves only at
     * {@link #committed}.
     */
    void prepare(List<Event> rows) {
        next = new TreeMap<>(parts);
        changed.clear();
        completing.clear();
        // per partition in offset order: a boundary is a marker read before
        record Read(int partition, long offset, Instant slice, Mark mark) {
        }
        List<Read> reads = new ArrayList<>();
        for (Event e : rows) {
            if (e.source() != null && e.source().partition() != null && e.source().offset() != null) {
                reads.add(new Read(e.source().partition(), e.source().offset(), e.eventTime(), null));
            }
        }
        marks.forEach(m -> reads.add(new Read(m.partition(), m.offset(), m.marker().slice(), m)));
        marks.clear();
        reads.sort(Comparator.comparingInt(Read::partition).thenComparingLong(Read::offset));
        for (Read r : reads) {
            Key k = new Key(r.slice(), r.partition());
            Part part = next.get(k);
            if (part == null) {
                part = new Part(r.slice(), r.partition(), boundary(next, r.partition()), null, null);
            }
            if (r.mark() != null && !part.marked()) {
                part = part.withMarker(r.offset(), r.mark().marker().partitions());
                put(k, part);
                if (complete(next, r.slice())) {
                    completing.put(r.slice(), r.mark());
                }
            } else if (!next.containsKey(k)) {
                put(k, part);
            }
        }
    }

    private void put(Key k, Part p) {
        next.put(k, p);
        changed.put(k, p);
    }

    /** Whether the batches read so far make the start of a slice's records on {@code partition} whole. */
    private boolean boundary(TreeMap<Key, Part> state, int partition) {
        return starts.getOrDefault(partition, -1L) == 0 || state.values().stream().anyMatch(p -> p.partition() == partition && p.marked());
    }

    /** Whether slice {@code t} is complete in the range: whole and marked on each of the partitions its markers name. */
    private boolean complete(TreeMap<Key, Part> state, Instant t) {
        return ReplaySlices.complete(state.subMap(new Key(t, Integer.MIN_VALUE), true, new Key(t, Integer.MAX_VALUE), true).values(), t);
    }

    /** Whether the pending batch completes a slice (its transaction then writes the target table even without events). */
    boolean judges() {
        return !completing.isEmpty();
    }

    /** In the batch's transaction: stores what the batch read of the slices (a resumed job goes on from it). */
    void save(Connection c) throws SQLException {
        if (next != null) {
            ReplaySlices.save(c, job.id(), changed.values());
        }
    }

    /**
     * The batch's deletions by absence, judged in its transaction after its rows (see the class
     * notes), or null when it completes no slice: a live job records each completed slice for the
     * entity and judges it and every complete slice after it; a shadow job judges the slices its own
     * range completed from the first one on. Deletes lose every tie ({@link ArrivalSeq#LOADED_ABSENCE})
     * and carry the completing marker's place as lineage.
     */
    Step.DeleteLiveAt judgement() {
        if (next == null || completing.isEmpty()) {
            return null;
        }
        Instant first = completing.firstKey();
        Mark by = completing.firstEntry().getValue();
        List<Instant> slices = List.copyOf(completing.keySet());
        TreeMap<Key, Part> state = next;
        Step.LiveAt when = c -> {
            TreeSet<Instant> judged = new TreeSet<>();
            if (job.target() == ReplayTarget.LIVE) {
                for (Instant t : slices) {
                    judged.addAll(SnapshotSlices.completeLoaded(c, job.entity(), t));
                }
            } else {
                state.keySet().stream().map(Key::slice).filter(t -> !t.isBefore(first)).distinct().filter(t -> complete(state, t))
                        .forEach(judged::add);
            }
            LOG.info("replay job {}: slices {} complete in the range; judging {}", job.id(), slices, judged);
            return List.copyOf(judged);
        };
        return new Step.DeleteLiveAt(when, ArrivalSeq.LOADED_ABSENCE, Source.kafka(job.topic(), by.partition(), by.offset()),
                Step.KeyFilter.ALL, "replay job " + job.id() + "'s slices");
    }

    /** The pending batch committed. */
    void committed() {
        if (next != null) {
            parts = next;
            next = null;
            changed.clear();
            completing.clear();
        }
    }

}
