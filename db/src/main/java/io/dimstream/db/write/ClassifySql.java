package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.util.List;

/**
 * The writer's first statements for a batch (one round of it, {@link ArrivalOrder}): the COPY into
 * {@code ds_batch} and the statement that classifies every event against the event memory, at its
 * arrival. Part of {@link WriterSql}, which holds the results in its fields.
 *
 * <p>Arrival. An event is judged against its key's newest event at its arrival: the later of the
 * memory's newest and the newest of the round's earlier arrivals of the key ({@code ds_batch.newest},
 * with its state, set by {@link ArrivalOrder}; NULL for a key's first event in the round). Late,
 * beyond the horizon and the fast path are decided against that, and each applied event's class
 * against the key's event just before it at its arrival: the newest at arrival, or, for an event at
 * the time of the memory's newest (it replaces that event), the later of the memory's event before
 * it (a backward probe, made only for such an event) and the round's ({@code ds_batch.p_time},
 * {@code prev_deleted}, {@code prev_hash}).
 */
final class ClassifySql {

    /** The columns of ds_batch after the events' own: the fast-path flag, then what the round's earlier arrivals say. */
    static final String BATCH_EXTRA_DEFS = "single boolean, newest timestamptz, newest_deleted boolean, newest_hash bytea, newest_seq bigint, "
            + "p_time timestamptz, prev_deleted boolean, prev_hash bytea, prev_seq bigint";

    private final EntitySpec e;
    private final String batchTable;
    private final String winnersTable;
    private final List<String> key;
    private final List<String> type1;
    private final String t;
    private final String m;
    private final String eventCols;

    ClassifySql(EntitySpec e, String batchTable, String winnersTable) {
        this.e = e;
        this.batchTable = batchTable;
        this.winnersTable = winnersTable;
        this.key = e.key();
        this.type1 = e.type1();
        this.t = Sql.table(e.table());
        this.m = Sql.table(e.memoryTable());
        this.eventCols = Sql.list(EventMemory.columns(e));
    }

    /** COPY of events with no earlier arrival of their key in the round (every event of an in-order stream). */
    String copyBatch() {
        return "COPY " + batchTable + " (" + eventCols + ", single) FROM STDIN";
    }

    /** COPY of events with earlier arrivals of their key in the round, with what those say. */
    String copyArrived() {
        return "COPY " + batchTable + " (" + eventCols + ", single, newest, newest_deleted, newest_hash, newest_seq, p_time, prev_deleted, prev_hash, prev_seq) "
                + "FROM STDIN";
    }

