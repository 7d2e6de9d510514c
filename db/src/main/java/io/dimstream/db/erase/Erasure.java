package io.dimstream.db.erase;

import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ErasedKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Erases keys of an entity from every place dimstream keeps them in PostgreSQL, in ONE transaction
 * ({@code dimstream erase}, the admin's erase form and API). In order, after
 * {@code SET LOCAL dimstream.forget = 'on'} (so the transaction-time trigger keeps no "superseded"
 * copy of what is removed) and under the table's exclusive writer lock (no sink batch, replay or
 * quarantine action interleaves):
 * <ol>
 *   <li>{@value #VERSIONS}: every version row of the keys in the entity table;</li>
 *   <li>{@value #MEMORY}: their remembered events ({@code <table>_events});</li>
 *   <li>{@value #SUPERSEDED}: their transaction-time history ({@code <table>_superseded}), when the table has one;</li>
 *   <li>{@value #SHADOWS}: the same three in every shadow and retired table of the entity's shadow replays;</li>
 *   <li>{@value #QUARANTINE}, {@value #REJECTS}, {@value #DLQ}: their quarantined events, the sink's
 *       rejected records and the DLQ mirror's records of them ({@link RecordMatch}, {@link ErasedRecords});</li>
 *   <li>what names them in dimstream's bookkeeping ({@link ErasedMentions}): the key lists of repair
 *       jobs, the audit entries of quarantine actions and repairs, the integrity reports' findings;</li>
 *   <li>ANALYZE of every table it changed, so no planner statistic keeps a sampled value of the keys;</li>
 *   <li>with {@code tombstone}, a hash of each key ({@link ErasedKeys}), so the writer drops their
 *       events from then on;</li>
 *   <li>an audit entry {@value #ACTION} naming the user, the entity and the rows removed per place,
 *       never a key or a value.</li>
 * </ol>
 * A key with no row anywhere is no error: its counts are 0 (and it still gets its tombstone).
 */
public final class Erasure {

    private static final Logger LOG = LoggerFactory.getLogger(Erasure.class);

    /** The audit action. */
    public static final String ACTION = "erase";

    public static final String VERSIONS = "versions";
    public static final String MEMORY = "event memory";
    public static final String SUPERSEDED = "superseded versions";
    public static final String SHADOWS = "shadow and retired tables";
    public static final String QUARANTINE = "quarantine";
    public static final String REJECTS = "sink rejects";
    public static final String DLQ = "DLQ mirror";
    public static final String REPAIR_JOBS = "repair job key lists";
    public static final String AUDIT = "audit entries";
    public static final String FINDINGS = "integrity findings";

    /**
     * What an erasure did.
     *
     * @param removed    rows removed (or, for the bookkeeping places, entries rewritten) per place, in the order above
     * @param tombstones tombstones added (0 without; a key erased before keeps its one)
     */
    public record Report(String entity, int keys, Map<String, Long> removed, int tombstones, boolean tombstone) {
        public Report {
            removed = Collections.unmodifiableMap(new LinkedHashMap<>(removed));
        }

        /** Every row removed and entry rewritten. */
        public long total() {
            return removed.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final DataSource ds;

    public Erasure(DataSource ds) {
        this.ds = ds;
    }

    /**
     * Erases {@code keys} (each its canonical texts in key order, as {@link ReplayKeys#parseKey} reads
     * them) of {@code entity} in one transaction, audited as {@code user}.
     *
     * @param entity the entity's current shape (its table, key columns and their types)
     */
    public Report erase(EntitySpec entity, List<List<String>> keys, boolean tombstone, String user) throws SQLException {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("user: an erasure needs the name of the user who takes it");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("keys: name at least one key to erase");
        }
        ReplayKeys set = new ReplayKeys(List.copyOf(new LinkedHashSet<>(keys)), null);
        Report report = Transactions.inTransaction(ds, c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL dimstream.forget = 'on'");
            }
            WriterLock.exclusiveWriter(c, entity);
            Set<String> touched = new LinkedHashSet<>();
            Map<String, Long> removed = new LinkedHashMap<>();
            removed.put(VERSIONS, deleteKeys(c, entity, entity.table(), set, touched));
            removed.put(MEMORY, deleteKeys(c, entity, entity.memoryTable(), set, touched));
            removed.put(SUPERSEDED, deleteKeys(c, entity, entity.supersededTable(), set, touched));
            removed.put(SHADOWS, shadows(c, entity, set, touched));
            removed.put(QUARANTINE, touch(touched, "dimstream.quarantine", ErasedRecords.quarantine(c, entity, set)));
            removed.put(REJECTS, touch(touched, "dimstream.sink_rejects", ErasedRecords.rejects(c, entity, set)));
            removed.put(DLQ, touch(touched, "dimstream.dlq_records", ErasedRecords.dlq(c, entity, set)));
            long jobs = ErasedMentions.repairJobs(c, entity, set);
            removed.put(REPAIR_JOBS, touch(touched, "dimstream.replay_jobs", jobs));
            removed.put(AUDIT, touch(touched, "dimstream.admin_audit", ErasedMentions.auditEntries(c, entity, set) + jobs));
            removed.put(FINDINGS, touch(touched, "dimstream.integrity_runs", ErasedMentions.integrityFindings(c, entity, set)));
            analyze(c, touched);
            int tombstones = tombstone ? ErasedKeys.remember(c, entity.name(), set.keys()) : 0;
            Report r = new Report(entity.name(), set.keys().size(), removed, tombstones, tombstone);
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("entity", entity.name());
            detail.put("keys", r.keys());
            detail.put("removed", removed);
            detail.put("tombstones", tombstones);
            AuditLog.record(c, user, ACTION, "entity:" + entity.name(), detail);
            return r;
        });
        LOG.info("{}: {} keys erased by {}: {} rows removed ({}), {} tombstones", entity.name(), report.keys(), user, report.total(),
                report.removed(), report.tombstones());
        return report;
    }

    /**
     * Deletes the keys' rows of {@code relation} (key columns named as the entity's) when it exists (0
     * when it does not), adding it to {@code touched} when any was.
     */
    static long deleteKeys(Connection c, EntitySpec entity, String relation, ReplayKeys keys, Set<String> touched) throws SQLException {
        if (!exists(c, relation)) {
            return 0;
        }
        try (PreparedStatement p = c.prepareStatement("DELETE FROM " + Sql.table(relation) + " WHERE "
                + keys.where(entity, entity.key().stream().map(Sql::ident).toList()))) {
            keys.bind(p, 1, entity);
            return touch(touched, Sql.table(relation), p.executeUpdate());
        }
    }

    private static long touch(Set<String> touched, String quotedTable, long n) {
        if (n > 0) {
            touched.add(quotedTable);
        }
        return n;
    }

    /**
     * ANALYZE of every table rows were removed from or rewritten in: PostgreSQL's planner statistics
     * ({@code pg_statistic}, read through {@code pg_stats}) keep sampled values of each column, an
     * erased key's among them, until the table is analyzed again. Inside the erasure's transaction,
     * ANALYZE sees the removed rows as dead and samples only what stays.
     */
    private static void analyze(Connection c, Set<String> touched) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String t : touched) {
                s.execute("ANALYZE " + t);
            }
        }
    }

    /** Every shadow and retired table of the entity's shadow replays (with its memory and history) that still exists. */
    private static long shadows(Connection c, EntitySpec entity, ReplayKeys keys, Set<String> touched) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT id FROM dimstream.replay_jobs WHERE entity = ? AND target = 'shadow' ORDER BY id")) {
            p.setString(1, entity.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long job = rs.getLong(1);
                    for (EntitySpec t : List.of(ShadowTables.shadowSpec(entity, job), entity.withTable(ShadowTables.retiredTable(entity, job)))) {
                        tables.add(t.table());
                        tables.add(t.memoryTable());
                        tables.add(t.supersededTable());
                    }
                }
            }
        }
        long n = 0;
        for (String t : tables) {
            n += deleteKeys(c, entity, t, keys, touched);
        }
        return n;
    }

    private static boolean exists(Connection c, String relation) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            p.setString(1, Sql.table(relation));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
