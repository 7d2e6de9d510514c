package io.dimstream.db.retention;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.write.EventMemory;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Random feeds applied alike to a table with retention and to a twin without, and the table read
 * back whole: its rows, the table as of an instant, the remembered events. Key {@code id}, tracked
 * {@code city} (three values, so re-assertions happen), type-1 {@code login}; lateness unlimited,
 * so nothing of the feed itself is quarantined.
 */
final class RetentionFixture {

    private static final AtomicInteger TABLES = new AtomicInteger();

    final DataSource ds;
    final Scd2Writer writer;

    RetentionFixture(DataSource ds) {
        this.ds = ds;
        this.writer = new Scd2Writer(ds);
    }

    EntitySpec entity(String prefix, HistoryRetention retention) throws SQLException {
        String table = prefix + "_" + TABLES.incrementAndGet();
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        cols.put("login", ColumnType.BIGINT);
        EntitySpec spec = EntitySpec.builder().name(table).table(table).key(List.of("id")).tracked(List.of("city")).type1(List.of("login"))
                .columns(cols).latenessHorizon(Optional.empty()).retention(retention).build();
        EntityTables.ensure(ds, spec);
        return spec;
    }

    static Event up(long seq, Instant t, String id, String city, long login) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("city", city);
        data.put("login", login);
        return Event.upsert(t, data, seq, Source.kafka("people", 0, seq));
    }

    static Event del(long seq, Instant t, String id) {
        return Event.delete(t, Map.of("id", id), seq, Source.kafka("people", 0, seq));
    }

    /**
     * {@code perKey} events for each of {@code keys} keys at random instants of [from, to) (some on a
     * whole hour, a few exactly at midnight), one in ten a delete, in a shuffled arrival order.
     */
    static List<Event> feed(Random rnd, int keys, int perKey, Instant from, Instant to, long firstSeq) {
        long span = Duration.between(from, to).toSeconds();
        List<Instant> times = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            for (int i = 0; i < perKey; i++) {
                Instant t = from.plusSeconds((long) (rnd.nextDouble() * span));
                int shape = rnd.nextInt(10);
                if (shape == 0) {
                    t = t.truncatedTo(java.time.temporal.ChronoUnit.DAYS);
                } else if (shape < 4) {
                    t = t.truncatedTo(java.time.temporal.ChronoUnit.HOURS);
                }
                times.add(t);
                ids.add("K" + k);
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < times.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, rnd);
        List<Event> out = new ArrayList<>();
        long seq = firstSeq;
        for (int i : order) {
            out.add(rnd.nextInt(10) == 0 ? del(seq, times.get(i), ids.get(i))
                    : up(seq, times.get(i), ids.get(i), "C" + rnd.nextInt(3), rnd.nextInt(5)));
            seq++;
        }
        return out;
    }

    /** {@code events} applied to each table in the same batches of random sizes. */
    void applyAll(Random rnd, List<Event> events, EntitySpec... tables) throws SQLException {
        int i = 0;
        while (i < events.size()) {
            int n = Math.min(events.size() - i, 1 + rnd.nextInt(40));
            for (EntitySpec t : tables) {
                writer.apply(t, events.subList(i, i + n));
            }
            i += n;
        }
    }

    /** The table's rows in key and time order, each its whole JSON less {@code without}. */
    List<String> rows(EntitySpec e, String... without) throws SQLException {
        return strings("SELECT (to_jsonb(x)" + minus(without) + ")::text FROM " + Sql.table(e.table()) + " x ORDER BY x.id, x.valid_from",
                null);
    }

    /** The table as of {@code at} ({@code <table>_as_of}), each row its whole JSON less {@code without}. */
    List<String> asOf(EntitySpec e, Instant at, String... without) throws SQLException {
        return strings("SELECT (to_jsonb(x)" + minus(without) + ")::text FROM " + Sql.table(e.asOfFunction()) + "(?) x ORDER BY x.id", at);
    }

    /** The table as of each of {@code instants}, in one query ({@code <table>_as_of} laterally); an instant with no rows maps to an empty list. */
    Map<Instant, List<String>> asOfEach(EntitySpec e, Collection<Instant> instants, String... without) throws SQLException {
        Map<Instant, List<String>> out = new LinkedHashMap<>();
        for (Instant x : instants) {
            out.put(x, new ArrayList<>());
        }
        String sql = "SELECT i.at, (to_jsonb(x)" + minus(without) + ")::text FROM unnest(?::timestamptz[]) i(at) CROSS JOIN LATERAL "
                + Sql.table(e.asOfFunction()) + "(i.at) x ORDER BY i.at, x.id";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            p.setArray(1, c.createArrayOf("timestamptz", instants.stream().map(x -> x.atOffset(ZoneOffset.UTC)).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.get(rs.getObject(1, OffsetDateTime.class).toInstant()).add(rs.getString(2));
                }
            }
        }
        return out;
    }

    /** Every valid_from and valid_to of the table at or after {@code from}. */
    TreeSet<Instant> boundaries(EntitySpec e, Instant from) throws SQLException {
        TreeSet<Instant> out = new TreeSet<>();
        for (String s : strings("SELECT to_char(b AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM (SELECT valid_from b FROM "
                + Sql.table(e.table()) + " UNION SELECT valid_to FROM " + Sql.table(e.table()) + ") u WHERE b >= ?", from)) {
            out.add(Instant.parse(s));
        }
        return out;
    }

    /** The remembered events (memory rows and the version starts standing for events), each its whole JSON less {@code without}. */
    List<String> events(EntitySpec e, String... without) throws SQLException {
        return strings("SELECT (to_jsonb(x)" + minus(without) + ")::text FROM " + EventMemory.eventsSql(e) + " x ORDER BY x.id, x.event_time",
                null);
    }

    /** The memory table's rows, each its whole JSON less {@code without}. */
    List<String> memory(EntitySpec e, String... without) throws SQLException {
        return strings("SELECT (to_jsonb(x)" + minus(without) + ")::text FROM " + Sql.table(e.memoryTable()) + " x ORDER BY x.id, x.event_time",
                null);
    }

    /** The quarantined events of the entity: key, event time and reason, one line each. */
    List<String> quarantine(EntitySpec e) throws SQLException {
        return strings("SELECT concat_ws(' | ', event_key->>'id', to_char(event_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), reason) "
                + "FROM dimstream.quarantine WHERE entity = '" + e.name() + "' ORDER BY event_key->>'id', event_time", null);
    }

    /**
     * The JSON operator that leaves {@code without} out, and always transaction time's columns: a twin
     * written in other transactions differs in them, and retention does not touch them (what it does to
     * transaction time is {@code HistoryRetainerTest}'s superseded case).
     */
    private static String minus(String... without) {
        StringBuilder b = new StringBuilder(" - 'known_from' - 'end_known_from'");
        for (String w : without) {
            b.append(" - '").append(w).append("'");
        }
        return b.toString();
    }

    void execute(String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    List<String> strings(String sql, Instant param) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            if (param != null) {
                p.setObject(1, param.atOffset(ZoneOffset.UTC));
            }
            List<String> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }

    /** A version as the test reads it back: key, start, end (null: open), JSON of the whole row. */
    record Version(String id, Instant from, Instant to, String json) {
    }

    /** The table's versions with their bounds, in key and time order. */
    List<Version> versions(EntitySpec e, String... without) throws SQLException {
        String sql = "SELECT x.id, x.valid_from, x.valid_to, (to_jsonb(x)" + minus(without) + ")::text FROM " + Sql.table(e.table())
                + " x ORDER BY x.id, x.valid_from";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            List<Version> out = new ArrayList<>();
            while (rs.next()) {
                OffsetDateTime to = rs.getObject(3, OffsetDateTime.class);
                out.add(new Version(rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant(), to == null ? null : to.toInstant(),
                        rs.getString(4)));
            }
            return out;
        }
    }

    /** A remembered event: key, time, its whole JSON less what was left out. */
    record Remembered(String id, Instant time, String json) {
    }

    /** The remembered events ({@link EventMemory#eventsSql}) in key and time order. */
    List<Remembered> remembered(EntitySpec e, String... without) throws SQLException {
        String sql = "SELECT x.id, x.event_time, (to_jsonb(x)" + minus(without) + ")::text FROM " + EventMemory.eventsSql(e)
                + " x ORDER BY x.id, x.event_time";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            List<Remembered> out = new ArrayList<>();
            while (rs.next()) {
                out.add(new Remembered(rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant(), rs.getString(3)));
            }
            return out;
        }
    }

    /** Each key's prune point as the writer reads it (its oldest memory row's), "id instant", keys without one left out. */
    List<String> prunePoints(EntitySpec e) throws SQLException {
        return strings("SELECT id || ' ' || to_char(pruned_to AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM (SELECT DISTINCT ON (id) id, "
                + "pruned_to FROM " + Sql.table(e.memoryTable()) + " ORDER BY id, event_time) x WHERE pruned_to IS NOT NULL ORDER BY id", null);
    }
}