    /**
     * The batch classified against the memory, in one statement.
     * <pre>
     * c:    each event with its key's newest event at arrival (the memory's: one backward index
     *       probe; the round's: ds_batch.newest) and, when the entity was ever pruned, the key's
     *       prune point; then judged:
     *       dup:    the same (key, time) is remembered and this is not a later arrival with
     *               other content. A remembered event at the same time can only exist when
     *               the event is not newer than the memory's newest, so that probe is skipped
     *               (one-time filter) for in-order events. (Within a round a key has one event
     *               per time, ArrivalOrder: what is remembered is what the event would meet alone.)
     *       beyond: older than the lateness horizon allows at its arrival, or at/before the prune
     *               point -> quarantine, kept once per source record (V011's unique indexes, any
     *               of which ON CONFLICT DO NOTHING honours): a record re-read by a replay
     *               (another seq) or redelivered finds its row there and adds none. It still
     *               counts as quarantined (judged beyond, and kept in the quarantine, once):
     *               QuarantineActions.apply relies on that count to refuse such an event;
     *       fast:   the key's only event in the round and newer than all it remembers;
     *       late:   older than the newest at arrival; otherwise its class is against the event
     *               before it at arrival (prev_exists, prev_deleted, prev_hash).
     *       The winners (neither dup nor beyond) go to ds_winners. c is materialized once and read by
     *       every consumer: a chain of CTEs each read twice cost a copy of the batch per
     *       link (~170 ms per 100k events each, three of them).
     * </pre>
     * params: 1 horizon (interval or null), 2 entity name, 3 horizon, 4 history-retention and 5
     * history-grain-after (intervals or null, for the reason only). Returns one row, read by
     * label: quarantined, winners, slow_winners, fast_deletes (the fast path's deletes that close a
     * version), fast_starts (the fast path's upserts that start a version), and the winners' classes (ClassCounts: late, new_keys, changed, deleted, unchanged).
     *
     * @param prunedTo the expression of the key's prune point ({@code s} the batch row)
     */
    String classify(String prunedTo) {
        return "WITH c AS MATERIALIZED (SELECT j.*, "
                + "(NOT j.dup AND (coalesce(j.event_time < j.newest - ?::interval, false) OR coalesce(j.event_time <= j.pruned_to, false))) AS beyond, "
                + "(j.single AND (j.newest IS NULL OR j.event_time > j.newest)) AS fast, "
                + "coalesce(j.event_time < j.newest, false) AS late "
                + "FROM (SELECT " + Sql.list("s", EventMemory.columns(e)) + ", s.single, a.newest, a.newest_deleted, a.newest_hash, "
                + "p.prev_exists, p.prev_deleted, p.prev_hash, x.seq AS mem_seq, x.in_version AS mem_in_version, "
                + "(x.seq IS NOT NULL AND NOT (s.seq > x.seq AND " + content("s") + " IS DISTINCT FROM " + content("x") + ")) AS dup, "
                + prunedTo + " AS pruned_to FROM (SELECT * FROM " + batchTable + " ORDER BY " + Sql.list(key) + ") s "
                + newestProbes() + sameTimeProbes() + beforeProbes() + ") j), "
                + memoryBumps() + quarantineInsert()
                + "ins AS (INSERT INTO " + winnersTable + " (" + eventCols + ", newest, newest_deleted, newest_hash, fast) SELECT " + eventCols
                + ", newest, newest_deleted, newest_hash, fast FROM c WHERE NOT beyond AND NOT dup) "
                + "SELECT count(*) FILTER (WHERE beyond) AS quarantined, count(*) FILTER (WHERE win) AS winners, "
                + "count(*) FILTER (WHERE win AND NOT fast) AS slow_winners, "
                + "count(*) FILTER (WHERE win AND fast AND is_deleted AND (NOT prev_exists OR NOT prev_deleted)) AS fast_deletes, "
                + "count(*) FILTER (WHERE win AND fast AND NOT is_deleted AND (newest IS NULL OR newest_deleted OR newest_hash IS DISTINCT FROM record_hash)) "
                + "AS fast_starts, "
                + "count(*) FILTER (WHERE win AND late) AS late, "
                + "count(*) FILTER (WHERE win AND NOT late AND NOT is_deleted AND NOT prev_exists) AS new_keys, "
                + "count(*) FILTER (WHERE win AND NOT late AND NOT is_deleted AND prev_exists AND (prev_deleted OR prev_hash IS DISTINCT FROM record_hash)) AS changed, "
                + "count(*) FILTER (WHERE win AND NOT late AND is_deleted AND (NOT prev_exists OR NOT prev_deleted)) AS deleted, "
                + "count(*) FILTER (WHERE win AND NOT late AND prev_exists AND prev_deleted = is_deleted AND (is_deleted OR prev_hash = record_hash)) AS unchanged "
                + "FROM (SELECT c.*, NOT c.beyond AND NOT c.dup AS win FROM c) c";
    }

    /** What a same-time event is compared on: delete or not, hash, type-1 values. */
    private String content(String alias) {
        return "(" + alias + ".is_deleted, " + alias + ".record_hash" + (type1.isEmpty() ? "" : ", " + Sql.list(alias, type1)) + ")";
    }

    /**
     * nw: the key's newest remembered event: the memory's newest, or the newest version's start when
     * later (an in-order event that started a version has no memory row: the version shows it); the
     * memory's row on a tie. One backward probe of each primary key, no sort: the pick is expressions
     * over both (a CROSS JOIN LATERAL of expressions is flattened). a: the newest at arrival and its
     * state: the round's earlier arrival when later, or at the same time and a later arrival (it
     * replaced the remembered one; an earlier arrival, a re-delivery, is a duplicate of it).
     */
    private String newestProbes() {
        String pick = "CASE WHEN nm.event_time IS NULL OR nv.event_time > nm.event_time THEN nv.%1$s ELSE nm.%1$s END AS %1$s";
        String round = "CASE WHEN nw.event_time IS NULL OR s.newest > nw.event_time OR (s.newest = nw.event_time AND (nw.seq IS NULL "
                + "OR s.newest_seq > nw.seq)) THEN s.%1$s ELSE nw.%2$s END AS %1$s";
        return "LEFT JOIN LATERAL (SELECT x.event_time, x.is_deleted, x.record_hash, x.seq FROM " + m + " x WHERE " + Sql.eq("x", "s", key)
                + " ORDER BY x.event_time DESC LIMIT 1) nm ON true "
                + "LEFT JOIN LATERAL (SELECT " + versionAsEvent() + " FROM " + t + " v WHERE " + Sql.eq("v", "s", key) + " ORDER BY v." + vf()
                + " DESC LIMIT 1) nv ON true "
                + "CROSS JOIN LATERAL (SELECT greatest(nm.event_time, nv.event_time) AS event_time, " + pick.formatted("is_deleted") + ", "
                + pick.formatted("record_hash") + ", " + pick.formatted("seq") + ") nw "
                + "CROSS JOIN LATERAL (SELECT greatest(nw.event_time, s.newest) AS newest, " + round.formatted("newest_deleted", "is_deleted") + ", "
                + round.formatted("newest_hash", "record_hash") + ") a ";
    }

