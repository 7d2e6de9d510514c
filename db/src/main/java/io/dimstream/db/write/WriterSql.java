package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.util.List;

/**
 * Every SQL statement the writer runs for one entity, generated once from its spec.
 * Identifiers go through {@link Sql}; values are bind parameters or COPY data.
 *
 * <p>Temporary work tables live per connection ({@code ON COMMIT DELETE ROWS}), so a pooled
 * connection creates them once and every batch starts with them empty. Each is named by its role
 * and a hash of the spec ({@code ds_<role>_<hash>}: a spec with other columns gets tables of its
 * own). Being temporary, they live in the session's {@code pg_temp} schema, which PostgreSQL
 * searches first (unless a {@code search_path} names it later): a user's table of the same name
 * neither stops their creation nor shadows them.
 * <ul>
 *   <li>{@code ds_batch}: a round of the batch ({@link ArrivalOrder}) as COPY delivered it (one
 *       row per key and event time), with what the round's earlier arrivals of the key say;</li>
 *   <li>{@code ds_winners}: the events that change the key's memory (not duplicates, not
 *       quarantined), with the key's newest event at their arrival;</li>
 *   <li>{@code ds_affected_keys}: per key whose region is recomputed, the earliest new event time
 *       {@code t0}, the remembered event just before it ({@code p_time}) and the start of the
 *       version holding it ({@code rstart}): the region from {@code p_time} on is recomputed;</li>
 *   <li>{@code ds_region}: the region's events with their predecessor's state;</li>
 *   <li>{@code ds_region_versions}: the versions the region must have (and the deleted rows of
 *       fast-path deletes); the table is made equal to it.</li>
 * </ul>
 *
 * <p>The work tables hold the entity's columns beside columns of the writer's own, and the
 * statements derive more; an entity column of one of these names would make a work table's
 * column twice, or a reference ambiguous, in every batch. {@link EntitySpec#WORK_COLUMNS} lists them,
 * and {@link EntitySpec} refuses them as column names. {@code WriterSqlNamesTest} runs every statement
 * with every other name this SQL contains as entity columns, so a work column added here without
 * being listed fails it.
 */
public final class WriterSql {

    final String batchTable;
    final String winnersTable;
    final String affectedKeysTable;
    final String regionTable;
    final String regionVersionsTable;

    final String createTemp;
    final String clearWork;
    final String truncateWork;
    final String analyzeWinners;
    final String analyzeAffectedKeys;
    final String analyzeRegionVersions;
    final String copyBatch;
    final String copyArrived;
    final String classify;
    final String classifyPruned;
    final String fastClose;
    final String fastCloseDeleted;
    final String fastNew;
    final String fastType1;
    final String prune;
    final String fillAffectedKeys;
    final String rememberSlowStarts;
    final String rememberType1Starts;
    final String insertMemory;
    final String upsertMemory;
    final String fillRegion;
    final String fillRegionVersions;
    final String deleteRows;
    final String updateRows;
    final String insertRows;

