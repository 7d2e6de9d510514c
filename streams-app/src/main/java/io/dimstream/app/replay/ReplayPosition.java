package io.dimstream.app.replay;

import io.dimstream.db.apply.Applied;
import io.dimstream.db.apply.Position;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A replay job's position in its transactions: the job row locked and this worker's lease checked
 * first ({@link ReplayJobs#lockForBatch}); a cancel request ends the job there instead (a shadow
 * job's tables are dropped, committed); after a batch, the job's per-partition positions, counters
 * and the slices it read ({@link SnapshotReplay}) advance with the rows. Why a transaction did not
 * go on is the position's stop: a text for the log.
 */
final class ReplayPosition implements Position<String> {

    /** Called when a cancel request ended the job (its counter). */
    interface OnCancel {
        void cancelled(ReplayJob job);
    }

    private final ReplayJob job;
    private final String owner;
    private final Duration lease;
    private final EntitySpec configured;
    private final OnCancel onCancel;

    ReplayPosition(ReplayJob job, String owner, Duration lease, EntitySpec configured, OnCancel onCancel) {
        this.job = job;
        this.owner = owner;
        this.lease = lease;
        this.configured = configured;
        this.onCancel = onCancel;
    }

    @Override
    public String lock(Connection c) throws SQLException {
        ReplayJobs.Lease held = ReplayJobs.lockForBatch(c, job.id(), owner, lease);
        if (held == ReplayJobs.Lease.LOST) {
            return "lease lost to another instance; leaving the job to it";
        }
        if (held == ReplayJobs.Lease.CANCEL_REQUESTED) {
            if (job.target() == ReplayTarget.SHADOW) {
                ShadowTables.drop(c, ShadowTables.shadowSpec(configured, job.id()));
            }
            ReplayJobs.finish(c, job.id(), JobState.CANCELLED, null, job.target() == ReplayTarget.SHADOW
                    ? "cancelled; the shadow table was dropped, the live table is untouched"
                    : "cancelled between two batches; the batches before it stay applied");
            return CANCELLED;
        }
        return null;
    }

    private static final String CANCELLED = "cancelled";

    @Override
    public boolean commitsOnStop(String stop) {
        return CANCELLED.equals(stop);
    }

    @Override
    public String rejectsGroup() {
        return rejectsGroup(job);
    }

    /**
     * The {@code consumer_group} under which a job's rejects are kept in {@code dimstream.sink_rejects}
     * (beside the live sink's): undecodable or invalid source records, and values PostgreSQL refused.
     */
    static String rejectsGroup(ReplayJob job) {
        return "replay-" + job.id();
    }

    @Override
    public String advance(Connection c, Applied<?> applied) throws SQLException {
        ReplayPoll poll = (ReplayPoll) applied.prepared();
        poll.saveSlices(c);
        ReplayJobs.advance(c, job.id(), poll.moved(), applied.rejects().size(), applied.rowsChanged());
        return null;
    }

    /** A transaction of the job's own (its start, a repair's clear, the swap, its end) under the same lock and cancel check. */
    void inTransaction(DataSource ds, Transactions.VoidBody body) throws SQLException, ReplayRun.Abandoned {
        String stopped = Transactions.inTransaction(ds, c -> {
            String stop = lockOrEnd(c);
            if (stop != null) {
                return stop;
            }
            body.run(c);
            return null;
        });
        if (stopped != null) {
            if (CANCELLED.equals(stopped)) {
                onCancel.cancelled(job);
            }
            throw new ReplayRun.Abandoned(stopped);
        }
    }

    /** The stop of a batch the applier did not apply: the job is abandoned (counted when cancelled). */
    ReplayRun.Abandoned abandoned(String stop) {
        if (CANCELLED.equals(stop)) {
            onCancel.cancelled(job);
        }
        return new ReplayRun.Abandoned(stop);
    }
}
