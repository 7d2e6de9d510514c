package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
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
public final class WriterSql extends WriterNames {


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
    /** The event memory's pruning ({@link MemoryPruner}): every key at once, or a chunk of keys, the first, a middle or the last. */
    final String prune;
    final String pruneFirstChunk;
    final String pruneChunk;
    final String pruneLastChunk;
    /** The first chunk's bound, and a later chunk's (params: keys per chunk, twice, then that less one). */
    final String firstPruneBound;
    final String nextPruneBound;
    final List<String> createPruneBounds;
    final List<String> clearPruneBound;
    final List<String> advancePrune;
    final List<String> dropPruneBounds;
    final String fastCloseAndNew;
    final String fastCloseDeleted;
    final String fastNewKeys;
    final String fastNewRest;
    final String fastType1;
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
        super(e);
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

        RegionSql region = new RegionSql(e);
        fillAffectedKeys = region.fillAffectedKeys();
        fillRegion = region.fillRegion();
        fillRegionVersions = region.fillRegionVersions();
        deleteRows = region.deleteRows();
        updateRows = region.updateRows();
        insertRows = region.insertRows();
        MemorySql memory = new MemorySql(e);
        insertMemory = memory.insertMemory();
        upsertMemory = memory.upsertMemory();
        rememberSlowStarts = memory.rememberSlowStarts();
        rememberType1Starts = memory.rememberType1Starts();
        prune = memory.prune(true, true);
        pruneFirstChunk = memory.prune(true, false);
        pruneChunk = memory.prune(false, false);
        pruneLastChunk = memory.prune(false, true);
        firstPruneBound = memory.nextPruneBound(true);
        nextPruneBound = memory.nextPruneBound(false);
        createPruneBounds = memory.createPruneBounds();
        clearPruneBound = memory.clearPruneBound();
        advancePrune = memory.advancePrune();
        dropPruneBounds = memory.dropPruneBounds();
        FastPathSql fast = new FastPathSql(e);
        fastCloseAndNew = fast.fastCloseAndNew();
        fastCloseDeleted = fast.fastCloseDeleted();
        fastNewKeys = fast.fastNewKeys();
        fastNewRest = fast.fastNewRest();
        fastType1 = fast.fastType1();
    }

}
