package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.sql.Sql;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Resolves {@link Unchanged#VALUE}s before a batch is applied: each such attribute takes the value
 * of the key's event just before its event in (event time, arrival) order, as the source meant
 * ("this column did not change"), among the events that arrived before it. That event is the
 * later, in (event time, seq) order, of two candidates: the event memory's latest event of the key
 * before it ({@code event_time < t}, or {@code = t} with a lower {@code seq}: an earlier change of
 * the same source transaction), and the latest such event of the batch that arrived before it
 * (lower {@code seq}), itself resolved first. Runs before the batch keeps one event per key and
 * time, so an earlier change of the same transaction counts even when both are in one batch; the
 * outcome does not depend on how events are batched. A late event therefore takes the values of
 * the event it lands after, in the middle of history. Before the key's first event, or after a
 * delete, the value is NULL. The hash is computed again from the resolved values, so a resolved event hashes
 * exactly as if the source had sent every value.
 *
 * <p>Resolution is at apply time: an event already applied keeps the values it resolved to when a
 * late event is placed before it later (the source had sent it as a change of that earlier state,
 * which the late event now changes; a source that sends its changes in order never sees the
 * difference). A re-delivered event takes the values its remembered twin (same time and
 * {@code seq}) resolved to the first time, even when a late event has landed before it since, so
 * re-deliveries and replays stay no-ops.
 *
 * <p>Cost: nothing for a batch without unchanged values; otherwise one statement probing the
 * memory's and the table's primary keys once per partial event (a backward index scan each, LIMIT
 * 1). It relies on the remembered events ({@link EventMemory}: the memory's rows and the version
 * starts it has no row of) holding every remembered event's values; pruning keeps each key's
 * anchor event, and an event before the anchor is quarantined anyway.
 */
final class UnchangedValues {

    private UnchangedValues() {
    }

    static List<TypedEvent> resolve(Connection c, EntitySpec entity, List<TypedEvent> events) throws SQLException {
        if (events.stream().noneMatch(TypedEvent::partial)) {
            return events;
        }
        int nKey = entity.key().size();
        Map<List<Object>, List<Integer>> byKey = new LinkedHashMap<>();
        for (int i = 0; i < events.size(); i++) {
            byKey.computeIfAbsent(events.get(i).keyIdentity(nKey), k -> new ArrayList<>()).add(i);
        }
        byKey.values().removeIf(ix -> ix.stream().noneMatch(i -> events.get(i).partial()));
        List<Integer> partial = new ArrayList<>();
        byKey.values().forEach(ix -> ix.stream().filter(i -> events.get(i).partial()).forEach(partial::add));
        Map<Integer, Remembered> before = remembered(c, entity, events, partial);

        List<TypedEvent> out = new ArrayList<>(events);
        List<String> attributes = entity.attributes();
        List<ColumnType> trackedTypes = entity.tracked().stream().map(entity::type).toList();
        Comparator<TypedEvent> timeline = Comparator.comparing(TypedEvent::eventTime).thenComparingLong(TypedEvent::seq);
        for (List<Integer> ix : byKey.values()) {
            // in arrival order: an event's candidates in the batch are those that arrived before it
            ix.sort(Comparator.comparingLong(i -> events.get(i).seq()));
            TreeMap<TypedEvent, TypedEvent> arrived = new TreeMap<>(timeline);
            for (int i : ix) {
                TypedEvent e = out.get(i);
                if (e.partial()) {
                    Remembered m = before.get(i);
                    Map.Entry<TypedEvent, TypedEvent> floor = arrived.floorEntry(e); // its twin, if delivered twice in the batch
                    TypedEvent previous = floor == null ? null : floor.getValue();
                    List<Object> from; // the attribute values of the event before, null for none or a delete
                    if (previous != null && (m == null || later(previous.eventTime(), previous.seq(), m.time(), m.seq()))) {
                        from = previous.delete() ? null : previous.values().subList(nKey, nKey + attributes.size());
                    } else {
                        from = m == null || m.deleted() ? null : m.values();
                    }
                    List<Object> values = new ArrayList<>(e.values());
                    for (int a = 0; a < attributes.size(); a++) {
                        if (values.get(nKey + a) == Unchanged.VALUE) {
                            values.set(nKey + a, from == null ? null : from.get(a));
                        }
                    }
                    byte[] hash = RecordHash.ofValues(trackedTypes, values.subList(nKey, nKey + entity.tracked().size()),
                            entity.evolvedTracked());
                    e = new TypedEvent(false, e.eventTime(), values, hash, e.seq(), e.source());
                    out.set(i, e);
                }
                arrived.put(e, e);
            }
        }
        return out;
    }

    private static boolean later(Instant t1, long s1, Instant t2, long s2) {
        int cmp = t1.compareTo(t2);
        return cmp > 0 || cmp == 0 && s1 > s2;
    }

    /** A remembered event: its time, arrival, whether it was a delete, its attribute values. */
    private record Remembered(Instant time, long seq, boolean deleted, List<Object> values) {
    }

    private static void keyMatch(StringBuilder sql, EntitySpec entity, String alias) {
        List<String> key = entity.key();
        for (int k = 0; k < key.size(); k++) {
            sql.append(alias).append(".").append(Sql.ident(key.get(k))).append(" = q.k").append(k).append("::")
                    .append(entity.type(key.get(k)).sqlName()).append(" AND ");
        }
    }

    /** Per partial event (by index), the memory's latest event of its key before it; absent when there is none. */
    private static Map<Integer, Remembered> remembered(Connection c, EntitySpec entity, List<TypedEvent> events, List<Integer> partial)
            throws SQLException {
        int nKey = entity.key().size();
        List<String> key = entity.key();
        List<String> attributes = entity.attributes();
        StringBuilder sql = new StringBuilder("SELECT q.i::int, ")
                .append(ColumnType.TIMESTAMPTZ.textSql("m.event_time")).append(", m.seq, m.is_deleted");
        for (String a : attributes) {
            sql.append(", ").append(entity.type(a).textSql("m." + Sql.ident(a)));
        }
        sql.append("\nFROM unnest(?::text[], ?::text[], ?::text[]");
        for (int k = 0; k < nKey; k++) {
            sql.append(", ?::text[]");
        }
        sql.append(") AS q(i, t, s");
        for (int k = 0; k < nKey; k++) {
            sql.append(", k").append(k);
        }
        // the memory's latest such event, or the latest such version start (EventMemory: an
        // in-order event that started a version has no memory row), the memory's row first at one time
        SystemColumns sc = entity.system();
        String vf = Sql.ident(sc.validFrom());
        String es = Sql.ident(sc.eventSeq());
        sql.append(")\nCROSS JOIN LATERAL (SELECT * FROM ((SELECT m.event_time, m.seq, m.is_deleted");
        for (String a : attributes) {
            sql.append(", m.").append(Sql.ident(a));
        }
        sql.append(", false AS in_version FROM ").append(Sql.table(entity.memoryTable())).append(" m WHERE ");
        keyMatch(sql, entity, "m");
        sql.append("m.event_time <= q.t::timestamptz AND (m.event_time < q.t::timestamptz OR m.seq <= q.s::bigint)")
                .append(" ORDER BY m.event_time DESC LIMIT 1) UNION ALL (SELECT v.").append(vf).append(", v.").append(es).append(", v.")
                .append(Sql.ident(sc.isDeleted()));
        for (String a : attributes) {
            sql.append(", v.").append(Sql.ident(a));
        }
        sql.append(", true FROM ").append(Sql.table(entity.table())).append(" v WHERE ");
        keyMatch(sql, entity, "v");
        sql.append(EventMemory.recordsItsStart(entity, "v")).append(" AND v.").append(vf)
                .append(" <= q.t::timestamptz AND (v.").append(vf).append(" < q.t::timestamptz OR v.").append(es).append(" <= q.s::bigint)")
                .append(" ORDER BY v.").append(vf).append(" DESC LIMIT 1)) r ORDER BY 1 DESC, in_version LIMIT 1) m");

        String[] idx = new String[partial.size()];
        String[] times = new String[partial.size()];
        String[] seqs = new String[partial.size()];
        String[][] keys = new String[nKey][partial.size()];
        for (int p = 0; p < partial.size(); p++) {
            TypedEvent e = events.get(partial.get(p));
            idx[p] = Integer.toString(partial.get(p));
            times[p] = ColumnType.TIMESTAMPTZ.canonical(e.eventTime());
            seqs[p] = Long.toString(e.seq());
            for (int k = 0; k < nKey; k++) {
                keys[k][p] = entity.type(key.get(k)).canonical(e.values().get(k));
            }
        }
        Map<Integer, Remembered> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            List<Array> arrays = new ArrayList<>();
            arrays.add(c.createArrayOf("text", idx));
            arrays.add(c.createArrayOf("text", times));
            arrays.add(c.createArrayOf("text", seqs));
            for (int k = 0; k < nKey; k++) {
                arrays.add(c.createArrayOf("text", keys[k]));
            }
            for (int a = 0; a < arrays.size(); a++) {
                ps.setArray(a + 1, arrays.get(a));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Object> values = new ArrayList<>(attributes.size());
                    for (int a = 0; a < attributes.size(); a++) {
                        String text = rs.getString(5 + a);
                        values.add(text == null ? null : entity.type(attributes.get(a)).coerce(text));
                    }
                    Instant t = ColumnType.parseInstant(rs.getString(2)).orElseThrow();
                    out.put(rs.getInt(1), new Remembered(t, rs.getLong(3), rs.getBoolean(4), values));
                }
            }
        }
        return out;
    }
}
