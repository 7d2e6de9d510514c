package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.util.List;

/**
 * The names every statement of the writer is built from, for one entity: its table, memory and
 * work tables, its columns quoted and listed, and the predicates two statements must agree on.
 * {@link WriterSql} and the builders of its statement groups ({@link MemorySql}, {@link FastPathSql},
 * {@link RegionSql}) extend it, so each statement reads as the SQL it writes.
 */
class WriterNames {

    final EntitySpec e;
    /** A hash of the spec: the work tables of a spec with other columns are tables of their own. */
    final String id;
    final SystemColumns sc;
    final String batchTable;
    final String winnersTable;
    final String affectedKeysTable;
    final String regionTable;
    final String regionVersionsTable;
    final List<String> key;
    final List<String> attrs;
    final List<String> type1;
    final String t;
    final String m;
    final String keyDefs;
    final String attrDefs;
    final String keyList;
    final String attrList;
    final String vf;
    final String vt;
    final String del;
    final String hash;
    final String es;
    final String startAsEvent;
    final String notRemembered;
    final List<String> batchCols;
    final String eventCols;
    final List<String> memCols;
    final String eventDefs;
    final String newer;
    final String startsVersion;
    final String overwritesType1;
    /**
     * What a close of an open version also sets: with transaction time, {@code end_known_from = now()}
     * (when its end became known; the row's earlier open image is then readable without a copy,
     * docs/semantics.md "Transaction time"); nothing without.
     */
    final String closeKnown;

    WriterNames(EntitySpec e) {
        this.e = e;
        this.id = Integer.toHexString((e.name() + "\0" + e.table() + "\0" + e.columns()).hashCode());
        this.batchTable = Sql.ident("ds_batch_" + id);
        this.winnersTable = Sql.ident("ds_winners_" + id);
        this.affectedKeysTable = Sql.ident("ds_affected_keys_" + id);
        this.regionTable = Sql.ident("ds_region_" + id);
        this.regionVersionsTable = Sql.ident("ds_region_versions_" + id);
        this.sc = e.system();
        this.key = e.key();
        this.attrs = e.attributes();
        this.type1 = e.type1();
        this.t = Sql.table(e.table());
        this.m = Sql.table(e.memoryTable());
        this.keyDefs = Sql.each(key, k -> Sql.ident(k) + " " + e.type(k).sqlName(), ", ");
        this.attrDefs = attrs.isEmpty() ? "" : Sql.each(attrs, a -> Sql.ident(a) + " " + e.type(a).sqlName(), ", ") + ", ";
        this.keyList = Sql.list(key);
        this.attrList = Sql.list(attrs);
        this.vf = Sql.ident(sc.validFrom());
        this.vt = Sql.ident(sc.validTo());
        this.del = Sql.ident(sc.isDeleted());
        this.hash = Sql.ident(sc.recordHash());
        this.es = Sql.ident(sc.eventSeq());
        // a version row as the memory row of the event that started it, and when it stands for that event (EventMemory)
        this.startAsEvent = EventMemory.versionAsEvent(e, "v", "v." + es);
        this.notRemembered = EventMemory.standsForItsStart(e, "v");
        // the batch's columns are the memory's (key, event_time, seq, is_deleted, record_hash, attributes, lineage, surrogate_key)
        this.batchCols = EventMemory.columns(e);
        this.eventCols = Sql.list(batchCols);
        this.memCols = batchCols;
        this.eventDefs = keyDefs + ", event_time timestamptz, seq bigint, is_deleted boolean, record_hash bytea, " + attrDefs
                + "source_topic text, source_partition integer, source_offset bigint, surrogate_key bigint";
        // An event newer than its key's newest remembered one cannot meet a remembered (key, time):
        // a plain insert (no speculative insertion, one index descent fewer per event). The rest
        // (late or same-time events) may replace a remembered event: upsert.
        this.newer = "(newest IS NULL OR event_time > newest)";
        // Not remembered: a fast upsert that starts a version (what fastCloseAndNew and fastNewKeys insert). Its version
        // row shows it (key, time, hash, attributes, lineage, surrogate key, and its seq in
        // event_seq), and every reader takes such a version's start as an event (EventMemory).
        // Before anything changes such a row's content or the memory must hold the event for a
        // region, the event is written into the memory from the row (rememberSlowStarts,
        // rememberType1Starts, prune's anchor).
        // One predicate each, over ds_winners f, for what two statements must agree on: the fast
        // upserts that start a version (fastCloseAndNew and fastNewKeys insert exactly them, insertMemory leaves exactly
        // them out), and the re-assertions that overwrite the open version's type-1 values (with
        // the version v; fastType1 overwrites exactly those rows, rememberType1Starts first
        // remembers their starts).
        this.closeKnown = e.transactionTime() ? ", " + Sql.ident(sc.endKnownFrom()) + " = now()" : "";
        this.startsVersion = "(f.fast AND NOT f.is_deleted AND (f.newest IS NULL OR f.newest_deleted OR f.newest_hash IS DISTINCT FROM f.record_hash))";
        this.overwritesType1 = type1.isEmpty() ? null : "f.fast AND NOT f.is_deleted AND f.newest IS NOT NULL AND NOT f.newest_deleted "
                + "AND f.newest_hash = f.record_hash AND " + Sql.eq("v", "f", key) + " AND " + e.openTest("v") + " AND NOT v." + del + " AND v." + hash
                + " = f.record_hash AND (" + Sql.list("v", type1) + ") IS DISTINCT FROM (" + Sql.list("f", type1) + ")";
    }
}
