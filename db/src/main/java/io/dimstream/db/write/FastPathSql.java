package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;

/**
 * The writer's fast path: in-order single events against the key's newest remembered state, as a
 * close and an insert (or a type-1 overwrite in place). Part of {@link WriterSql}.
 */
final class FastPathSql extends WriterNames {

    FastPathSql(EntitySpec e) {
        super(e);
    }

    // ---- fast path: in-order single events, against the key's newest remembered state ----
    // An upsert that changes the state closes the open row (fastCloseAndNew writes its successor).
    // Its guard repeats the state test against the row itself (IS DISTINCT FROM), so a row already
    // closed or already equal is left alone.
    private String fastClose() {
        return "UPDATE " + t + " v SET " + vt + " = f.event_time, " + Sql.ident(sc.loadedAt()) + " = now()" + closeKnown + " "
                + "FROM " + winnersTable + " f WHERE f.fast AND NOT f.is_deleted AND f.newest IS NOT NULL "
                + "AND (f.newest_deleted OR f.newest_hash IS DISTINCT FROM f.record_hash) "
                + "AND " + Sql.eq("v", "f", key) + " AND " + e.openTest("v") + " "
                + "AND (v." + del + " OR v." + hash + " IS DISTINCT FROM f.record_hash)";
    }

    // a delete closes the open row and gets its is_deleted row (into ds_region_versions), which carries the
    // closed row's attributes and hash
    String fastCloseDeleted() {
        return "WITH closed AS (UPDATE " + t + " v SET " + vt + " = f.event_time, " + Sql.ident(sc.loadedAt()) + " = now()" + closeKnown + " "
                + "FROM " + winnersTable + " f WHERE f.fast AND f.is_deleted AND f.newest IS NOT NULL AND NOT f.newest_deleted "
                + "AND " + Sql.eq("v", "f", key) + " AND " + e.openTest("v") + " AND NOT v." + del + " "
                + "RETURNING " + Sql.list("v", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("v", attrs) + ", ") + "v." + hash
                + " AS old_hash, f.event_time, f.source_topic, f.source_partition, f.source_offset, f.surrogate_key AS new_sk, f.seq AS new_seq) "
                + ", ins AS (INSERT INTO " + regionVersionsTable + " (" + keyList + ", valid_from, valid_to, is_deleted, record_hash, " + (attrs.isEmpty() ? "" : attrList + ", ")
                + "source_topic, source_partition, source_offset, surrogate_key, event_seq) SELECT " + keyList + ", event_time, " + e.openEnd() + ", true, old_hash, "
                + (attrs.isEmpty() ? "" : attrList + ", ") + "source_topic, source_partition, source_offset, new_sk, new_seq FROM closed RETURNING 1) "
                + "SELECT count(*) FROM closed";
    }

    // The close of an open version and the insert of its successor, in one statement: the
    // UPDATE's RETURNING feeds the INSERT row by row, so a key's successor is written right after
    // its close, while the pages the close touched (the heap page of the closed row, the leaf
    // pages of the key in the primary key and the one-open-row index, which the insert's
    // uniqueness checks visit again) are still in shared buffers. As two statements, each of
    // 100,000 random keys, the second found most of them evicted by then: on a table whose rows
    // are in no key order (any table after its keys changed once) it read them back.
    // No NOT EXISTS probe for the successor: its time is newer than every remembered event of
    // the key, and a version row starts at a remembered event (both written in the same
    // transaction), so no row can be there; a re-applied batch finds its events remembered and
    // never gets here.
    String fastCloseAndNew() {
        return "WITH closed AS (" + fastClose() + " RETURNING " + Sql.list("f", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("f", attrs) + ", ")
                + "f.surrogate_key, f.event_time, f.record_hash, f.source_topic, f.source_partition, f.source_offset, f.seq) "
                + insertVersions() + " FROM closed f";
    }

    // a new key's first version (nothing remembered of the key: no version to close), straight into the table
    String fastNewKeys() {
        return insertVersions() + " FROM " + winnersTable + " f WHERE " + startsVersion + " AND f.newest IS NULL";
    }

    // The successors fastCloseAndNew did not write: a starting event of a key with history whose
    // open version the close's guards left alone. None in a consistent table; run only when the
    // counts say so, and then as before: into the table, unless a version starts there already.
    String fastNewRest() {
        return insertVersions() + " FROM " + winnersTable + " f WHERE " + startsVersion + " AND f.newest IS NOT NULL "
                + "AND NOT EXISTS (SELECT 1 FROM " + t + " v WHERE " + Sql.eq("v", "f", key) + " AND v." + vf + " = f.event_time)";
    }

    /** {@code INSERT INTO t (...) SELECT ...} of open versions from rows named {@code f} that hold a winner's columns. */
    private String insertVersions() {
        return "INSERT INTO " + t + " (" + keyList + ", " + (attrs.isEmpty() ? "" : attrList + ", ") + Sql.ident(sc.surrogateKey()) + ", " + vf + ", "
                + vt + ", " + del + ", " + hash + ", " + Sql.ident(sc.sourceTopic()) + ", " + Sql.ident(sc.sourcePartition()) + ", "
                + Sql.ident(sc.sourceOffset()) + ", " + es + ") SELECT " + Sql.list("f", key) + ", " + (attrs.isEmpty() ? "" : Sql.list("f", attrs) + ", ")
                + "f.surrogate_key, f.event_time, " + e.openEnd() + ", false, f.record_hash, f.source_topic, f.source_partition, f.source_offset, f.seq";
    }

    // a re-assertion overwrites the type-1 columns of the open version in place
    String fastType1() {
        return type1.isEmpty() ? null : "UPDATE " + t + " v SET " + Sql.each(type1, a -> Sql.ident(a) + " = f." + Sql.ident(a), ", ")
                + ", " + Sql.ident(sc.loadedAt()) + " = now() FROM " + winnersTable + " f WHERE " + overwritesType1;
    }
}