    /** A version row {@code v} as its start event: (event_time, is_deleted, record_hash, seq), seq its event_seq. */
    private String versionAsEvent() {
        SystemColumns sc = e.system();
        return "v." + vf() + " AS event_time, v." + Sql.ident(sc.isDeleted()) + " AS is_deleted, v." + Sql.ident(sc.recordHash())
                + " AS record_hash, v." + Sql.ident(sc.eventSeq()) + " AS seq";
    }

    private String vf() {
        return Sql.ident(e.system().validFrom());
    }

    /**
     * x: the remembered event at the same time: the memory's row, else (probed only then) a version
     * started by an event the memory keeps no row of (its event_seq set, not a delete's row). LIMIT 1
     * keeps each subquery from being flattened into the join, so {@code event_time <= newest} gates
     * the probes (a one-time filter) instead of filtering their result: in-order events probe
     * neither. At most one of xm, xv is found.
     */
    private String sameTimeProbes() {
        SystemColumns sc = e.system();
        String vf = vf();
        return "LEFT JOIN LATERAL (SELECT x.seq, x.is_deleted, x.record_hash" + (type1.isEmpty() ? "" : ", " + Sql.list("x", type1))
                + " FROM " + m + " x WHERE " + Sql.eq("x", "s", key) + " AND x.event_time = s.event_time AND s.event_time <= nw.event_time LIMIT 1) xm ON true "
                + "LEFT JOIN LATERAL (SELECT v." + Sql.ident(sc.eventSeq()) + " AS seq, v." + Sql.ident(sc.isDeleted()) + " AS is_deleted, v."
                + Sql.ident(sc.recordHash()) + " AS record_hash"
                + (type1.isEmpty() ? "" : ", " + Sql.each(type1, a -> "v." + Sql.ident(a) + " AS " + Sql.ident(a), ", "))
                + " FROM " + t + " v WHERE " + Sql.eq("v", "s", key) + " AND v." + vf + " = s.event_time AND " + EventMemory.recordsItsStart(e, "v")
                + " AND xm.seq IS NULL AND s.event_time <= nw.event_time LIMIT 1) xv ON true "
                + "CROSS JOIN LATERAL (SELECT coalesce(xm.seq, xv.seq) AS seq, coalesce(xm.is_deleted, xv.is_deleted) AS is_deleted, "
                + "coalesce(xm.record_hash, xv.record_hash) AS record_hash, "
                + (type1.isEmpty() ? "" : Sql.each(type1, a -> "coalesce(xm." + Sql.ident(a) + ", xv." + Sql.ident(a) + ") AS " + Sql.ident(a), ", ") + ", ")
                + "(xm.seq IS NULL AND xv.seq IS NOT NULL) AS in_version) x ";
    }

    /**
     * p: the key's event just before the event at its arrival. For an event newer than the newest at
     * arrival, that newest. For one at the time of the memory's newest (within a round no earlier
     * arrival has its time), the later of: the memory's latest event before it (pmv: the memory's row
     * pm or a version's start pv, probed only for such an event, a one-time filter as for x) and the
     * round's ({@code s.p_time}); the round's on a tie when it is the later arrival, as for a. For a
     * late event p is not read.
     */
    private String beforeProbes() {
        String gate = " < s.event_time AND s.event_time = nw.event_time ORDER BY ";
        String mem = "CASE WHEN pm.event_time IS NULL OR pv.event_time > pm.event_time THEN pv.%1$s ELSE pm.%1$s END AS %1$s";
        String pick = "CASE WHEN pmv.event_time IS NULL OR s.p_time > pmv.event_time OR (s.p_time = pmv.event_time AND (pmv.seq IS NULL "
                + "OR s.prev_seq > pmv.seq)) THEN s.%1$s ELSE pmv.%2$s END AS %2$s";
        String at = "CASE WHEN s.event_time = a.newest THEN %s ELSE %s END AS %s";
        return "LEFT JOIN LATERAL (SELECT x.event_time, x.is_deleted, x.record_hash, x.seq FROM " + m + " x WHERE " + Sql.eq("x", "s", key)
                + " AND x.event_time" + gate + "x.event_time DESC LIMIT 1) pm ON true "
                + "LEFT JOIN LATERAL (SELECT " + versionAsEvent() + " FROM " + t + " v WHERE " + Sql.eq("v", "s", key) + " AND v." + vf()
                + gate + "v." + vf() + " DESC LIMIT 1) pv ON true "
                + "CROSS JOIN LATERAL (SELECT " + mem.formatted("event_time") + ", " + mem.formatted("is_deleted") + ", "
                + mem.formatted("record_hash") + ", " + mem.formatted("seq") + ") pmv "
                + "CROSS JOIN LATERAL (SELECT " + pick.formatted("p_time", "event_time") + ", " + pick.formatted("prev_deleted", "is_deleted") + ", "
                + pick.formatted("prev_hash", "record_hash") + ") pb "
                + "CROSS JOIN LATERAL (SELECT " + at.formatted("pb.event_time IS NOT NULL", "a.newest IS NOT NULL", "prev_exists") + ", "
                + at.formatted("pb.is_deleted", "a.newest_deleted", "prev_deleted") + ", "
                + at.formatted("pb.record_hash", "a.newest_hash", "prev_hash") + ") p";
    }

