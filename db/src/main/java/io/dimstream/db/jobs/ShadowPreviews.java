package io.dimstream.db.jobs;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.ShadowDiff;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A previewed rebuild: a shadow replay submitted with {@code no_swap} fills its shadow table to
 * its end offsets and stops READY (the live table untouched); then a user looks at what the swap
 * would change ({@link #preview}), and swaps it in ({@link #swap}: SUCCEEDED) or throws it away
 * ({@link #discard}: CANCELLED, the shadow dropped). Swap and discard are audited
 * ({@code replay.swap}, {@code replay.discard}) in their own transaction, with the user.
 *
 * <p>The preview is computed <em>as the swap would do it now</em>: in one transaction it merges
 * into the shadow, exactly as {@link ShadowTables#swap} does, the events of the live memory the
 * shadow lacks (what the live sink wrote after the job's end offsets, files loaded, quarantined
 * events applied), compares the result with the live table ({@link ShadowDiff}), and rolls the
 * merge back, all in one snapshot (REPEATABLE READ), so a sink batch committing meanwhile is seen
 * by both steps or by neither. A swap taken later merges what the live table has received by then,
 * so it may differ from an older preview in the keys those later events touch.
 *
 * <p>Only the shadow table of a READY job of the given entity is ever read, dropped or swapped: its
 * name is made from the entity's own table and the job's number ({@link ShadowTables#shadowSpec}),
 * never taken from a caller.
 */
public final class ShadowPreviews {

    /** A swap, discard or preview of a job that is not a READY shadow job (a 409 in the admin UI). */
    public static final class NotReady extends IllegalStateException {
        NotReady(String message) {
            super(message);
        }
    }

    /**
     * What the swap of a READY job would change.
     *
     * @param mergedEvents events of the live memory the shadow lacked, merged into it as the swap would merge them
     * @param diff         the live table against the shadow with those events merged
     */
    public record Preview(ReplayJob job, String liveTable, String shadowTable, int mergedEvents, ShadowDiff diff) {
    }

    private final DataSource ds;
    private final Scd2Writer writer;

    public ShadowPreviews(DataSource ds) {
        this.ds = ds;
        this.writer = new Scd2Writer(ds);
    }

    /**
     * What swapping in job {@code id}'s shadow would change now, listing at most {@code limit} keys.
     *
     * @param live the job's entity (the catalog's columns are read here)
     * @throws NotReady when the job is not a READY shadow job
     * @throws ShadowTables.SwapRefused when the swap could not be made now, saying why
     */
    public Preview preview(long id, EntitySpec live, int limit) throws SQLException {
        return Transactions.inTransaction(ds, c -> {
            // one snapshot for the merge and the diff: under READ COMMITTED a sink batch committing
            // between the two showed its keys' versions as removed or changed, which the swap (under
            // its table locks) would not do (seen in 10-50% of previews while a feed streamed)
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            ReplayJob job = lockReady(c, id, live, false, true);
            EntitySpec shadow = ShadowTables.shadowSpec(live, id);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL TimeZone = 'UTC'");
            }
            // the entity's columns now: one added while the job waited is merged and compared too
            EntitySpec now = EvolvedColumns.withCatalog(c, live);
            ApplyResult merged = ShadowTables.mergeLiveEvents(c, writer, now, shadow);
            ShadowDiff diff = ShadowDiff.compute(c, now, now.withTable(shadow.table()), limit);
            c.rollback(); // the merge was only for the preview: the swap makes its own
            return new Preview(job, live.table(), shadow.table(), merged.applied(), diff);
        });
    }

    /**
     * Swaps in job {@code id}'s shadow ({@link ShadowTables#swap}, under the job row's lock and the
     * swap's own table locks, as the worker does), marks the job SUCCEEDED and audits
     * {@code replay.swap}, all in one transaction.
     *
     * @throws NotReady when the job is not a READY shadow job
     * @throws ShadowTables.SwapRefused when the swap cannot be made, saying why (nothing changed; the job stays READY)
     */
    public ReplayJob swap(long id, EntitySpec live, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            lockReady(c, id, live, true, true);
            EntitySpec shadow = ShadowTables.shadowSpec(live, id);
            ShadowTables.Swap swap = ShadowTables.swap(c, writer, live, shadow, id);
            String detail = "swapped in by " + user + " after its preview; the replaced table is kept as " + swap.retiredTable()
                    + " (memory " + swap.retiredMemory() + "); " + swap.merged().applied() + " events of the live memory merged at the swap";
            ReplayJobs.advance(c, id, Map.of(), 0,
                    (long) swap.merged().rowsInserted() + swap.merged().rowsUpdated() + swap.merged().rowsDeleted());
            ReplayJobs.finish(c, id, JobState.SUCCEEDED, null, detail);
            Map<String, Object> audit = new LinkedHashMap<>();
            audit.put("entity", live.name());
            audit.put("table", live.table());
            audit.put("shadow", shadow.table());
            audit.put("replaced_kept_as", swap.retiredTable());
            audit.put("merged_events", swap.merged().applied());
            AuditLog.record(c, user, "replay.swap", "replay_job:" + id, audit);
            return ReplayJobs.find(c, id).orElseThrow();
        });
    }

    /**
     * Drops job {@code id}'s shadow table and memory, marks the job CANCELLED with a detail saying
     * so and audits {@code replay.discard}, in one transaction. The live table is not touched.
     *
     * @throws NotReady when the job is not a READY shadow job
     */
    public ReplayJob discard(long id, EntitySpec live, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            lockReady(c, id, live, true, false);
            EntitySpec shadow = ShadowTables.shadowSpec(live, id);
            ShadowTables.drop(c, shadow);
            ReplayJobs.finish(c, id, JobState.CANCELLED, null, "discarded by " + user + " before its swap; the shadow table "
                    + shadow.table() + " was dropped, the live table is untouched");
            Map<String, Object> audit = new LinkedHashMap<>();
            audit.put("entity", live.name());
            audit.put("table", live.table());
            audit.put("shadow", shadow.table());
            AuditLog.record(c, user, "replay.discard", "replay_job:" + id, audit);
            return ReplayJobs.find(c, id).orElseThrow();
        });
    }

    /**
     * The shadow table of a READY shadow job of {@code entity}, for reading only (a history page
     * of the shadow); refused like a preview otherwise.
     */
    public EntitySpec readyShadow(long id, EntitySpec live) throws SQLException {
        try (Connection c = ds.getConnection()) {
            lockReady(c, id, live, false, true);
            return ShadowTables.shadowSpec(live, id);
        }
    }

    /** Locks the job row (FOR UPDATE to change it, else FOR SHARE) and checks it is a READY shadow job of the entity (with its tables, when {@code requireTables}). */
    private static ReplayJob lockReady(Connection c, long id, EntitySpec live, boolean forUpdate, boolean requireTables) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM dimstream.replay_jobs WHERE id = ? FOR "
                + (forUpdate ? "UPDATE" : "SHARE"))) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new NotReady("no replay job " + id);
                }
            }
        }
        ReplayJob job = ReplayJobs.find(c, id).orElseThrow();
        if (!job.entity().equals(live.name())) {
            throw new NotReady("replay job " + id + " rebuilds entity " + job.entity() + ", not " + live.name());
        }
        if (job.target() != ReplayTarget.SHADOW || job.state() != JobState.READY) {
            throw new NotReady("replay job " + id + " is " + (job.target() == ReplayTarget.SHADOW ? "" : "a " + job.target().sql()
                    + " replay, ") + job.state() + ", not READY: only a shadow replay submitted with --no-swap that has reached its end "
                    + "offsets waits for a swap or discard");
        }
        EntitySpec shadow = ShadowTables.shadowSpec(live, id);
        if (requireTables && (!EntityTables.tableExists(c, shadow.table()) || !EntityTables.tableExists(c, shadow.memoryTable()))) {
            throw new NotReady("the shadow table " + shadow.table() + " of replay job " + id + " is missing (dropped by hand?); "
                    + "discard the job and submit the replay again");
        }
        return job;
    }
}
