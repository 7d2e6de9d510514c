package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Keeps two writers from recomputing one key of an entity table at once.
 *
 * <p>The writer computes each key's new versions from what its statements see; two transactions
 * recomputing one key at once would each write a history computed without the other's events (or
 * one would fail on the one-open-version index). The streaming sink never does that to itself (a key
 * lives in one changes-topic partition, and a partition is one transaction at a time), and the parts
 * of one parallel {@code load} batch take disjoint keys; but a replay, a quarantined event applied by a
 * user, or a {@code load} beside the running service cross the sink's partitions. So:
 * <ul>
 *   <li>{@link Mode#STREAMING}: every sink transaction takes the table's writer lock SHARED: sink
 *       transactions never wait for each other;</li>
 *   <li>{@link Mode#EXCLUSIVE}: a writer that may touch any key takes it EXCLUSIVE: it waits for the
 *       sink transactions in flight, and the sink's next transactions wait until it ends, then see
 *       what it committed;</li>
 *   <li>{@link Mode#NONE}: no lock taken, because the caller holds it EXCLUSIVE on another
 *       connection for the batch's whole duration (a parallel {@code load} batch: its parts run on
 *       several connections, each disjoint from the others, all of them exclusive of the sink), or
 *       because no other writer reaches the table (a replay's shadow).</li>
 * </ul>
 * A transaction-scoped advisory lock (two-key form, its own key space: never the DDL lock's) keyed
 * by the table's name; released at commit or rollback.
 */
public final class WriterLock {

    /** The first key of every writer lock: "dims". */
    private static final int SPACE = 0x64696d73;

    /** How a batch's transaction takes the lock. */
    public enum Mode {
        STREAMING, EXCLUSIVE, NONE
    }

    private WriterLock() {
    }

    /** Takes the entity table's writer lock in {@code mode} for the rest of the caller's transaction. */
    public static void take(Connection c, EntitySpec entity, Mode mode) throws SQLException {
        if (mode == Mode.NONE) {
            return;
        }
        String fn = mode == Mode.STREAMING ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock";
        try (PreparedStatement p = c.prepareStatement("SELECT " + fn + "(?, hashtext(?))")) {
            p.setInt(1, SPACE);
            p.setString(2, entity.table());
            p.execute();
        }
    }

    /** {@link #take} EXCLUSIVE: for the rest of the caller's transaction, no other writer of the table runs. */
    public static void exclusiveWriter(Connection c, EntitySpec entity) throws SQLException {
        take(c, entity, Mode.EXCLUSIVE);
    }
}
