package io.dimstream.app.compose;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.SurrogateKey;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Whole version rows, every column but {@code loaded_at}: what the reference model of DESIGN section
 * 3 makes of a set of events ({@link ReferenceModel}: key, attributes, validity, flags, hash), with
 * what the writer adds to each version from the event that starts it: the surrogate key (a function
 * of entity, key and {@code valid_from}), the lineage (that event's source record) and
 * {@code event_seq} (that event's arrival order). And the table read the same way.
 *
 * <p>The event that starts a version is the winner at its key and {@code valid_from}: of the events
 * there, taken in {@code seq} order, a later one replaces the one kept only when its content (deleted
 * or not, tracked hash, type-1 values) differs, as the writer decides a duplicate; a repeat of the
 * kept content keeps the first one's lineage. So the events given must carry the writer's own seqs
 * ({@link io.dimstream.db.event.ArrivalSeq}: a changes-topic offset, a load's line seq, a replay's
 * shifted offset), and no two events with the same content at one key and time may come from
 * different paths whose arrival the test does not order (the kept lineage would then depend on
 * which arrived first); the tests here make sure of that.
 */
final class WholeRows {

    private WholeRows() {
    }

    /**
     * One version row as compared: the model's row, its surrogate key, lineage and {@code event_seq}.
     * {@link #toString} is one line naming every value, so a failed comparison reads row by row.
     */
    record Row(ExpectedRow row, long surrogateKey, String sourceTopic, Integer sourcePartition, Long sourceOffset, Long eventSeq) {

        /** The same row with another {@code event_seq}. */
        Row withEventSeq(Long seq) {
            return new Row(row, surrogateKey, sourceTopic, sourcePartition, sourceOffset, seq);
        }

        /** The row's lineage as a source. */
        Source source() {
            return new Source(sourceTopic, sourcePartition, sourceOffset);
        }

        @Override
        public String toString() {
            return row.key().values() + " " + row.validFrom() + " .. " + (row.validTo() == null ? "open" : row.validTo())
                    + (row.current() ? " current" : "") + (row.deleted() ? " deleted" : "") + " " + row.attrs() + " hash " + row.hashHex()
                    + " sk " + surrogateKey + " from " + source() + " seq " + eventSeq;
        }
    }

    /**
     * The rows the table must hold for {@code events} (each with the writer's seq and its source), in
     * key and {@code valid_from} order.
     */
    static List<Row> expected(EntitySpec spec, List<Event> events) {
        EventValidator validator = new EventValidator(spec);
        Map<List<String>, Map<Instant, List<TypedEvent>>> byKeyAndTime = new HashMap<>();
        for (Event e : events) {
            EventValidator.Result r = validator.validate(e);
            if (r.ok()) {
                byKeyAndTime.computeIfAbsent(keyOf(spec, r.event()), k -> new TreeMap<>())
                        .computeIfAbsent(r.event().eventTime(), t -> new ArrayList<>()).add(r.event());
            }
        }
        List<Row> rows = new ArrayList<>();
        for (ExpectedRow row : new ReferenceModel(spec).rows(events)) {
            List<String> key = spec.key().stream().map(k -> spec.type(k).canonical(row.key().get(k))).toList();
            TypedEvent start = winner(spec, byKeyAndTime.get(key).get(row.validFrom()));
            rows.add(new Row(row, SurrogateKey.of(spec.name(), key, row.validFrom()), start.source().topic(), start.source().partition(),
                    start.source().offset(), start.seq()));
        }
        return rows;
    }

    /** Every row of the entity's table, every column but {@code loaded_at}, in key and {@code valid_from} order. */
    static List<Row> table(DataSource ds, EntitySpec spec) throws SQLException {
        SystemColumns sc = spec.system();
        Map<List<Object>, Object[]> lineage = new HashMap<>();
        String sql = "SELECT " + Sql.each(spec.key(), k -> Sql.ident(k) + "::text", ", ") + ", " + Sql.ident(sc.validFrom()) + ", "
                + Sql.ident(sc.sourceTopic()) + ", " + Sql.ident(sc.sourcePartition()) + ", " + Sql.ident(sc.sourceOffset()) + ", "
                + Sql.ident(sc.eventSeq()) + " FROM " + Sql.table(spec.table());
        int n = spec.key().size();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                List<Object> at = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    at.add(rs.getString(i));
                }
                at.add(rs.getObject(n + 1, OffsetDateTime.class).toInstant());
                lineage.put(at, new Object[] {rs.getString(n + 2), rs.getObject(n + 3, Integer.class), rs.getObject(n + 4, Long.class),
                        rs.getObject(n + 5, Long.class)});
            }
        }
        List<Row> rows = new ArrayList<>();
        for (EntityTableReader.StoredRow s : EntityTableReader.withSurrogateKeys(ds, spec)) {
            List<Object> at = new ArrayList<>();
            spec.key().forEach(k -> at.add(spec.type(k).canonical(s.row().key().get(k))));
            at.add(s.row().validFrom());
            Object[] l = Objects.requireNonNull(lineage.get(at), () -> "no lineage read for " + at);
            rows.add(new Row(s.row(), s.surrogateKey(), (String) l[0], (Integer) l[1], (Long) l[2], (Long) l[3]));
        }
        return rows;
    }

    /**
     * How {@code table} differs from {@code expected}, both whole: each expected row it lacks
     * ("missing") and each row it has that is not expected ("unexpected"), in key order, at most 40
     * of each; empty when the two lists are equal. For an assertion whose failure names the rows.
     */
    static List<String> differences(List<Row> table, List<Row> expected) {
        if (table.equals(expected)) {
            return List.of();
        }
        List<Row> missing = new ArrayList<>(expected);
        table.forEach(missing::remove);
        List<Row> unexpected = new ArrayList<>(table);
        expected.forEach(unexpected::remove);
        List<String> out = new ArrayList<>();
        missing.stream().limit(40).forEach(r -> out.add("missing:    " + r));
        unexpected.stream().limit(40).forEach(r -> out.add("unexpected: " + r));
        if (out.isEmpty()) {
            out.add("the same rows in another order: " + table.size() + " rows");
        }
        out.add(missing.size() + " missing, " + unexpected.size() + " unexpected of " + expected.size() + " expected rows");
        return out;
    }

    /** Of one key's events at one time: in seq order, the first of the content that wins (see the class comment). */
    private static TypedEvent winner(EntitySpec spec, List<TypedEvent> atTime) {
        List<TypedEvent> bySeq = atTime.stream().sorted(Comparator.comparingLong(TypedEvent::seq)).toList();
        TypedEvent kept = bySeq.get(0);
        for (TypedEvent e : bySeq.subList(1, bySeq.size())) {
            if (e.seq() > kept.seq() && !content(spec, e).equals(content(spec, kept))) {
                kept = e;
            }
        }
        return kept;
    }

    /** What makes two events at one key and time the same to the writer: deleted or not, the tracked hash, the type-1 values. */
    private static List<Object> content(EntitySpec spec, TypedEvent e) {
        List<Object> c = new ArrayList<>();
        c.add(e.delete());
        c.add(e.hash() == null ? null : RecordHash.hex(e.hash()));
        int from = spec.key().size() + spec.tracked().size();
        for (int i = 0; i < spec.type1().size(); i++) {
            Object v = e.delete() ? null : e.values().get(from + i);
            c.add(v instanceof byte[] b ? Arrays.toString(b) : v);
        }
        return c;
    }

    private static List<String> keyOf(EntitySpec spec, TypedEvent e) {
        List<String> key = new ArrayList<>();
        for (int i = 0; i < spec.key().size(); i++) {
            key.add(spec.type(spec.key().get(i)).canonical(e.values().get(i)));
        }
        return key;
    }
}
