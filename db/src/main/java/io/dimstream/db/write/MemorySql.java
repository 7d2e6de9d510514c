package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.KeyWalk;
import io.dimstream.db.sql.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The writer's statements on the event memory: the winners remembered (a plain insert for events
 * newer than the key's newest, an upsert for the rest), the version starts written into the memory
 * before a region or a type-1 overwrite needs them ({@link WriterSql}), and pruning beyond the lateness
 * horizon, a chunk of keys at a time ({@link MemoryPruner}).
 */
final class MemorySql extends WriterNames {

    static final String PRUNE_LAST = "pg_temp.ds_prune_last";
    static final String PRUNE_BOUND = "pg_temp.ds_prune_bound";

    MemorySql(EntitySpec e) {
        super(e);
    }

    String insertMemory() {
        return "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + Sql.list(memCols) + " FROM " + winnersTable + " f WHERE " + newer
                + " AND NOT " + startsVersion;
    }

    String upsertMemory() {
        return "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + Sql.list(memCols) + " FROM " + winnersTable + " WHERE NOT " + newer
                + " ON CONFLICT (" + keyList + ", event_time) DO UPDATE SET "
                + Sql.each(memCols.subList(key.size() + 1, memCols.size()), c -> Sql.ident(c) + " = excluded." + Sql.ident(c), ", ");
    }