    WriterSql(EntitySpec e) {
        String id = Integer.toHexString((e.name() + "\0" + e.table() + "\0" + e.columns()).hashCode());
        batchTable = Sql.ident("ds_batch_" + id);
        winnersTable = Sql.ident("ds_winners_" + id);
        affectedKeysTable = Sql.ident("ds_affected_keys_" + id);
        regionTable = Sql.ident("ds_region_" + id);
        regionVersionsTable = Sql.ident("ds_region_versions_" + id);

        SystemColumns sc = e.system();
        List<String> key = e.key();
        List<String> attrs = e.attributes();
        List<String> type1 = e.type1();
        String t = Sql.table(e.table());
        String m = Sql.table(e.memoryTable());
        String keyDefs = Sql.each(key, k -> Sql.ident(k) + " " + e.type(k).sqlName(), ", ");
        String attrDefs = attrs.isEmpty() ? "" : Sql.each(attrs, a -> Sql.ident(a) + " " + e.type(a).sqlName(), ", ") + ", ";
        String keyList = Sql.list(key);
        String attrList = Sql.list(attrs);
        String vf = Sql.ident(sc.validFrom());
        String vt = Sql.ident(sc.validTo());
        String del = Sql.ident(sc.isDeleted());
        String hash = Sql.ident(sc.recordHash());
        String es = Sql.ident(sc.eventSeq());
        // a version row as the memory row of the event that started it, and when it stands for that event (EventMemory)
        String startAsEvent = EventMemory.versionAsEvent(e, "v", "v." + es);
        String notRemembered = EventMemory.standsForItsStart(e, "v");

        // ---- work tables -------------------------------------------------------------------
        // the batch's columns are the memory's (key, event_time, seq, is_deleted, record_hash, attributes, lineage, surrogate_key)
        List<String> batchCols = EventMemory.columns(e);
        String eventCols = Sql.list(batchCols);
        List<String> memCols = batchCols;
        String eventDefs = keyDefs + ", event_time timestamptz, seq bigint, is_deleted boolean, record_hash bytea, " + attrDefs
                + "source_topic text, source_partition integer, source_offset bigint, surrogate_key bigint";
        createTemp = "CREATE TEMP TABLE IF NOT EXISTS " + batchTable + " (" + eventDefs + ", " + ClassifySql.BATCH_EXTRA_DEFS + ") ON COMMIT DELETE ROWS;\n"
                + "CREATE TEMP TABLE IF NOT EXISTS " + winnersTable + " (" + eventDefs
                + ", newest timestamptz, newest_deleted boolean, newest_hash bytea, fast boolean) ON COMMIT DELETE ROWS;\n"
                + "CREATE TEMP TABLE IF NOT EXISTS " + affectedKeysTable + " (" + keyDefs
                + ", t0 timestamptz, p_time timestamptz, rstart timestamptz) ON COMMIT DELETE ROWS;\n"
                + "CREATE TEMP TABLE IF NOT EXISTS " + regionTable + " (" + eventDefs
                + ", prev_exists boolean, prev_deleted boolean, prev_hash bytea, rstart timestamptz) ON COMMIT DELETE ROWS;\n"
                + "CREATE TEMP TABLE IF NOT EXISTS " + regionVersionsTable + " (" + keyDefs + ", valid_from timestamptz, valid_to timestamptz, is_deleted boolean, "
                + "record_hash bytea, " + attrDefs + "source_topic text, source_partition integer, source_offset bigint, surrogate_key bigint, "
                + "event_seq bigint) ON COMMIT DELETE ROWS;\n"
                // the region's delete probes ds_region_versions once per version row of the region (NOT EXISTS)
                + "CREATE INDEX IF NOT EXISTS " + Sql.ident("ds_region_versions_" + id + "_key") + " ON " + regionVersionsTable + " (" + Sql.list(key) + ", valid_from)";
        // The work tables empty themselves at commit (ON COMMIT DELETE ROWS); this empties them
        // for a second apply of the entity in the same transaction (a sink batch and the deletes
        // of a completed snapshot slice). DELETE, not TRUNCATE: a TRUNCATE gives each table a new
        // file in every transaction, ~1 ms more per batch measured on 5 temp tables.
        clearWork = "DELETE FROM " + batchTable + "; DELETE FROM " + winnersTable + "; DELETE FROM " + affectedKeysTable + "; DELETE FROM " + regionTable + "; DELETE FROM " + regionVersionsTable;
        // For many applies in one transaction (the sink isolating the records PostgreSQL refused,
        // each apply under a savepoint): DELETE, and the rollback of a refused apply, leave their
        // dead rows in the work tables until the transaction ends, and every later apply would scan them.
        truncateWork = createTemp + ";\nTRUNCATE " + batchTable + ", " + winnersTable + ", " + affectedKeysTable + ", " + regionTable + ", " + regionVersionsTable;
        // Row counts and the statistics of the join columns only: the planner needs no more, and
        // the hash and attribute columns made ANALYZE of a 5,000-row ds_winners cost ~15 ms.
        analyzeWinners = "ANALYZE " + winnersTable + " (" + keyList + ", event_time, fast)";
        analyzeAffectedKeys = "ANALYZE " + affectedKeysTable + " (" + keyList + ")";
        analyzeRegionVersions = "ANALYZE " + regionVersionsTable + " (" + keyList + ", valid_from)";

        // ---- classify the batch (a round of it) against the memory, at each event's arrival: ClassifySql
        ClassifySql cs = new ClassifySql(e, batchTable, winnersTable);
        copyBatch = cs.copyBatch();
        copyArrived = cs.copyArrived();
        classify = cs.classify("NULL::timestamptz");
        classifyPruned = cs.classify("(SELECT x.pruned_to FROM " + m + " x WHERE " + Sql.eq("x", "s", key) + " ORDER BY x.event_time LIMIT 1)");

        // ---- affected keys and their recompute region --------------------------------------
        fillAffectedKeys = "INSERT INTO " + affectedKeysTable + " (" + keyList + ", t0, p_time, rstart) "
                + "SELECT " + Sql.list("g", key) + ", g.t0, p.event_time, "
                + "(SELECT v." + vf + " FROM " + t + " v WHERE " + Sql.eq("v", "g", key) + " AND v." + vf + " <= p.event_time ORDER BY v." + vf
                + " DESC LIMIT 1) "
                + "FROM (SELECT " + keyList + ", min(event_time) t0 FROM " + winnersTable + " WHERE NOT fast GROUP BY " + keyList + ") g "
                + "LEFT JOIN LATERAL (SELECT x.event_time FROM " + m + " x WHERE " + Sql.eq("x", "g", key)
                + " AND x.event_time < g.t0 ORDER BY x.event_time DESC LIMIT 1) p ON true";

        // ---- remember the winners -----------------------------------------------------------
        // An event newer than its key's newest remembered one cannot meet a remembered (key, time):
        // a plain insert (no speculative insertion, one index descent fewer per event). The rest
        // (late or same-time events) may replace a remembered event: upsert.
        String newer = "(newest IS NULL OR event_time > newest)";
        // Not remembered: a fast upsert that starts a version (what fastNew inserts). Its version
        // row shows it (key, time, hash, attributes, lineage, surrogate key, and its seq in
        // event_seq), and every reader takes such a version's start as an event (EventMemory).
        // Before anything changes such a row's content or the memory must hold the event for a
        // region, the event is written into the memory from the row (rememberSlowStarts,
        // rememberType1Starts, prune's anchor).
        // One predicate each, over ds_winners f, for what two statements must agree on: the fast
        // upserts that start a version (fastNew inserts exactly them, insertMemory leaves exactly
        // them out), and the re-assertions that overwrite the open version's type-1 values (with
        // the version v; fastType1 overwrites exactly those rows, rememberType1Starts first
        // remembers their starts).
        String startsVersion = "(f.fast AND NOT f.is_deleted AND (f.newest IS NULL OR f.newest_deleted OR f.newest_hash IS DISTINCT FROM f.record_hash))";
        String overwritesType1 = type1.isEmpty() ? null : "f.fast AND NOT f.is_deleted AND f.newest IS NOT NULL AND NOT f.newest_deleted "
                + "AND f.newest_hash = f.record_hash AND " + Sql.eq("v", "f", key) + " AND v." + vt + " IS NULL AND NOT v." + del + " AND v." + hash
                + " = f.record_hash AND (" + Sql.list("v", type1) + ") IS DISTINCT FROM (" + Sql.list("f", type1) + ")";
        insertMemory = "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + Sql.list(memCols) + " FROM " + winnersTable + " f WHERE " + newer
                + " AND NOT " + startsVersion;
        upsertMemory = "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + Sql.list(memCols) + " FROM " + winnersTable + " WHERE NOT " + newer
                + " ON CONFLICT (" + keyList + ", event_time) DO UPDATE SET "
                + Sql.each(memCols.subList(key.size() + 1, memCols.size()), c -> Sql.ident(c) + " = excluded." + Sql.ident(c), ", ");

        // keys whose region is recomputed: their version starts the memory has no row of, from the
        // last version that starts before the key's earliest new event t0 on. The region begins at
        // the event just before t0, which is that start or later, and changes no version before it;
        // so fillAffectedKeys and fillRegion read the memory alone, as one complete timeline there.
        rememberSlowStarts = "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + startAsEvent + " FROM (SELECT " + keyList + ", min(event_time) t0 FROM "
                + winnersTable + " WHERE NOT fast GROUP BY " + keyList + ") g JOIN " + t + " v ON " + Sql.eq("v", "g", key) + " AND v." + vf
                + " >= coalesce((SELECT w." + vf + " FROM " + t + " w WHERE " + Sql.eq("w", "g", key) + " AND w." + vf + " < g.t0 ORDER BY w." + vf
                + " DESC LIMIT 1), '-infinity'::timestamptz) WHERE " + notRemembered;
        // a re-assertion about to overwrite the type-1 values of the open version: its start event
        // keeps its own values in the memory first (a late event may later split the run between them)
        rememberType1Starts = type1.isEmpty() ? null : "INSERT INTO " + m + " (" + Sql.list(memCols) + ") SELECT " + startAsEvent + " FROM "
                + winnersTable + " f, " + t + " v WHERE " + overwritesType1 + " AND " + notRemembered;

        // ---- the region: remembered events from p_time on, with the predecessor's state ---
        fillRegion = "INSERT INTO " + regionTable + " SELECT " + Sql.list("x", batchCols) + ", "
                + "lag(x.event_time) OVER win IS NOT NULL, lag(x.is_deleted) OVER win, lag(x.record_hash) OVER win, a.rstart "
                + "FROM " + m + " x JOIN " + affectedKeysTable + " a ON " + Sql.eq("x", "a", key)
                + " WHERE x.event_time >= coalesce(a.p_time, '-infinity'::timestamptz) "
                + "WINDOW win AS (PARTITION BY " + Sql.list("x", key) + " ORDER BY x.event_time)";

        // ---- the versions the region must have ---------------------------------------------
        // run_start: first event of the region, or a state change (delete flag, or hash of an upsert).
        // Run 1 continues the version that starts at rstart (if any); it keeps that row's start
        // and lineage. A delete run carries the previous version's attributes and hash; a delete
        // run with no earlier version produces no row.
        fillRegionVersions = "INSERT INTO " + regionVersionsTable + " (" + keyList + ", valid_from, valid_to, is_deleted, record_hash, " + (attrs.isEmpty() ? "" : attrList + ", ")
                + "source_topic, source_partition, source_offset, surrogate_key, event_seq) "
                + "WITH flagged AS (SELECT r.*, (NOT r.prev_exists OR r.prev_deleted <> r.is_deleted "
                + "OR (NOT r.is_deleted AND r.prev_hash IS DISTINCT FROM r.record_hash)) AS run_start FROM " + regionTable + " r), "
                + "numbered AS (SELECT f.*, sum(f.run_start::int) OVER (PARTITION BY " + Sql.list("f", key) + " ORDER BY f.event_time) AS run_no FROM flagged f), "
                + "lasts AS (SELECT DISTINCT ON (" + keyList + ", run_no) " + keyList + ", run_no"
                + (type1.isEmpty() ? "" : ", " + Sql.list(type1)) + " FROM numbered ORDER BY " + keyList + ", run_no, event_time DESC), "
                + "runs AS (SELECT " + Sql.list("f", key) + ", f.run_no, f.is_deleted, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN f.rstart ELSE f.event_time END AS valid_from, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + hash + " ELSE f.record_hash END AS record_hash, "
                + Sql.each(e.tracked(), a -> "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL AND f.is_deleted THEN o." + Sql.ident(a) + " ELSE f." + Sql.ident(a) + " END AS " + Sql.ident(a), ", ") + ", "
                + (type1.isEmpty() ? "" : Sql.each(type1, a -> "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL AND f.is_deleted THEN o." + Sql.ident(a) + " ELSE l." + Sql.ident(a) + " END AS " + Sql.ident(a), ", ") + ", ")
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + Sql.ident(sc.sourceTopic()) + " ELSE f.source_topic END AS source_topic, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + Sql.ident(sc.sourcePartition()) + " ELSE f.source_partition END AS source_partition, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + Sql.ident(sc.sourceOffset()) + " ELSE f.source_offset END AS source_offset, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + Sql.ident(sc.surrogateKey()) + " ELSE f.surrogate_key END AS surrogate_key, "
                + "CASE WHEN f.run_no = 1 AND f.rstart IS NOT NULL THEN o." + es + " ELSE f.seq END AS event_seq, "
                + "(f.run_no = 1 AND f.rstart IS NULL AND f.is_deleted) AS no_row "
                + "FROM numbered f JOIN lasts l ON " + Sql.eq("l", "f", key) + " AND l.run_no = f.run_no "
                // LATERAL ... LIMIT 1: a probe of the primary key per run-1 row whatever the join
                // settings (never a scan of the table), skipped (one-time filter) for the other rows
                + "LEFT JOIN LATERAL (SELECT * FROM " + t + " o WHERE f.run_no = 1 AND f.rstart IS NOT NULL AND " + Sql.eq("o", "f", key)
                + " AND o." + vf + " = f.rstart LIMIT 1) o ON true "
                + "WHERE f.run_start), "
                // a delete run (not run 1) takes the attributes and hash of the upsert run before it
                + "carried AS (SELECT x." + Sql.each(key, Sql::ident, ", x.") + ", x.run_no, x.valid_from, x.is_deleted, x.no_row, "
                + "CASE WHEN x.is_deleted AND x.run_no > 1 THEN lag(x.record_hash) OVER k ELSE x.record_hash END AS record_hash, "
                + (attrs.isEmpty() ? "" : Sql.each(attrs, a -> "CASE WHEN x.is_deleted AND x.run_no > 1 THEN lag(x." + Sql.ident(a) + ") OVER k ELSE x."
                        + Sql.ident(a) + " END AS " + Sql.ident(a), ", ") + ", ")
                + "x.source_topic, x.source_partition, x.source_offset, x.surrogate_key, x.event_seq FROM runs x WINDOW k AS (PARTITION BY " + Sql.list("x", key) + " ORDER BY x.run_no)) "
                + "SELECT " + Sql.list("c", key) + ", c.valid_from, lead(c.valid_from) OVER (PARTITION BY " + Sql.list("c", key)
                + " ORDER BY c.valid_from), c.is_deleted, c.record_hash, " + (attrs.isEmpty() ? "" : Sql.list("c", attrs) + ", ")
                + "c.source_topic, c.source_partition, c.source_offset, c.surrogate_key, c.event_seq FROM carried c WHERE NOT c.no_row";

        // ---- make the table equal to ds_region_versions over each region: delete, then update, then insert ----
        // Closes precede inserts so the one-open-row index never sees two open rows.
        deleteRows = "DELETE FROM " + t + " v USING " + affectedKeysTable + " a WHERE " + Sql.eq("v", "a", key)
                + " AND v." + vf + " >= coalesce(a.rstart, '-infinity'::timestamptz) AND NOT EXISTS (SELECT 1 FROM " + regionVersionsTable + " x WHERE "
                + Sql.eq("x", "v", key) + " AND x.valid_from = v." + vf + ")";
        String versionsCmp = "(x.valid_to, x.is_deleted, x.record_hash" + (attrs.isEmpty() ? "" : ", " + Sql.list("x", attrs)) + ")";
        String vCmp = "(v." + vt + ", v." + del + ", v." + hash + (attrs.isEmpty() ? "" : ", " + Sql.list("v", attrs)) + ")";
        updateRows = "UPDATE " + t + " v SET " + vt + " = x.valid_to, " + del + " = x.is_deleted, " + hash + " = x.record_hash, "
                + (attrs.isEmpty() ? "" : Sql.each(attrs, a -> Sql.ident(a) + " = x." + Sql.ident(a), ", ") + ", ")
                + Sql.ident(sc.sourceTopic()) + " = x.source_topic, " + Sql.ident(sc.sourcePartition()) + " = x.source_partition, "
                + Sql.ident(sc.sourceOffset()) + " = x.source_offset, " + es + " = x.event_seq, " + Sql.ident(sc.loadedAt()) + " = now() "
                + "FROM " + regionVersionsTable + " x WHERE " + Sql.eq("v", "x", key) + " AND v." + vf + " = x.valid_from AND " + vCmp + " IS DISTINCT FROM " + versionsCmp;

        // ---- fast path: in-order single events, against the key's newest remembered state ----
        // An upsert that changes the state closes the open row (no RETURNING: the successor comes
        // from ds_winners). Its guard repeats the state test against the row itself (IS DISTINCT FROM), so a
        // row already closed or already equal is left alone.
        fastClose = "UPDATE " + t + " v SET " + vt + " = f.event_time, " + Sql.ident(sc.loadedAt()) + " = now() "
                + "FROM " + winnersTable + " f WHERE f.fast AND NOT f.is_deleted AND f.newest IS NOT NULL "
                + "AND (f.newest_deleted OR f.newest_hash IS DISTINCT FROM f.record_hash) "
                + "AND " + Sql.eq("v", "f", key) + " AND v." + vt + " IS NULL "
                + "AND (v." + del + " OR v." + hash + " IS DISTINCT FROM f.record_hash)";
        // a delete closes the open row and gets its is_deleted row (into ds_region_versions), which carries the
        // closed row's attributes and hash
        fastCloseDeleted = "WITH closed AS (UPDATE " + t + " v SET " + vt + " = f.event_time, " + Sql.ident(sc.loadedAt()) + " = now() "
                + "FROM " + winnersTable + " f WHERE f.fast AND f.is_deleted AND f.newest IS NOT NULL AND NOT f.newest_deleted "
                + "AND " + Sql.eq("v", "f", key) + " AND v." + vt + " IS NULL AND NOT v." + del + " "
                + "RETURNING " + Sql.list("v", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("v", attrs) + ", ") + "v." + hash
                + " AS old_hash, f.event_time, f.source_topic, f.source_partition, f.source_offset, f.surrogate_key AS new_sk, f.seq AS new_seq) "
                + ", ins AS (INSERT INTO " + regionVersionsTable + " (" + keyList + ", valid_from, valid_to, is_deleted, record_hash, " + (attrs.isEmpty() ? "" : attrList + ", ")
                + "source_topic, source_partition, source_offset, surrogate_key, event_seq) SELECT " + keyList + ", event_time, NULL, true, old_hash, "
                + (attrs.isEmpty() ? "" : attrList + ", ") + "source_topic, source_partition, source_offset, new_sk, new_seq FROM closed RETURNING 1) "
                + "SELECT count(*) FROM closed";
        // the successor of a fast close, or a new key's first version: straight into the table.
        // No NOT EXISTS probe: its time is newer than every remembered event of the key, and a
        // version row starts at a remembered event (both written in the same transaction), so no
        // row can be there; a re-applied batch finds its events remembered and never gets here.
        fastNew = "INSERT INTO " + t + " (" + keyList + ", " + (attrs.isEmpty() ? "" : attrList + ", ") + Sql.ident(sc.surrogateKey()) + ", " + vf + ", "
                + vt + ", " + del + ", " + hash + ", " + Sql.ident(sc.sourceTopic()) + ", " + Sql.ident(sc.sourcePartition()) + ", "
                + Sql.ident(sc.sourceOffset()) + ", " + es + ") SELECT " + Sql.list("f", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("f", attrs) + ", ")
                + "f.surrogate_key, f.event_time, NULL, false, f.record_hash, f.source_topic, f.source_partition, f.source_offset, f.seq FROM " + winnersTable + " f "
                + "WHERE " + startsVersion;
        // a re-assertion overwrites the type-1 columns of the open version in place
        fastType1 = type1.isEmpty() ? null : "UPDATE " + t + " v SET " + Sql.each(type1, a -> Sql.ident(a) + " = f." + Sql.ident(a), ", ")
                + ", " + Sql.ident(sc.loadedAt()) + " = now() FROM " + winnersTable + " f WHERE " + overwritesType1;

        // ---- pruning: per key, drop remembered events older than the latest one before
        // (newest - horizon); that one stays as the anchor and records the prune point. Over the
        // memory and the version starts it has no row of (EventMemory): an anchor that is such a
        // start is written into the memory, carrying the prune point; versions older than the
        // anchor lose their event_seq, so their starts are no longer read as events.
        // (One statement: its CTEs see one snapshot, so the anchor written here is not the one
        // `marked` updates; it is written with its prune point.)
        // param: horizon interval
        String ev = EventMemory.eventsSql(e);
        prune = "WITH ev AS MATERIALIZED (SELECT * FROM " + ev + " ev), "
                + "cut AS (SELECT " + keyList + ", max(event_time) - ?::interval AS cut FROM ev GROUP BY " + keyList + "), "
                + "anchor AS (SELECT DISTINCT ON (" + Sql.list("x", key) + ") x.* FROM ev x JOIN cut c ON "
                + Sql.eq("x", "c", key) + " WHERE x.event_time < c.cut ORDER BY " + Sql.list("x", key) + ", x.event_time DESC), "
                + "mat AS (INSERT INTO " + m + " (" + Sql.list(memCols) + ", pruned_to) SELECT " + Sql.list(memCols) + ", event_time FROM anchor "
                + "WHERE in_version RETURNING 1), "
                + "gone AS (DELETE FROM " + m + " x USING anchor a WHERE " + Sql.eq("x", "a", key) + " AND x.event_time < a.event_time RETURNING 1), "
                // counted as forgotten: a version start that stood for an event (no memory row at its time)
                + "unseq AS (UPDATE " + t + " v SET " + es + " = NULL FROM anchor a WHERE " + Sql.eq("v", "a", key) + " AND v." + vf
                + " < a.event_time AND v." + es + " IS NOT NULL RETURNING (NOT v." + del + " AND NOT EXISTS (SELECT 1 FROM " + m + " y WHERE "
                + Sql.eq("y", "v", key) + " AND y.event_time = v." + vf + ")) AS stood), "
                + "marked AS (UPDATE " + m + " x SET pruned_to = a.event_time FROM anchor a WHERE " + Sql.eq("x", "a", key)
                + " AND x.event_time = a.event_time AND x.pruned_to IS DISTINCT FROM a.event_time RETURNING 1) "
                + "SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FILTER (WHERE stood) FROM unseq), "
                + "(SELECT count(*) FROM marked) + (SELECT count(*) FROM mat)";

        insertRows = "INSERT INTO " + t + " (" + keyList + ", " + (attrs.isEmpty() ? "" : attrList + ", ") + Sql.ident(sc.surrogateKey()) + ", " + vf + ", "
                + vt + ", " + del + ", " + hash + ", " + Sql.ident(sc.sourceTopic()) + ", " + Sql.ident(sc.sourcePartition()) + ", "
                + Sql.ident(sc.sourceOffset()) + ", " + es + ") "
                + "SELECT " + Sql.list("x", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("x", attrs) + ", ")
                + "x.surrogate_key, x.valid_from, x.valid_to, x.is_deleted, x.record_hash, "
                + "x.source_topic, x.source_partition, x.source_offset, x.event_seq FROM " + regionVersionsTable + " x WHERE NOT EXISTS (SELECT 1 FROM " + t + " v WHERE "
                + Sql.eq("v", "x", key) + " AND v." + vf + " = x.valid_from)";
    }

}
