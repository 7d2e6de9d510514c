package io.dimstream.db.jobs;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Tables shadow replays leave behind: {@code <table>_replaced_<job>} (with its {@code _events}
 * memory), the live table a SUCCEEDED shadow job swapped out and kept for comparison, and
 * {@code <table>_shadow_<job>} (with its memory) of a FAILED shadow job, kept for inspection.
 * Listed with their size and age (since the job finished), dropped one at a time by an admin or,
 * past {@code service.replay.keep-replaced-tables}, by the service as user {@code system}; each drop
 * audited ({@code replay.drop-retired}) in its transaction. Found from the jobs table, so a table
 * of the same name made by hand without such a job is never listed nor dropped.
 */
public final class RetiredTables {

    /** The audit action of a drop. */
    public static final String DROP_ACTION = "replay.drop-retired";
    /** Who drops by retention. */
    public static final String SYSTEM = "system";

    private RetiredTables() {
    }

    /**
     * One retired table with its memory.
     *
     * @param kind  {@code replaced} (swapped out by a succeeded shadow job) or {@code failed shadow}
     * @param bytes both tables' size with their indexes ({@code pg_total_relation_size}, over their partitions)
     * @param since when the job finished (the swap, or the failure)
     */
    public record Retired(long job, String entity, String kind, String table, String memoryTable, long bytes, Instant since) {
    }

    /** Every retired table of {@code entities} that still exists, oldest job first. */
    public static List<Retired> list(DataSource ds, Collection<EntitySpec> entities) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return list(c, entities);
        }
    }

    /**
     * A table's size with its indexes, its name bound twice: a partitioned table's own size is 0
     * ({@code table-partitions}), so it is summed over its partition tree; a plain table has no
     * tree (no rows, a NULL sum) and is its own size; a missing one is 0.
     */
    private static final String SIZE = "coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(to_regclass(?))), "
            + "pg_total_relation_size(to_regclass(?)), 0)";

    private static List<Retired> list(Connection c, Collection<EntitySpec> entities) throws SQLException {
        Map<String, EntitySpec> byName = new LinkedHashMap<>();
        entities.forEach(e -> byName.put(e.name(), e));
        List<Retired> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT id, entity, state, finished_at FROM dimstream.replay_jobs "
                + "WHERE entity = ANY (?) AND target = 'shadow' AND state IN ('SUCCEEDED', 'FAILED') ORDER BY id");
             PreparedStatement size = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL, " + SIZE + " + " + SIZE)) {
            p.setArray(1, c.createArrayOf("text", byName.keySet().toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long job = rs.getLong(1);
                    EntitySpec live = byName.get(rs.getString(2));
                    boolean replaced = rs.getString(3).equals("SUCCEEDED");
                    EntitySpec kept = replaced ? live.withTable(ShadowTables.retiredTable(live, job)) : ShadowTables.shadowSpec(live, job);
                    String t = Sql.table(kept.table());
                    String m = Sql.table(kept.memoryTable());
                    size.setString(1, t);
                    size.setString(2, t);
                    size.setString(3, t);
                    size.setString(4, m);
                    size.setString(5, m);
                    try (ResultSet s = size.executeQuery()) {
                        s.next();
                        if (s.getBoolean(1)) {
                            Timestamp at = rs.getTimestamp(4);
                            out.add(new Retired(job, live.name(), replaced ? "replaced" : "failed shadow", kept.table(), kept.memoryTable(),
                                    s.getLong(2), at == null ? null : at.toInstant()));
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * Drops the retired table (and memory) of {@code job}, audited as {@code user}, in one transaction.
     *
     * @return what was dropped; empty when the job left no retired table (already dropped, or not such a job)
     */
    public static Optional<Retired> drop(DataSource ds, Collection<EntitySpec> entities, long job, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            Optional<Retired> r = list(c, entities).stream().filter(x -> x.job() == job).findFirst();
            if (r.isPresent()) {
                drop(c, r.get(), user, null);
            }
            return r;
        });
    }

    /**
     * Drops every retired table of {@code entities} whose job finished more than {@code keep}
     * before {@code now}, audited as {@link #SYSTEM}, each in a transaction of its own.
     *
     * @return what was dropped
     */
    public static List<Retired> dropOlderThan(DataSource ds, Collection<EntitySpec> entities, Duration keep, Instant now) throws SQLException {
        List<Retired> dropped = new ArrayList<>();
        for (Retired r : list(ds, entities)) {
            if (r.since() != null && r.since().plus(keep).isBefore(now)) {
                Transactions.run(ds, c -> drop(c, r, SYSTEM, keep));
                dropped.add(r);
            }
        }
        return dropped;
    }

    private static void drop(Connection c, Retired r, String user, Duration keep) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + Sql.table(r.table()) + ", " + Sql.table(r.memoryTable()));
        }
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("entity", r.entity());
        detail.put("kind", r.kind());
        detail.put("table", r.table());
        detail.put("memory", r.memoryTable());
        detail.put("bytes", r.bytes());
        if (keep != null) {
            detail.put("keep", keep.toString());
        }
        AuditLog.record(c, user, DROP_ACTION, "replay_job:" + r.job(), detail);
    }
}
