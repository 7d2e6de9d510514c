package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The event memory's pruning beyond an entity's lateness horizon (DESIGN section 5b: keep one
 * anchor per key and record the prune point, so an event at or before it is quarantined instead of
 * placed wrongly), run on a schedule by the service, never inside a batch and without the writer
 * lock.
 *
 * <p>It works a chunk of keys at a time in key order ({@code MemorySql.prune}),
 * each chunk one statement in a transaction of its own: the statement takes row locks on the memory
 * rows and the versions it changes, and the sink writing those keys waits for them (its
 * {@code lock_timeout} is 5 s), so no transaction may span the whole table: a whole-table statement
 * took 26-217 s on a 2,000 events/s soak. What one key's pruning needs of the others is nothing: it
 * reads and changes that key's rows only, in one statement (one snapshot), so the result is the
 * whole-table statement's however the keys are cut into chunks; a key the sink writes between two
 * chunks is pruned with what it has when its chunk runs, as if the prune had run then.
 */
public final class MemoryPruner {

    /**
     * Keys per chunk. A chunk of a memory of 10 events per key (1M rows, 100k keys, 7 of each key's
     * events pruned: 35,000 rows deleted, 5,000 versions and 5,000 anchors updated) took about 0.3 s
     * on a shared 2-core machine (the bound's probe 30-50 ms of it; the whole table in 20 chunks
     * 5.7 s, in one statement 5.3 s), so the sink's waits stay far below its 5 s lock timeout, while
     * the per-chunk overhead (the bound's probe, a commit) stays a small part of the work.
     */
    static final int CHUNK_KEYS = 5_000;

    private final DataSource ds;
    private final int chunkKeys;

    public MemoryPruner(DataSource ds) {
        this(ds, CHUNK_KEYS);
    }

    /** @param chunkKeys keys per transaction (tests cut small tables into several chunks) */
    MemoryPruner(DataSource ds, int chunkKeys) {
        if (chunkKeys < 1) {
            throw new IllegalArgumentException("chunkKeys must be positive, got " + chunkKeys);
        }
        this.ds = ds;
        this.chunkKeys = chunkKeys;
    }

    /**
     * Drops remembered events beyond the entity's lateness horizon, per key keeping the latest
     * event before the cut as an anchor that records the prune point (an event at or before it is
     * quarantined from then on, since history before it can no longer be recomputed exactly).
     * Versions keep their content; those older than the anchor lose their {@code event_seq}
     * ({@link EventMemory}: their starts are no longer read as events), and an anchor the memory had
     * no row of is written into it from its version. No-op for an unlimited horizon. A chunk
     * committed stays pruned when a later one fails (the next run finds it done).
     *
     * @return the number of remembered events removed
     */
    public long prune(EntitySpec entity) throws SQLException {
        if (entity.latenessHorizon().isEmpty()) {
            return 0;
        }
        WriterSql sql = new WriterSql(entity);
        String horizon = entity.latenessHorizon().get().toString();
        try (Connection c = ds.getConnection()) {
            try {
                execute(c, sql.createPruneBounds);
                long removed = 0;
                for (boolean first = true; ; first = false) {
                    boolean firstChunk = first;
                    Chunk chunk = Transactions.inTransaction(c, tx -> chunk(tx, entity, sql, horizon, firstChunk));
                    removed += chunk.removed();
                    if (chunk.last()) {
                        return removed;
                    }
                }
            } finally {
                execute(c, sql.dropPruneBounds);
            }
        }
    }

    /** What a chunk removed, and whether it was the last one. */
    private record Chunk(long removed, boolean last) {
    }

    /** One chunk's transaction: its bound, its prune statement, the entity marked as pruned, the bound advanced. */
    private Chunk chunk(Connection c, EntitySpec entity, WriterSql sql, String horizon, boolean first) throws SQLException {
        execute(c, sql.clearPruneBound);
        boolean last;
        try (PreparedStatement p = c.prepareStatement(first ? sql.firstPruneBound : sql.nextPruneBound)) {
            p.setInt(1, chunkKeys);
            p.setInt(2, chunkKeys);
            p.setInt(3, chunkKeys - 1);
            last = p.executeUpdate() == 0;
        }
        String prune = first ? (last ? sql.prune : sql.pruneFirstChunk) : (last ? sql.pruneLastChunk : sql.pruneChunk);
        long removed;
        try (PreparedStatement p = c.prepareStatement(prune)) {
            p.setString(1, horizon);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                removed = rs.getLong(1);
            }
        }
        // the writer reads prune points only of entities ever pruned: in each chunk's transaction, so
        // no batch of the sink sees a moved prune point without knowing to look
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.entities SET last_pruned_at = now() WHERE name = ?")) {
            p.setString(1, entity.name());
            p.executeUpdate();
        }
        if (!last) {
            execute(c, sql.advancePrune);
        }
        return new Chunk(removed, last);
    }

    private static void execute(Connection c, List<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }
}
