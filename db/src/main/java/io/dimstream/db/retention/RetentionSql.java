package io.dimstream.db.retention;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.KeyWalk;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.write.EventMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of {@link HistoryRetainer} for one entity. A run walks the keys that have something
 * to retire in key order, a batch of keys at a time ({@code ds_retention_keys}; the last key done is
 * {@code ds_retention_last}, so each batch's probe resumes where the last stopped along the primary
 * key instead of scanning from the start).
 */
final class RetentionSql {

    static final String KEYS = "pg_temp.ds_retention_keys";
    static final String LAST = "pg_temp.ds_retention_last";
    /** Grain instants are 1970-01-01T00:00Z + n x grain. */
    private static final String ORIGIN = "TIMESTAMPTZ '1970-01-01 00:00:00+00'";

    private final EntitySpec e;
    private final List<String> key;
    private final String t;
    private final String m;
    private final String keyList;
    private final String vf;
    private final String vt;

    RetentionSql(EntitySpec e) {
        this.e = e;
        this.key = e.key();
        this.t = Sql.table(e.table());
        this.m = Sql.table(e.memoryTable());
        this.keyList = Sql.list(key);
        SystemColumns sc = e.system();
        this.vf = Sql.ident(sc.validFrom());
        this.vt = Sql.ident(sc.validTo());
    }

    /** The two work tables, of the key's columns and types, made anew. */
    List<String> createWorkTables() {
        List<String> out = new ArrayList<>(KeyWalk.boundTable("ds_retention_keys", t, key));
        out.addAll(KeyWalk.boundTable("ds_retention_last", t, key));
        return out;
    }

    List<String> dropWorkTables() {
        return List.of("DROP TABLE IF EXISTS " + KEYS, "DROP TABLE IF EXISTS " + LAST);
    }

    /** Empties the batch's keys. */
    String clearKeys() {
        return "TRUNCATE " + KEYS;
    }

    /**
     * The next {@code limit} keys with a version ended before the horizon: the first ones
     * ({@code first}), else those after the last one done. param: the retention horizon.
     */
    String nextRetiredKeys(int limit, boolean first) {
        return nextKeys("", "v." + vt + " < ?", limit, first);
    }

    /**
     * The next {@code limit} keys with a version the grain drops, as {@link #nextRetiredKeys}.
     * params: the grain (interval), the grain horizon.
     */
    String nextGrainedKeys(int limit, boolean first) {
        return nextKeys(", (SELECT ?::interval AS g) p", "v." + vt + " < ? AND " + dropped("v"), limit, first);
    }

    /**
     * {@code condition} over the table's rows {@code v} (and what {@code alsoFrom} adds to its FROM),
     * walked along the primary key after the last key done ({@link KeyWalk}).
     */
    private String nextKeys(String alsoFrom, String condition, int limit, boolean first) {
        String after = KeyWalk.after("v", key, LAST);
        return "INSERT INTO " + KEYS + " (" + keyList + ") SELECT " + Sql.list("v", key) + " FROM " + t + " v" + alsoFrom + " WHERE "
                + condition + (first ? "" : " AND " + after) + " GROUP BY " + Sql.list("v", key) + " ORDER BY " + Sql.list("v", key)
                + " LIMIT " + limit;
    }

    /**
     * Statistics of the batch's keys, so the statements that join them with the table and the memory
     * probe the primary keys instead of scanning (a temp table has none of its own), as the writer
     * analyzes its affected keys.
     */
    String analyzeKeys() {
        return "ANALYZE " + KEYS;
    }

    /** Remembers the batch's greatest key as the last one done. */
    List<String> advanceLast() {
        return List.of("TRUNCATE " + LAST, "INSERT INTO " + LAST + " SELECT " + keyList + " FROM " + KEYS + " ORDER BY "
                + Sql.each(key, c -> Sql.ident(c) + " DESC", ", ") + " LIMIT 1");
    }

    /** The batch's versions ended before the horizon. param: the horizon. */
    String deleteRetired() {
        return "DELETE FROM " + t + " v USING " + KEYS + " k WHERE " + Sql.eq("v", "k", key) + " AND v." + vt + " < ?";
    }

