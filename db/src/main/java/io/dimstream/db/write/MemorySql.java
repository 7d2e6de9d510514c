package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;

/**
 * The writer's statements on the event memory: the winners remembered (a plain insert for events
 * newer than the key's newest, an upsert for the rest), the version starts written into the memory
 * before a region or a type-1 overwrite needs them, and pruning beyond the lateness horizon. Part of
 * {@link WriterSql}.
 */
final class MemorySql extends WriterNames {

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

    String prune() {
        // ---- pruning: per key, drop remembered events older than the latest one before
        // (newest - horizon); that one stays as the anchor and records the prune point. Over the
        // memory and the version starts it has no row of (EventMemory): an anchor that is such a
        // start is written into the memory, carrying the prune point; versions older than the
        // anchor lose their event_seq, so their starts are no longer read as events.
        // (One statement: its CTEs see one snapshot, so the anchor written here is not the one
        // `marked` updates; it is written with its prune point.)
        // The prune point is the anchor's time, or a later one the key already had: history
        // retention (io.dimstream.db.retention) moves it to its horizon, past the anchor, and a
        // lateness pruning after it must not move it back.
        // param: horizon interval
        String ev = EventMemory.eventsSql(e);
        return "WITH ev AS MATERIALIZED (SELECT * FROM " + ev + " ev), "
                + "cut AS (SELECT " + keyList + ", max(event_time) - ?::interval AS cut FROM ev GROUP BY " + keyList + "), "
                + "anchor AS (SELECT DISTINCT ON (" + Sql.list("x", key) + ") x.*, greatest(x.event_time, (SELECT max(y.pruned_to) FROM " + m
                + " y WHERE " + Sql.eq("y", "x", key) + ")) AS cut FROM ev x JOIN cut c ON "
                + Sql.eq("x", "c", key) + " WHERE x.event_time < c.cut ORDER BY " + Sql.list("x", key) + ", x.event_time DESC), "
                + "mat AS (INSERT INTO " + m + " (" + Sql.list(memCols) + ", pruned_to) SELECT " + Sql.list(memCols) + ", cut FROM anchor "
                + "WHERE in_version RETURNING 1), "
                + "gone AS (DELETE FROM " + m + " x USING anchor a WHERE " + Sql.eq("x", "a", key) + " AND x.event_time < a.event_time RETURNING 1), "
                // counted as forgotten: a version start that stood for an event (no memory row at its time)
                + "unseq AS (UPDATE " + t + " v SET " + es + " = NULL FROM anchor a WHERE " + Sql.eq("v", "a", key) + " AND v." + vf
                + " < a.event_time AND v." + es + " IS NOT NULL RETURNING (NOT v." + del + " AND NOT EXISTS (SELECT 1 FROM " + m + " y WHERE "
                + Sql.eq("y", "v", key) + " AND y.event_time = v." + vf + ")) AS stood), "
                + "marked AS (UPDATE " + m + " x SET pruned_to = a.cut FROM anchor a WHERE " + Sql.eq("x", "a", key)
                + " AND x.event_time = a.event_time AND x.pruned_to IS DISTINCT FROM a.cut RETURNING 1) "
                + "SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FILTER (WHERE stood) FROM unseq), "
                + "(SELECT count(*) FROM marked) + (SELECT count(*) FROM mat)";
    }
}
