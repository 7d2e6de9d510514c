package io.dimstream.app.replay;

import io.dimstream.app.decode.Decoded;
import io.dimstream.app.decode.NewFields;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.apply.Prepared;
import io.dimstream.db.apply.Step;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One poll of a replay job as a batch of the one apply pipeline: each source record decoded with the
 * entity's own decoder (undecodable ones are rejects, not re-sent to the DLQ), in read order, into
 * events and, for a Debezium truncate with {@code on-truncate: delete-all}, a
 * {@link Step.DeleteLiveAt} over the whole table (a repair's keys only) at the truncate's time; a
 * snapshot feed's slices completed by the poll are judged after its rows ({@link SnapshotReplay}).
 * Exact repeats within the poll (a producer retry: same op, event time and data) are dropped keeping
 * the first arrival, as the topology's dedup does (the writer would let the later copy win, which
 * changes no version but would stamp the later offset as its lineage); a repeat shares its first
 * copy's fate when the writer refuses it.
 */
final class ReplayPoll implements Prepared {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayPoll.class);

    private final String entity;
    private final String topic;
    private final List<Step> steps;
    private final List<SinkReject> rejects;
    private final Map<Source, ConsumerRecord<byte[], byte[]>> bySource;
    private final Map<Source, List<Source>> repeats;
    private final Map<Integer, Long> moved;
    private final SnapshotReplay slices;

    private ReplayPoll(String entity, String topic, List<Step> steps, List<SinkReject> rejects,
                       Map<Source, ConsumerRecord<byte[], byte[]>> bySource, Map<Source, List<Source>> repeats, Map<Integer, Long> moved,
                       SnapshotReplay slices) {
        this.entity = entity;
        this.topic = topic;
        this.steps = steps;
        this.rejects = rejects;
        this.bySource = bySource;
        this.repeats = repeats;
        this.moved = moved;
        this.slices = slices;
    }

    /**
     * The poll's batch.
     *
     * @param records the records read in the job's range, in read order
     * @param moved   the partitions whose position the poll moved, and to where
     * @param keys    a repair's keys (only their events are applied; a truncate deletes among them), or null
     * @param setAside records (partition, offset) the live path quarantined and no user applied: left out
     *                (a repair places its events with the lateness horizon lifted, and must not reverse those decisions)
     * @param slices  a snapshot feed's slice side, or null
     */
    static ReplayPoll of(EntityPipeline pipeline, List<ConsumerRecord<byte[], byte[]>> records, Map<Integer, Long> moved, ReplayKeys keys,
                         Set<List<Long>> setAside, SnapshotReplay slices) {
        EntitySpec spec = pipeline.entity();
        List<Step> steps = new ArrayList<>();
        List<SinkReject> rejects = new ArrayList<>();
        Map<Source, ConsumerRecord<byte[], byte[]>> bySource = new HashMap<>();
        List<Event> events = new ArrayList<>();
        List<Event> rows = new ArrayList<>();
        String topic = null;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            topic = r.topic();
            if (slices != null && slices.control(r, rejects)) {
                continue;
            }
            Decoded d = decode(pipeline, r);
            if (d instanceof Decoded.Ok ok) {
                // the live path's decode step carries on the columns added while running that a record
                // lacks (NewFields); a replay makes the same decisions
                Event e = pipeline.addsColumns() ? NewFields.carryOn(spec, ok.event()) : ok.event();
                Event read = new Event(e.op(), e.eventTime(), e.data(), ArrivalSeq.ofReplay(r.offset()).value(), e.source(), e.badTimeReason());
                rows.add(read);
                bySource.put(e.source(), r);
                if ((keys == null || keys.matches(spec, e.data())) && !setAside.contains(List.of((long) r.partition(), r.offset()))) {
                    events.add(read);
                }
            } else if (d instanceof Decoded.Truncated t) {
                // applied in read order: after the events read before it, before those read after it
                steps.add(new Step.Events(events));
                events = new ArrayList<>();
                Step.KeyFilter only = keys == null ? Step.KeyFilter.ALL : (shape, key) -> keys.matches(shape, shape.keyData(key));
                steps.add(new Step.DeleteLiveAt(Step.LiveAt.at(t.time()), ArrivalSeq.ofReplay(r.offset()).value(), t.source(), only,
                        "replay of truncate " + t.source() + " at " + t.time()));
            } else if (d instanceof Decoded.Failed f) {
                LOG.debug("replay of {}-{}@{}: undecodable: {}", r.topic(), r.partition(), r.offset(), f.reason());
                rejects.add(new SinkReject(new PartitionRef(r.topic(), r.partition()), r.offset(), spec.name(), f.reason(), null, r.key(),
                        r.value()));
            }
        }
        steps.add(new Step.Events(events));
        if (slices != null) {
            slices.prepare(rows);
            Step.DeleteLiveAt judged = slices.judgement();
            if (judged != null) {
                steps.add(judged);
            }
        }
        Map<Source, List<Source>> repeats = new HashMap<>();
        List<Step> deduped = steps.stream()
                .map(st -> st instanceof Step.Events ev ? new Step.Events(withoutExactDuplicates(ev.events(), repeats)) : st).toList();
        return new ReplayPoll(spec.name(), topic, deduped, rejects, bySource, repeats, Map.copyOf(moved), slices);
    }

    private static Decoded decode(EntityPipeline pipeline, ConsumerRecord<byte[], byte[]> r) {
        try {
            return pipeline.decoder().decode(r.key(), r.value(), r.timestamp(), r.topic(), r.partition(), r.offset());
        } catch (RuntimeException e) {
            return Decoded.error("decoder failed: " + e);
        }
    }

    /** Whether the poll writes the table: events, a truncate, or a slice to judge. */
    boolean writes() {
        return steps.stream().anyMatch(st -> !(st instanceof Step.Events ev) || !ev.events().isEmpty());
    }

    @Override
    public List<Step> steps() {
        return steps;
    }

    @Override
    public List<SinkReject> rejects() {
        return rejects;
    }

    @Override
    public List<SinkReject> refused(Rejection rejection) {
        List<Source> refused = new ArrayList<>();
        refused.add(rejection.source());
        refused.addAll(repeats.getOrDefault(rejection.source(), List.of()));
        List<SinkReject> out = new ArrayList<>();
        for (Source src : refused) {
            ConsumerRecord<byte[], byte[]> rec = bySource.get(src);
            out.add(new SinkReject(new PartitionRef(rec == null ? topic : rec.topic(), rec == null ? -1 : rec.partition()),
                    rec == null ? -1 : rec.offset(), entity, rejection.reason(), rejection.sqlState(), rec == null ? null : rec.key(),
                    rec == null ? null : rec.value()));
        }
        return out;
    }

    /** The partitions the poll moved, and to where. */
    Map<Integer, Long> moved() {
        return moved;
    }

    /** Stores what the poll read of a snapshot feed's slices, in its transaction. */
    void saveSlices(Connection c) throws SQLException {
        if (slices != null) {
            slices.save(c);
        }
    }

    /**
     * Drops a repeat of an event already in the list (same op, event time and data), keeping the
     * first arrival, and notes in {@code repeats} the lineage of each dropped repeat under its kept
     * first copy's. Across polls the writer finds the copy remembered and changes nothing.
     */
    static List<Event> withoutExactDuplicates(List<Event> events, Map<Source, List<Source>> repeats) {
        Map<List<Object>, Event> first = new LinkedHashMap<>();
        for (Event e : events) {
            Event kept = first.putIfAbsent(Arrays.asList(e.op(), e.eventTime(), byContent(e.data())), e);
            if (kept != null && kept.source() != null && e.source() != null) {
                repeats.computeIfAbsent(kept.source(), k -> new ArrayList<>()).add(e.source());
            }
        }
        return first.size() == events.size() ? events : List.copyOf(first.values());
    }

    /** The data with bytes (a Debezium bytes column's byte[], equal by identity only) wrapped to compare by content. */
    private static Map<String, Object> byContent(Map<String, Object> data) {
        if (data.values().stream().noneMatch(v -> v instanceof byte[])) {
            return data;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        data.forEach((k, v) -> m.put(k, v instanceof byte[] b ? ByteBuffer.wrap(b) : v));
        return m;
    }
}
