package io.dimstream.db.jobs;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Serializes a writer transaction that may touch any key of an entity (a live replay batch, a
 * quarantined event applied by a user) with the streaming sink's transactions on the same table.
 *
 * <p>The writer computes each key's new versions from what its statement sees; two transactions
 * recomputing one key at once would each write a history computed without the other's events.
 * The sink never does that to itself (a key lives in one changes-topic partition, and a partition
 * is one transaction at a time), but a replay or a quarantine action crosses partitions. So they
 * first take {@code SHARE ROW EXCLUSIVE} on the event memory: it waits for the sink transactions
 * in flight (which hold {@code ROW EXCLUSIVE} on it), and the sink's next statements that touch the
 * memory wait until this transaction ends, then see what it committed. Sink transactions do not
 * block each other.
 */
public final class WriterLock {

    private WriterLock() {
    }

    /** Takes the lock for the rest of the caller's transaction. */
    public static void exclusiveWriter(Connection c, EntitySpec entity) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("LOCK TABLE " + Sql.table(entity.memoryTable()) + " IN SHARE ROW EXCLUSIVE MODE");
        }
    }
}
