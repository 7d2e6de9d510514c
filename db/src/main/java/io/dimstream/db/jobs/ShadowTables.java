package io.dimstream.db.jobs;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.snapshot.SnapshotSlices;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The shadow table of a replay job with target {@code shadow}: created fresh beside the live
 * table ({@code <table>_shadow_<job>}, with its own event memory {@code <table>_shadow_<job>_events}),
 * filled by the replay, then swapped in by {@link #swap} in ONE transaction:
 * <ol>
 *   <li>{@code LOCK} the live event memory and the live table (in the order the writer touches
 *       them, so the streaming sink waits instead of deadlocking);</li>
 *   <li>the entity's columns as they are now (the catalog, {@code dimstream.entity_columns}: columns
 *       added or widened while the job ran) on both tables ({@link EvolvedColumns#catchUp});</li>
 *   <li>apply through the writer, into the shadow, every event the live memory holds that the
 *       shadow's memory does not hold with the same content (what the live sink wrote after the
 *       job's end offsets, events loaded from files, quarantined events applied by a user), with
 *       the lateness horizon lifted (the live table accepted them) and their live {@code seq}, so
 *       they win a same-time tie against replayed events exactly as they did in the live table;</li>
 *   <li>transaction time carried over ({@link SwapBeliefs}): the live rows the shadow changes are kept
 *       in {@code <table>_superseded}, the unchanged ones keep their transaction time;</li>
 *   <li>the live table takes the shadow's contents and keeps its identity ({@link ContentExchange}:
 *       its OID, so the views, grants and comments users have on it and on {@code <table>_current}
 *       keep working and see the new rows); the replaced contents are kept as
 *       {@code <table>_replaced_<job>} (a plain copy, for comparison; drop it when satisfied). A
 *       rebuild that changes the table's partitioning ({@code table-partitions}) needs a new table:
 *       the shadow is renamed in and what users built on the old one carried over ({@link LayoutChange});</li>
 *   <li>the event memories (internal) are swapped by renaming, the live one kept as
 *       {@code <table>_replaced_<job>_events}, with their indexes, constraints and partitions;</li>
 *   <li>a snapshot entity's rebuild: record as the entity's the slices the job's range completed
 *       ({@link ReplaySlices#completeSlices}), as a load records a slice, so the live sink re-judges
 *       them; both swaps (the worker's and a previewed one's, {@link ShadowPreviews}) go through here.</li>
 * </ol>
 * Readers see the old table or the new one, never a mix. A swap that cannot be made (events of the
 * live memory the shadow refuses, a foreign key on the table, a column type views block) is refused
 * with {@link SwapRefused}, naming what to do; nothing is changed then.
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

    /** A swap that cannot be made as things are, with what to do (a 409 in the admin UI, a FAILED job's error). */
    public static final class SwapRefused extends IllegalStateException {
        SwapRefused(String message) {
            super(message);
        }

        SwapRefused(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Swaps the shadow in, in the caller's transaction (see the class comment). The caller holds
     * the job's lease (locked row) and commits.
     *
     * @param live the entity as the job started (the catalog's columns now are read here)
     * @throws SwapRefused when the swap cannot be made; the caller rolls back
     */
    public static Swap swap(Connection c, Scd2Writer writer, EntitySpec live, EntitySpec shadow, long jobId) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL TimeZone = 'UTC'");
            s.execute("LOCK TABLE " + Sql.table(live.memoryTable()) + ", " + Sql.table(live.table()) + " IN ACCESS EXCLUSIVE MODE");
        }
        EntitySpec now = EvolvedColumns.withCatalog(c, live);
        try {
            // a column the catalog has and the live table lacks: one a replay added to its shadow
            EvolvedColumns.catchUp(c, now);
        } catch (EvolvedColumns.UnsafeTypeChange e) {
            throw new SwapRefused("swap of " + shadow.table() + " into " + live.table() + ": " + e.getMessage(), e);
        }
        ApplyResult merged = mergeLiveEvents(c, writer, now, shadow);
        if (!merged.rejected().isEmpty() || merged.quarantined() > 0) {
            throw new SwapRefused("swap of " + shadow.table() + ": " + merged.rejected().size() + " events of the live "
                    + "memory were rejected and " + merged.quarantined() + " quarantined by the shadow; first rejection: "
                    + merged.rejected().stream().findFirst().map(Object::toString).orElse("none")
                    + "; nothing was changed: fix what the rejection names and swap again, or discard the job");
        }
        String retired = retiredTable(live, jobId);
        EntitySpec retiredSpec = live.withTable(retired);
        SwapBeliefs.carryOver(c, now, shadow.table());
        if (EntityTables.samePartitioning(c, live.table(), shadow.table())) {
            ContentExchange.exchange(c, live.table(), shadow.table(), retired);
        } else {
            LayoutChange.swapIn(c, now, shadow.table(), retired);
        }
        SwapBeliefs.resume(c, now, retired);
        TableRenames.rename(c, live.memoryTable(), retiredSpec.memoryTable());
        TableRenames.rename(c, shadow.memoryTable(), live.memoryTable());
        // a snapshot entity's rebuild: the slices the job's range completed become the entity's now, so
        // the live sink's judgements of older slices re-judge them in the swapped-in table (no rows: nothing)
        for (Instant t : ReplaySlices.completeSlices(ReplaySlices.load(c, jobId))) {
            SnapshotSlices.completeLoaded(c, live.name(), t);
        }
        return new Swap(retired, retiredSpec.memoryTable(), merged);
    }

    /**
     * The swap's merge step alone, in the caller's transaction: brings the shadow to the entity's
     * columns now (added or widened while it was filled, {@link EvolvedColumns#catchUp}) and applies
     * to it every event of the live memory the shadow's memory does not hold with the same content,
     * lateness horizon lifted. {@link #swap} does it under its locks; a preview ({@link ShadowPreviews})
     * does it in a transaction it rolls back, to show what the swap would make of the shadow now.
     *
     * @param live the entity with the catalog's columns now ({@link EvolvedColumns#withCatalog})
     */
    static ApplyResult mergeLiveEvents(Connection c, Scd2Writer writer, EntitySpec live, EntitySpec shadow) throws SQLException {
        EntitySpec target = live.withTable(shadow.table());
        try {
            EvolvedColumns.catchUp(c, target);
        } catch (EvolvedColumns.UnsafeTypeChange e) {
            throw new SwapRefused("swap of " + shadow.table() + " into " + live.table() + ": " + e.getMessage(), e);
        }
        List<Event> missing = liveEventsMissingFromShadow(c, live, target);
        EntitySpec unlimited = target.withLatenessHorizon(Optional.empty());
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
        Function<String, String> content = a -> "(" + a + ".is_deleted, " + a + ".record_hash"
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
}
