package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;

/**
 * The writer's statements for the keys whose region is recomputed (late or several events of a
 * key): the affected keys, the region's events with their predecessors, the versions the region
 * must have, and the table made equal to them (delete, update, insert). Part of {@link WriterSql}.
 */
final class RegionSql extends WriterNames {

    RegionSql(EntitySpec e) {
        super(e);
    }

    // ---- affected keys and their recompute region --------------------------------------
    String fillAffectedKeys() {
        return "INSERT INTO " + affectedKeysTable + " (" + keyList + ", t0, p_time, rstart) "
                + "SELECT " + Sql.list("g", key) + ", g.t0, p.event_time, "
                + "(SELECT v." + vf + " FROM " + t + " v WHERE " + Sql.eq("v", "g", key) + " AND v." + vf + " <= p.event_time ORDER BY v." + vf
                + " DESC LIMIT 1) "
                + "FROM (SELECT " + keyList + ", min(event_time) t0 FROM " + winnersTable + " WHERE NOT fast GROUP BY " + keyList + ") g "
                + "LEFT JOIN LATERAL (SELECT x.event_time FROM " + m + " x WHERE " + Sql.eq("x", "g", key)
                + " AND x.event_time < g.t0 ORDER BY x.event_time DESC LIMIT 1) p ON true";
    }

    // ---- the region: remembered events from p_time on, with the predecessor's state ---
    String fillRegion() {
        return "INSERT INTO " + regionTable + " SELECT " + Sql.list("x", batchCols) + ", "
                + "lag(x.event_time) OVER win IS NOT NULL, lag(x.is_deleted) OVER win, lag(x.record_hash) OVER win, a.rstart "
                + "FROM " + m + " x JOIN " + affectedKeysTable + " a ON " + Sql.eq("x", "a", key)
                + " WHERE x.event_time >= coalesce(a.p_time, '-infinity'::timestamptz) "
                + "WINDOW win AS (PARTITION BY " + Sql.list("x", key) + " ORDER BY x.event_time)";
    }

    // ---- the versions the region must have ---------------------------------------------
    // run_start: first event of the region, or a state change (delete flag, or hash of an upsert).
    // Run 1 continues the version that starts at rstart (if any); it keeps that row's start
    // and lineage. A delete run carries the previous version's attributes and hash; a delete
    // run with no earlier version produces no row.
    String fillRegionVersions() {
        return "INSERT INTO " + regionVersionsTable + " (" + keyList + ", valid_from, valid_to, is_deleted, record_hash, " + (attrs.isEmpty() ? "" : attrList + ", ")
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
                + "SELECT " + Sql.list("c", key) + ", c.valid_from, lead(c.valid_from, 1, " + e.openEnd() + ") OVER (PARTITION BY " + Sql.list("c", key)
                + " ORDER BY c.valid_from), c.is_deleted, c.record_hash, " + (attrs.isEmpty() ? "" : Sql.list("c", attrs) + ", ")
                + "c.source_topic, c.source_partition, c.source_offset, c.surrogate_key, c.event_seq FROM carried c WHERE NOT c.no_row";
    }

    // ---- make the table equal to ds_region_versions over each region: delete, then update, then insert ----
    // Closes precede inserts so the one-open-row index never sees two open rows.
    String deleteRows() {
        return "DELETE FROM " + t + " v USING " + affectedKeysTable + " a WHERE " + Sql.eq("v", "a", key)
                + " AND v." + vf + " >= coalesce(a.rstart, '-infinity'::timestamptz) AND NOT EXISTS (SELECT 1 FROM " + regionVersionsTable + " x WHERE "
                + Sql.eq("x", "v", key) + " AND x.valid_from = v." + vf + ")";
    }

    String updateRows() {
        String versionsCmp = "(x.valid_to, x.is_deleted, x.record_hash" + (attrs.isEmpty() ? "" : ", " + Sql.list("x", attrs)) + ")";
        String vCmp = "(v." + vt + ", v." + del + ", v." + hash + (attrs.isEmpty() ? "" : ", " + Sql.list("v", attrs)) + ")";
        return "UPDATE " + t + " v SET " + vt + " = x.valid_to, " + del + " = x.is_deleted, " + hash + " = x.record_hash, "
                + (attrs.isEmpty() ? "" : Sql.each(attrs, a -> Sql.ident(a) + " = x." + Sql.ident(a), ", ") + ", ")
                + Sql.ident(sc.sourceTopic()) + " = x.source_topic, " + Sql.ident(sc.sourcePartition()) + " = x.source_partition, "
                + Sql.ident(sc.sourceOffset()) + " = x.source_offset, " + es + " = x.event_seq, " + Sql.ident(sc.loadedAt()) + " = now() "
                + endKnown()
                + "FROM " + regionVersionsTable + " x WHERE " + Sql.eq("v", "x", key) + " AND v." + vf + " = x.valid_from AND " + vCmp + " IS DISTINCT FROM " + versionsCmp;
    }

    /**
     * With transaction time, when the row's end became known: now for a close, none while open, kept
     * otherwise; a rewrite of a closed row's end is the {@code T_supersede} trigger's (it keeps the old
     * image and stamps the new one).
     */
    private String endKnown() {
        if (!e.transactionTime()) {
            return "";
        }
        String ekf = Sql.ident(sc.endKnownFrom());
        return ", " + ekf + " = CASE WHEN " + e.validToCurrent().openTest("x.valid_to") + " THEN NULL WHEN " + e.openTest("v")
                + " THEN now() ELSE v." + ekf + " END ";
    }

    String insertRows() {
        return "INSERT INTO " + t + " (" + keyList + ", " + (attrs.isEmpty() ? "" : attrList + ", ") + Sql.ident(sc.surrogateKey()) + ", " + vf + ", "
                + vt + ", " + del + ", " + hash + ", " + Sql.ident(sc.sourceTopic()) + ", " + Sql.ident(sc.sourcePartition()) + ", "
                + Sql.ident(sc.sourceOffset()) + ", " + es + ") "
                + "SELECT " + Sql.list("x", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("x", attrs) + ", ")
                + "x.surrogate_key, x.valid_from, x.valid_to, x.is_deleted, x.record_hash, "
                + "x.source_topic, x.source_partition, x.source_offset, x.event_seq FROM " + regionVersionsTable + " x WHERE NOT EXISTS (SELECT 1 FROM " + t + " v WHERE "
                + Sql.eq("v", "x", key) + " AND v." + vf + " = x.valid_from)";
    }
}
