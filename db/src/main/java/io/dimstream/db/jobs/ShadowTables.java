package io.dimstream.db.jobs;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.EventMemory;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The shadow table of a replay job with target {@code shadow}: created fresh beside the live
 * table ({@code <table>_shadow_<job>}, with its own event memory {@code <table>_shadow_<job>_events}),
 * filled by the replay, then swapped in by {@link #swap} in ONE transaction:
 * <ol>
 *   <li>{@code LOCK} the live event memory and the live table (in the order the writer touches
 *       them, so the streaming sink waits instead of deadlocking);</li>
 *   <li>apply through the writer, into the shadow, every event the live memory holds that the
 *       shadow's memory does not hold with the same content (what the live sink wrote after the
 *       job's end offsets, events loaded from files, quarantined events applied by a user), with
 *       the lateness horizon lifted (the live table accepted them) and their live {@code seq}, so
 *       they win a same-time tie against replayed events exactly as they did in the live table;</li>
 *   <li>rename the live table and memory to {@code <table>_replaced_<job>} and
 *       {@code <table>_replaced_<job>_events} (kept for comparison; drop them when satisfied), the
 *       shadow ones to the live names, their indexes, constraints and partitions
 *       ({@code table-partitions}) along;</li>
 *   <li>point the view {@code <table>_current} and the function {@code <table>_as_of} at the new table.</li>
 *   <li>a snapshot entity's rebuild: record as the entity's the slices the job's range completed
 *       ({@link ReplaySlices#completeSlices}), as a load records a slice, so the live sink re-judges
 *       them; both swaps (the worker's and a previewed one's, {@link ShadowPreviews}) go through here.</li>
 * </ol>
 * Readers see the old table or the new one, never a mix.
 */
public final class ShadowTables {

    private ShadowTables() {
    }

    /** The shadow's spec: the live entity (same name, so surrogate keys are reproduced) on another table. */
    public static EntitySpec shadowSpec(EntitySpec live, long jobId) {
        return live.withTable(live.table() + "_shadow_" + jobId);
    }

    /** Where the replaced live table is kept after a swap. */
    public static String retiredTable(EntitySpec live, long jobId) {
        return live.table() + "_replaced_" + jobId;
    }

    /** Creates the shadow table and memory when missing (idempotent: a resumed job finds them). */
    public static void create(DataSource ds, EntitySpec shadow) throws SQLException {
        Transactions.run(ds, c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(hashtext('dimstream.ddl'))");
            }
            EntityTables.createUnregistered(c, shadow);
        });
    }

    public static boolean exists(DataSource ds, EntitySpec shadow) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return EntityTables.tableExists(c, shadow.table()) && EntityTables.tableExists(c, shadow.memoryTable());
        }
    }

    /** Drops the shadow table and memory (a cancelled job). */
    public static void drop(Connection c, EntitySpec shadow) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + Sql.table(shadow.table()) + ", " + Sql.table(shadow.memoryTable()));
        }
    }

    /** What a swap did. */
    public record Swap(String retiredTable, String retiredMemory, ApplyResult merged) {
    }

    /**
     * Swaps the shadow in, in the caller's transaction (see the class comment). The caller holds
     * the job's lease (locked row) and commits.
     */
    public static Swap swap(Connection c, Scd2Writer writer, EntitySpec live, EntitySpec shadow, long jobId) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL TimeZone = 'UTC'");
            s.execute("LOCK TABLE " + Sql.table(live.memoryTable()) + ", " + Sql.table(live.table()) + " IN ACCESS EXCLUSIVE MODE");
        }
        ApplyResult merged = mergeLiveEvents(c, writer, live, shadow);
        if (!merged.rejected().isEmpty() || merged.quarantined() > 0) {
            throw new IllegalStateException("swap of " + shadow.table() + ": " + merged.rejected().size() + " events of the live "
                    + "memory were rejected and " + merged.quarantined() + " quarantined by the shadow; first rejection: "
                    + merged.rejected().stream().findFirst().map(Object::toString).orElse("none"));
        }
        String retired = retiredTable(live, jobId);
        EntitySpec retiredSpec = live.withTable(retired);
        rename(c, live.table(), retiredSpec.table());
        rename(c, live.memoryTable(), retiredSpec.memoryTable());
        rename(c, shadow.table(), live.table());
        rename(c, shadow.memoryTable(), live.memoryTable());
        EntityTables.viewAndFunction(c, live);
        // a snapshot entity's rebuild: the slices the job's range completed become the entity's now, so
        // the live sink's judgements of older slices re-judge them in the swapped-in table (no rows: nothing)
        for (java.time.Instant t : ReplaySlices.completeSlices(ReplaySlices.load(c, jobId))) {
            io.dimstream.db.snapshot.SnapshotSlices.completeLoaded(c, live.name(), t);
        }
        return new Swap(retired, retiredSpec.memoryTable(), merged);
    }

    /**
     * The swap's merge step alone, in the caller's transaction: applies to the shadow every event of
     * the live memory the shadow's memory does not hold with the same content, lateness horizon
     * lifted. {@link #swap} does it under its locks; a preview ({@link ShadowPreviews}) does it in a
     * transaction it rolls back, to show what the swap would make of the shadow now.
     */
    static ApplyResult mergeLiveEvents(Connection c, Scd2Writer writer, EntitySpec live, EntitySpec shadow) throws SQLException {
        List<Event> missing = liveEventsMissingFromShadow(c, live, shadow);
        EntitySpec unlimited = shadow.withLatenessHorizon(Optional.empty());
        return missing.isEmpty() ? ApplyResult.empty() : writer.apply(c, unlimited, missing);
    }

    /**
     * Events the live entity remembers that the shadow does not remember with the same state and
     * type-1 values; on both sides the memory's rows and the version starts it has no row of
     * ({@link EventMemory}).
     */
    private static List<Event> liveEventsMissingFromShadow(Connection c, EntitySpec live, EntitySpec shadow) throws SQLException {
        List<String> key = live.key();
        String keyJson = Sql.jsonObject("x", key, col -> live.type(col) == ColumnType.JSONB);
        String dataJson = Sql.jsonObject("x", live.dataColumns(), col -> live.type(col) == ColumnType.JSONB);
        java.util.function.Function<String, String> content = a -> "(" + a + ".is_deleted, " + a + ".record_hash"
                + (live.type1().isEmpty() ? "" : ", " + Sql.list(a, live.type1())) + ")";
        String sql = "SELECT jsonb_build_object('op', CASE WHEN x.is_deleted THEN 'delete' ELSE 'upsert' END, 'event_time', x.event_time, "
                + "'data', CASE WHEN x.is_deleted THEN " + keyJson + " ELSE " + dataJson + " END)::text, x.seq, x.source_topic, "
                + "x.source_partition, x.source_offset FROM " + EventMemory.eventsSql(live) + " x WHERE NOT EXISTS (SELECT 1 FROM "
                + EventMemory.eventsSql(shadow) + " y WHERE " + Sql.eq("y", "x", key) + " AND y.event_time = x.event_time AND "
                + content.apply("y") + " IS NOT DISTINCT FROM " + content.apply("x") + ") ORDER BY x.event_time";
        List<Event> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(parse(rs.getString(1), rs.getLong(2), source(rs, 3)));
            }
        }
        return out;
    }

    static Source source(ResultSet rs, int first) throws SQLException {
        String topic = rs.getString(first);
        int partition = rs.getInt(first + 1);
        Integer part = rs.wasNull() ? null : partition;
        long offset = rs.getLong(first + 2);
        Long off = rs.wasNull() ? null : offset;
        return topic == null && part == null && off == null ? null : new Source(topic, part, off);
    }

    static Event parse(String json, long seq, Source source) {
        NativeEventJson.Parsed p = NativeEventJson.parse(json, seq, source);
        if (p.event() == null) {
            throw new IllegalStateException("stored event " + json + " does not parse: " + p.rejection());
        }
        return p.event();
    }

    /** The first column of a catalog query's rows, its one parameter the table {@code table}. */
    private static List<String> names(Connection c, String sql, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static void rename(Connection c, String from, String to) throws SQLException {
        String fromBare = Sql.nameOf(from);
        String toBare = Sql.nameOf(to);
        String schema = Sql.schemaOf(from);
        String schemaDot = schema == null ? "" : schema + ".";
        List<String> indexes = names(c, "SELECT ic.relname FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
                + "WHERE i.indrelid = ?::regclass", from);
        List<String> checks = names(c, "SELECT conname FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'c'", from);
        List<String> partitions = names(c, "SELECT pc.relname FROM pg_inherits i JOIN pg_class pc ON pc.oid = i.inhrelid "
                + "WHERE i.inhparent = ?::regclass ORDER BY pc.relname", from);
        try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + Sql.table(from) + " RENAME TO " + Sql.ident(toBare));
            // an index backing a constraint (the primary key) renames its constraint along
            for (String ix : indexes) {
                if (ix.startsWith(fromBare)) {
                    s.execute("ALTER INDEX " + Sql.table(schemaDot + ix) + " RENAME TO " + Sql.ident(toBare + ix.substring(fromBare.length())));
                }
            }
            for (String ck : checks) {
                if (ck.startsWith(fromBare)) {
                    // renames the partitions' inherited copies along
                    s.execute("ALTER TABLE " + Sql.table(to) + " RENAME CONSTRAINT " + Sql.ident(ck) + " TO "
                            + Sql.ident(toBare + ck.substring(fromBare.length())));
                }
            }
        }
        // table-partitions: the partitions (<table>_p0 ..) and their own indexes follow the parent's name
        for (String part : partitions) {
            if (part.startsWith(fromBare)) {
                rename(c, schemaDot + part, schemaDot + toBare + part.substring(fromBare.length()));
            }
        }
    }
}