    /**
     * Whether version {@code v} is valid at no grain instant ({@code p.g} the grain): it starts off
     * an instant and ends at or before the next one. Valid at instant x means valid_from <= x <
     * valid_to.
     */
    private String dropped(String v) {
        String bin = "date_bin(p.g, " + v + "." + vf + ", " + ORIGIN + ")";
        return v + "." + vf + " <> " + bin + " AND " + v + "." + vt + " <= " + bin + " + p.g";
    }

    /** The batch's versions ended before the grain horizon and valid at no grain instant. params: the grain, the grain horizon. */
    String deleteGrained() {
        return "DELETE FROM " + t + " v USING " + KEYS + " k, (SELECT ?::interval AS g) p WHERE " + Sql.eq("v", "k", key) + " AND v." + vt
                + " < ? AND " + dropped("v");
    }

    /**
     * Each version of the batch's keys before the grain horizon lasts until the next one left: a kept
     * version's valid_to moves over the dropped versions that followed it. param: the grain horizon.
     */
    String extendKept() {
        return "UPDATE " + t + " v SET " + vt + " = n.next_start FROM (SELECT " + Sql.list("x", key) + ", x." + vf + " AS start, lead(x." + vf
                + ") OVER (PARTITION BY " + Sql.list("x", key) + " ORDER BY x." + vf + ") AS next_start FROM " + t + " x JOIN " + KEYS
                + " k ON " + Sql.eq("x", "k", key) + " WHERE x." + vf + " < ?) n WHERE " + Sql.eq("v", "n", key) + " AND v." + vf
                + " = n.start AND n.next_start IS NOT NULL AND v." + vt + " IS DISTINCT FROM n.next_start";
    }

    /**
     * Moves the batch's keys' prune point to {@code P}, as the lateness pruning does (DESIGN 5b,
     * {@code MemorySql.prune}): the anchor is the key's latest remembered event at or before P;
     * remembered events before it are dropped, versions starting before it lose their
     * {@code event_seq} (their starts are no longer read as events), and the anchor (written into
     * the memory from its version when only the version stands for it) records the prune point: P,
     * or a later one the key had. An event at or before it is quarantined from then on.
     * params: P, P. Returns one row: the remembered events removed, the anchors marked.
     */
    String anchor() {
        String es = Sql.ident(e.system().eventSeq());
        List<String> memCols = EventMemory.columns(e);
        return "WITH ev AS MATERIALIZED (SELECT x.* FROM " + EventMemory.eventsSql(e) + " x JOIN " + KEYS + " k ON " + Sql.eq("x", "k", key)
                + " WHERE x.event_time <= ?), "
                + "anchor AS (SELECT DISTINCT ON (" + Sql.list("x", key) + ") x.*, greatest(?::timestamptz, (SELECT max(y.pruned_to) FROM " + m
                + " y WHERE " + Sql.eq("y", "x", key) + ")) AS cut FROM ev x ORDER BY " + Sql.list("x", key) + ", x.event_time DESC), "
                + "mat AS (INSERT INTO " + m + " (" + Sql.list(memCols) + ", pruned_to) SELECT " + Sql.list(memCols) + ", cut FROM anchor "
                + "WHERE in_version RETURNING 1), "
                + "gone AS (DELETE FROM " + m + " x USING anchor a WHERE " + Sql.eq("x", "a", key) + " AND x.event_time < a.event_time RETURNING 1), "
                + "unseq AS (UPDATE " + t + " v SET " + es + " = NULL FROM anchor a WHERE " + Sql.eq("v", "a", key) + " AND v." + vf
                + " < a.event_time AND v." + es + " IS NOT NULL RETURNING 1), "
                + "marked AS (UPDATE " + m + " x SET pruned_to = a.cut FROM anchor a WHERE " + Sql.eq("x", "a", key)
                + " AND x.event_time = a.event_time AND NOT a.in_version AND x.pruned_to IS DISTINCT FROM a.cut RETURNING 1) "
                + "SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM mat) + (SELECT count(*) FROM marked)";
    }

    /** The superseded table's name ({@code <table>_superseded}, transaction time), for to_regclass. */
    String supersededTable() {
        return Sql.table(e.table() + "_superseded");
    }

    /** At most {@code limit} rows of the superseded table whose valid_to is before the horizon. param: the horizon. */
    String deleteSuperseded(int limit) {
        String s = supersededTable();
        return "DELETE FROM " + s + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + s + " WHERE valid_to < ? LIMIT " + limit + "))";
    }
}
