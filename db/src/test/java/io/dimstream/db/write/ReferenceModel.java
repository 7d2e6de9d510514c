package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.Unchanged;
import java.time.Instant;
import java.util.ArrayList;
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
