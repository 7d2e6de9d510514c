package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.Unchanged;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * DESIGN section 3 for one entity, written as plainly as possible, with no SQL and no writer code.
 * The writer's table must equal {@link #rows} for the same events, whatever order and batching
 * they were delivered in (lateness horizon unlimited).
 *
 * <p>Per key: keep one event per event time (of two, the higher {@code seq}, i.e. the later
 * arrival, replaces the other entirely); order by event time; state is DELETED or UPSERT(hash);
 * each run of equal states is one version starting at the run's first event. An upsert run's row
 * has the run's tracked values and the type-1 values of its last event. A delete run after an
 * upsert run is an {@code is_deleted} row carrying the previous row's attributes and hash; a delete
 * run with nothing before it leaves no row. {@code valid_to} is the next row's {@code valid_from}.
 *
 * <p>An attribute the source did not send ({@link Unchanged}) takes the value of the key's event
 * before it among the events that arrived before it (list order), as the writer resolves it.
 *
 * <p>Events are typed and hashed by {@link EventValidator} (so model and writer agree on coercion);
 * events it rejects are not part of any history and are ignored here.
 *
 * <p>{@link #inArrivalOrder} adds the entity's finite lateness horizon, which makes the result depend
 * on arrival order: the events are taken one at a time, in the order given, as the writer applying
 * each alone would. An event older than its key's newest applied event time by more than the horizon
 * is quarantined, not applied (and so never raises the newest); an event that repeats the event
 * remembered at its key and time (same content, or not a later arrival) is a duplicate, judged
 * first, whatever the horizon. It also counts each event's class as the writer reports it. The
 * writer must give the same table, quarantine and counts whatever batches the events come in.
 */
public final class ReferenceModel {

    private final EntitySpec spec;
    private final EventValidator validator;

    public ReferenceModel(EntitySpec spec) {
        this.spec = spec;
        this.validator = new EventValidator(spec);
    }

    /**
     * @param events in arrival order; {@code seq} is the arrival rank (equal seq means the same
     *               event delivered again)
     * @return the rows the table must hold, ordered by key, then valid_from
     */
    public List<ExpectedRow> rows(List<Event> events) {
        Map<List<Object>, TreeMap<Instant, TypedEvent>> timelines = new HashMap<>();
        for (Event e : events) {
            EventValidator.Result r = validator.validate(e);
            if (!r.ok()) {
                continue;
            }
            TypedEvent t = r.event();
            TreeMap<Instant, TypedEvent> timeline = timelines.computeIfAbsent(keyOf(t), k -> new TreeMap<>());
            if (t.partial()) {
                t = resolved(t, timeline);
            }
            timeline.merge(t.eventTime(), t, ReferenceModel::laterArrival);
        }
        List<ExpectedRow> rows = new ArrayList<>();
        for (TreeMap<Instant, TypedEvent> timeline : timelines.values()) {
            rows.addAll(history(new ArrayList<>(timeline.values())));
        }
        rows.sort(order(spec));
        return rows;
    }

    /**
     * The events' classes as the writer counts them ({@link ApplyResult}): each applied event is
     * late (older than its key's newest event at its arrival) or, against the key's event just before
     * it at its arrival, new, changed, deleted or unchanged.
     */
    public record Counts(int newKeys, int changed, int deleted, int unchanged, int late, int duplicates, int quarantined) {

        /** The same classes of a writer's result. */
        public static Counts of(ApplyResult r) {
            return new Counts(r.newKeys(), r.changed(), r.deleted(), r.unchanged(), r.late(), r.duplicates(), r.quarantined());
        }
    }

    /**
     * A row of {@code dimstream.quarantine} for a lateness-horizon event: its key (each key column's
     * canonical text), its time and arrival ({@code seq}), and its key's newest event time at its
     * arrival (the reason names it).
     */
    public record Quarantined(List<String> key, Instant eventTime, long seq, Instant newest) {
    }

    /** The table, the quarantine (ordered by key, time, seq) and the counts of events taken in arrival order. */
    public record Outcome(List<ExpectedRow> rows, List<Quarantined> quarantine, Counts counts) {
    }

    /**
     * The events taken one at a time in the order given (their arrival order; a re-delivery keeps
     * its {@code seq}), with the entity's lateness horizon (see the class comment). The quarantine
     * keeps one row per source record, as the writer does: per Kafka record (topic, partition,
     * offset) or, for an event with no partition (a file's line), per content; an event judged
     * beyond the horizon counts as quarantined either way. No pruning: no prune point quarantines.
     */
    public Outcome inArrivalOrder(List<Event> events) {
        Duration horizon = spec.latenessHorizon().orElse(null);
        Map<List<Object>, TreeMap<Instant, TypedEvent>> timelines = new HashMap<>();
        int[] classes = new int[7]; // newKeys, changed, deleted, unchanged, late, duplicates, quarantined
        Map<List<Object>, Quarantined> quarantine = new LinkedHashMap<>();
        for (Event e : events) {
            EventValidator.Result r = validator.validate(e);
            if (!r.ok()) {
                continue;
            }
            TypedEvent t = r.event();
            TreeMap<Instant, TypedEvent> timeline = timelines.computeIfAbsent(keyOf(t), k -> new TreeMap<>());
            if (t.partial()) {
                t = resolved(t, timeline);
            }
            TypedEvent same = timeline.get(t.eventTime());
            Instant newest = timeline.isEmpty() ? null : timeline.lastKey();
            if (same != null && !(t.seq() > same.seq() && !sameContent(t, same))) {
                classes[5]++;
                if (t.seq() > same.seq()) { // the later arrival of the same content is the one a same-time event must beat
                    timeline.put(t.eventTime(), new TypedEvent(same.delete(), same.eventTime(), same.values(), same.hash(), t.seq(), same.source()));
                }
                continue;
            }
            if (horizon != null && newest != null && t.eventTime().isBefore(newest.minus(horizon))) {
                classes[6]++;
                quarantine.putIfAbsent(recordOf(t), new Quarantined(keyText(t), t.eventTime(), t.seq(), newest));
                continue;
            }
            if (newest != null && t.eventTime().isBefore(newest)) {
                classes[4]++;
            } else {
                Map.Entry<Instant, TypedEvent> before = timeline.lowerEntry(t.eventTime());
                classes[classOf(t, before == null ? null : before.getValue())]++;
            }
            timeline.put(t.eventTime(), t);
        }
        List<ExpectedRow> rows = new ArrayList<>();
        for (TreeMap<Instant, TypedEvent> timeline : timelines.values()) {
            rows.addAll(history(new ArrayList<>(timeline.values())));
        }
        rows.sort(order(spec));
        List<Quarantined> kept = new ArrayList<>(quarantine.values());
        kept.sort(QUARANTINE_ORDER);
        return new Outcome(rows, kept, new Counts(classes[0], classes[1], classes[2], classes[3], classes[4], classes[5], classes[6]));
    }

    /** Key text, then event time, then seq. */
    public static final Comparator<Quarantined> QUARANTINE_ORDER = Comparator.comparing(Quarantined::key, ReferenceModel::compareTexts)
            .thenComparing(Quarantined::eventTime).thenComparingLong(Quarantined::seq);

    private static int compareTexts(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** 0 new, 1 changed, 2 deleted, 3 unchanged: the event against the key's event just before it (null: none). */
    private static int classOf(TypedEvent e, TypedEvent before) {
        if (before == null) {
            return e.delete() ? 2 : 0;
        }
        if (e.delete()) {
            return before.delete() ? 3 : 2;
        }
        return !before.delete() && Arrays.equals(before.hash(), e.hash()) ? 3 : 1;
    }

    /** What the writer compares to call a same-time event a repeat: delete or not, hash, type-1 values. */
    private boolean sameContent(TypedEvent a, TypedEvent b) {
        return a.delete() == b.delete() && Arrays.equals(a.hash(), b.hash()) && type1Of(a).equals(type1Of(b));
    }

    /** The identity the quarantine keeps one row per (V011): the Kafka record, or the content of a record without one. */
    private List<Object> recordOf(TypedEvent e) {
        List<Object> id = new ArrayList<>(keyOf(e));
        id.add(e.eventTime());
        Source s = e.source();
        if (s != null && s.partition() != null) {
            id.addAll(Arrays.asList(s.topic(), s.partition(), s.offset()));
        } else {
            id.add(e.delete());
            id.add(e.delete() ? List.of() : new ArrayList<>(e.values()));
        }
        return id;
    }

    private List<String> keyText(TypedEvent e) {
        List<String> key = new ArrayList<>();
        for (int i = 0; i < spec.key().size(); i++) {
            key.add(spec.type(spec.key().get(i)).canonical(e.values().get(i)));
        }
        return key;
    }

    /** Rows of one key from its events, one per event time, ordered by event time. */
    private List<ExpectedRow> history(List<TypedEvent> ordered) {
        List<List<TypedEvent>> runs = new ArrayList<>();
        for (TypedEvent e : ordered) {
            List<TypedEvent> last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (last != null && state(last.get(0)).equals(state(e))) {
                last.add(e);
            } else {
                List<TypedEvent> run = new ArrayList<>();
                run.add(e);
                runs.add(run);
            }
        }
        Map<String, Object> key = keyMap(ordered.get(0));
        List<ExpectedRow> rows = new ArrayList<>();
        for (List<TypedEvent> run : runs) {
            TypedEvent first = run.get(0);
            TypedEvent last = run.get(run.size() - 1);
            if (first.delete()) {
                if (rows.isEmpty()) {
                    continue; // a delete with no earlier version leaves no row
                }
                ExpectedRow prev = rows.get(rows.size() - 1);
                rows.add(new ExpectedRow(key, prev.attrs(), first.eventTime(), null, false, true, prev.hashHex()));
            } else {
                Map<String, Object> attrs = new LinkedHashMap<>();
                Map<String, Object> tracked = trackedOf(first);
                for (TypedEvent e : run) {
                    if (!trackedOf(e).equals(tracked)) {
                        throw new IllegalStateException("events of one run differ in tracked values: " + tracked + " vs " + trackedOf(e));
                    }
                }
                attrs.putAll(tracked);
                attrs.putAll(type1Of(last));
                rows.add(new ExpectedRow(key, attrs, first.eventTime(), null, false, false, RecordHash.hex(first.hash())));
            }
        }
        List<ExpectedRow> closed = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            ExpectedRow r = rows.get(i);
            Instant validTo = i + 1 < rows.size() ? rows.get(i + 1).validFrom() : null;
            closed.add(new ExpectedRow(r.key(), r.attrs(), r.validFrom(), validTo, validTo == null && !r.deleted(), r.deleted(), r.hashHex()));
        }
        return closed;
    }

    /**
     * An event with unchanged values ({@link Unchanged}), each taken from the key's event before it
     * among those that arrived before it: the one at the same time if it arrived earlier (lower
     * seq) or is this event delivered before (same seq), else the latest at an earlier time; NULL
     * when there is none or it is a delete.
     */
    private TypedEvent resolved(TypedEvent e, TreeMap<Instant, TypedEvent> timeline) {
        TypedEvent before = timeline.get(e.eventTime());
        if (before == null || before.seq() > e.seq()) { // equal seq: its own twin, resolved when it first arrived
            Map.Entry<Instant, TypedEvent> lower = timeline.lowerEntry(e.eventTime());
            before = lower == null ? null : lower.getValue();
        }
        List<Object> values = new ArrayList<>(e.values());
        for (int i = spec.key().size(); i < values.size(); i++) {
            if (values.get(i) == Unchanged.VALUE) {
                values.set(i, before == null || before.delete() ? null : before.values().get(i));
            }
        }
        int nKey = spec.key().size();
        byte[] hash = RecordHash.ofValues(spec.tracked().stream().map(spec::type).toList(),
                values.subList(nKey, nKey + spec.tracked().size()));
        return new TypedEvent(false, e.eventTime(), values, hash, e.seq(), e.source());
    }

    private static String state(TypedEvent e) {
        return e.delete() ? "DELETED" : "UPSERT " + RecordHash.hex(e.hash());
    }

    /** Same event time: the higher seq (later arrival) wins; equal seq must be the same event delivered again. */
    private static TypedEvent laterArrival(TypedEvent a, TypedEvent b) {
        if (a.seq() == b.seq()) {
            if (a.delete() != b.delete() || !java.util.Arrays.deepEquals(a.values().toArray(), b.values().toArray())) {
                throw new IllegalArgumentException("two different events share seq " + a.seq() + " and time " + a.eventTime());
            }
            return a;
        }
        return b.seq() > a.seq() ? b : a;
    }

    private List<Object> keyOf(TypedEvent e) {
        return new ArrayList<>(keyMap(e).values());
    }

    private Map<String, Object> keyMap(TypedEvent e) {
        return slice(e, 0, spec.key());
    }

    private Map<String, Object> trackedOf(TypedEvent e) {
        return slice(e, spec.key().size(), spec.tracked());
    }

    private Map<String, Object> type1Of(TypedEvent e) {
        return slice(e, spec.key().size() + spec.tracked().size(), spec.type1());
    }

    private Map<String, Object> slice(TypedEvent e, int from, List<String> names) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            String c = names.get(i);
            m.put(c, ExpectedRow.normalize(spec.type(c), e.values().get(from + i)));
        }
        return m;
    }

    /** Key columns in configured order (values compared naturally), then valid_from. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Comparator<ExpectedRow> order(EntitySpec spec) {
        Comparator<ExpectedRow> c = (a, b) -> 0;
        for (String k : spec.key()) {
            c = c.thenComparing((a, b) -> ((Comparable) a.key().get(k)).compareTo(b.key().get(k)));
        }
        return c.thenComparing(ExpectedRow::validFrom);
    }
}