    /**
     * A later arrival repeating the remembered content changes no version, but it is now the arrival
     * a same-time event must beat: remember its seq (bump); for a version start the memory has no
     * row of, it gets one now, with the new seq, which wins over the row's event_seq from then on
     * (bumpv; the version row is not written).
     */
    private String memoryBumps() {
        String vf = Sql.ident(e.system().validFrom());
        return "bump AS (UPDATE " + m + " x SET seq = j.seq FROM c j WHERE j.dup AND j.seq > j.mem_seq AND NOT j.mem_in_version AND "
                + Sql.eq("x", "j", key) + " AND x.event_time = j.event_time), "
                + "bumpv AS (INSERT INTO " + m + " (" + eventCols + ") SELECT " + EventMemory.versionAsEvent(e, "v", "j.seq") + " FROM c j JOIN " + t
                + " v ON " + Sql.eq("v", "j", key) + " AND v." + vf + " = j.event_time WHERE j.dup AND j.seq > j.mem_seq AND j.mem_in_version), ";
    }

    /** now() minus an interval parameter (null: NULL) on the UTC calendar, as retention counts its horizons. */
    private static String utcAgo() {
        return "((now() AT TIME ZONE 'UTC') - ?::interval) AT TIME ZONE 'UTC'";
    }

    /**
     * The events beyond the horizon or the prune point into dimstream.quarantine, with the reason
     * (params 2 to 5: entity, lateness horizon, history-retention, history-grain-after; a prune point
     * older than one of the last two is retention's, io.dimstream.db.retention.HistoryRetainer).
     */
    private String quarantineInsert() {
        String keyJson = Sql.jsonObject("q", key, c -> e.type(c) == ColumnType.JSONB);
        String dataJson = Sql.jsonObject("q", e.dataColumns(), c -> e.type(c) == ColumnType.JSONB);
        return "qi AS (INSERT INTO dimstream.quarantine (entity, event_key, event_time, event, seq, reason, source_topic, source_partition, source_offset) "
                + "SELECT ?, " + keyJson + ", q.event_time, "
                + "jsonb_build_object('op', CASE WHEN q.is_deleted THEN 'delete' ELSE 'upsert' END, 'event_time', q.event_time, 'data', "
                + "CASE WHEN q.is_deleted THEN " + keyJson + " ELSE " + dataJson + " END), q.seq, "
                + "CASE WHEN NOT coalesce(q.event_time <= q.pruned_to, false) THEN format('event_time %s is older than the newest event of "
                + "its key (%s) by more than the lateness horizon %s', q.event_time, q.newest, ?::interval) "
                + "WHEN q.event_time < " + utcAgo() + " THEN format('event_time %s is beyond the retention horizon (history-retention): "
                + "at or before the prune point %s of its key, before which versions are deleted', q.event_time, q.pruned_to) "
                + "WHEN q.event_time < " + utcAgo() + " THEN format('event_time %s is beyond the grain horizon (history-grain-after): "
                + "at or before the prune point %s of its key, before which versions are kept at history-grain only', q.event_time, q.pruned_to) "
                + "ELSE format('event_time %s is at or before the prune point %s of its key: "
                + "history before it is no longer remembered', q.event_time, q.pruned_to) END, "
                + "q.source_topic, q.source_partition, q.source_offset FROM c q WHERE q.beyond ON CONFLICT DO NOTHING), ";
    }
}