    // keys whose region is recomputed: their version starts the memory has no row of, from the
    // last version that starts before the key's earliest new event t0 on. The region begins at
    // the event just before t0, which is that start or later, and changes no version before it;
    // so fillAffectedKeys and fillRegion read the memory alone, as one complete timeline there.
    String rememberSlowStarts() {
        return "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + startAsEvent + " FROM (SELECT " + keyList + ", min(event_time) t0 FROM "
                + winnersTable + " WHERE NOT fast GROUP BY " + keyList + ") g JOIN " + t + " v ON " + Sql.eq("v", "g", key) + " AND v." + vf
                + " >= coalesce((SELECT w." + vf + " FROM " + t + " w WHERE " + Sql.eq("w", "g", key) + " AND w." + vf + " < g.t0 ORDER BY w." + vf
                + " DESC LIMIT 1), '-infinity'::timestamptz) WHERE " + notRemembered;
    }

    // a re-assertion about to overwrite the type-1 values of the open version: its start event
    // keeps its own values in the memory first (a late event may later split the run between them)
    String rememberType1Starts() {
        return type1.isEmpty() ? null : "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + startAsEvent + " FROM "
                + winnersTable + " f, " + t + " v WHERE " + overwritesType1 + " AND " + notRemembered;
    }

    // ---- pruning, a chunk of keys at a time (MemoryPruner): the chunk is the keys after the last
    // chunk's bound (PRUNE_LAST; none for the first chunk) up to its own (PRUNE_BOUND; none for
    // the last chunk), walked in key order over the memory's and the table's key indexes (KeyWalk).

    /** The last chunk's bound and this chunk's: temp tables of the key's columns, made anew. */
    List<String> createPruneBounds() {
        List<String> out = new ArrayList<>(KeyWalk.boundTable("ds_prune_last", t, key));
        out.addAll(KeyWalk.boundTable("ds_prune_bound", t, key));
        return out;
    }

    List<String> dropPruneBounds() {
        return List.of("DROP TABLE IF EXISTS " + PRUNE_LAST, "DROP TABLE IF EXISTS " + PRUNE_BOUND);
    }

    /** Empties PRUNE_BOUND before a chunk's bound is found. */
    List<String> clearPruneBound() {
        return List.of("TRUNCATE " + PRUNE_BOUND);
    }

    /**
     * A chunk's bound into PRUNE_BOUND: the n-th key, in key order, among the keys of the memory and
     * of the table after the last chunk's bound (from the first key when {@code first}); no row when
     * fewer keys are left, and the chunk is the last one. Each side reads at most the rows of n keys
     * along its key index. params: n, n, n - 1.
     */
    String nextPruneBound(boolean first) {
        return "INSERT INTO " + PRUNE_BOUND + " SELECT " + keyList + " FROM (" + side(m, "x", first) + " UNION " + side(t, "v", first)
                + ") u ORDER BY " + keyList + " OFFSET ? LIMIT 1";
    }

    private String side(String table, String alias, boolean first) {
        return "(SELECT " + Sql.list(alias, key) + " FROM " + table + " " + alias + (first ? "" : " WHERE " + KeyWalk.after(alias, key, PRUNE_LAST))
                + " GROUP BY " + Sql.list(alias, key) + " ORDER BY " + Sql.list(alias, key) + " LIMIT ?)";
    }

    /** This chunk's bound becomes the last one done. */
    List<String> advancePrune() {
        return List.of("TRUNCATE " + PRUNE_LAST, "INSERT INTO " + PRUNE_LAST + " SELECT " + keyList + " FROM " + PRUNE_BOUND);
    }

    /**
     * The prune statement over one chunk's keys: after the last chunk's bound unless {@code first},
     * up to this chunk's unless {@code last}; both: every key. param: the horizon (interval).
     */
    String prune(boolean first, boolean last) {
        if (first && last) {
            return prune(null);
        }
        return prune(a -> first ? KeyWalk.atMost(a, key, PRUNE_BOUND)
                : KeyWalk.after(a, key, PRUNE_LAST) + (last ? "" : " AND " + KeyWalk.atMost(a, key, PRUNE_BOUND)));
    }

    /** @param keys the condition on a row alias's key that restricts every scan and change to the chunk's keys; null: every key */
    private String prune(UnaryOperator<String> keys) {
        // per key, drop remembered events older than the latest one before (newest - horizon); that
        // one stays as the anchor and records the prune point. Over the memory and the version starts
        // it has no row of (EventMemory): an anchor that is such a start is written into the memory,
        // carrying the prune point; versions older than the anchor lose their event_seq, so their
        // starts are no longer read as events.
        // (One statement: its CTEs see one snapshot, so the anchor written here is not the one
        // `marked` updates; it is written with its prune point. Each key is pruned by one statement,
        // its chunk's, and by that statement alone, so this holds per key however the keys are cut
        // into chunks.)
        // The prune point is the anchor's time, or a later one the key already had: history
        // retention (io.dimstream.db.retention) moves it to its horizon, past the anchor, and a
        // lateness pruning after it must not move it back.
        String ev = EventMemory.eventsSql(e, keys);
        String inX = keys == null ? "" : " AND " + keys.apply("x");
        return "WITH ev AS MATERIALIZED (SELECT * FROM " + ev + " ev), "
                + "cut AS (SELECT " + keyList + ", max(event_time) - ?::interval AS cut FROM ev GROUP BY " + keyList + "), "
                // the key's prune point so far probed once per anchor, not once per event before the cut
                + "anchor AS (SELECT a.*, greatest(a.event_time, (SELECT max(y.pruned_to) FROM " + m + " y WHERE " + Sql.eq("y", "a", key)
                + ")) AS cut FROM (SELECT DISTINCT ON (" + Sql.list("x", key) + ") x.* FROM ev x JOIN cut c ON " + Sql.eq("x", "c", key)
                + " WHERE x.event_time < c.cut ORDER BY " + Sql.list("x", key) + ", x.event_time DESC) a), "
                + "mat AS (INSERT INTO " + m + " (" + Sql.list(memCols) + ", pruned_to) SELECT " + Sql.list(memCols) + ", cut FROM anchor "
                + "WHERE in_version RETURNING 1), "
                + "gone AS (DELETE FROM " + m + " x USING anchor a WHERE " + Sql.eq("x", "a", key) + " AND x.event_time < a.event_time" + inX
                + " RETURNING 1), "
                // counted as forgotten: a version start that stood for an event (no memory row at its time)
                + "unseq AS (UPDATE " + t + " v SET " + es + " = NULL FROM anchor a WHERE " + Sql.eq("v", "a", key) + " AND v." + vf
                + " < a.event_time AND v." + es + " IS NOT NULL" + (keys == null ? "" : " AND " + keys.apply("v")) + " RETURNING (NOT v." + del
                + " AND NOT EXISTS (SELECT 1 FROM " + m + " y WHERE " + Sql.eq("y", "v", key) + " AND y.event_time = v." + vf + ")) AS stood), "
                + "marked AS (UPDATE " + m + " x SET pruned_to = a.cut FROM anchor a WHERE " + Sql.eq("x", "a", key)
                + " AND x.event_time = a.event_time AND x.pruned_to IS DISTINCT FROM a.cut" + inX + " RETURNING 1) "
                + "SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FILTER (WHERE stood) FROM unseq), "
                + "(SELECT count(*) FROM marked) + (SELECT count(*) FROM mat)";
    }
}
