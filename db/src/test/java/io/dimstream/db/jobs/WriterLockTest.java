package io.dimstream.db.jobs;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link WriterLock}: a transaction holding it (a replay batch, a quarantine action) makes a
 * sink-style writer transaction on the same entity wait until it commits, and that transaction
 * then computes its versions from what the lock holder wrote.
 */
class WriterLockTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void aWriterWaitsForTheLockHolderAndThenBuildsOnWhatItCommitted() throws Exception {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "writer_lock", Optional.empty());
        Event first = up("C1", 0, "a@x", "Oslo", 1, 1);
        writer.apply(spec, List.of(first));
        Event holders = up("C1", 10, "b@x", "Rome", 2, 2);   // written under the lock
        Event waiters = up("C1", 5, "c@x", "Bern", 3, 3);    // late against the holder's event

        CompletableFuture<ApplyResult> waiting;
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            WriterLock.exclusiveWriter(holder, spec);
            waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return writer.apply(spec, List.of(waiters));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the other writer's transaction must be stuck on the event memory's lock
            assertThat(awaitBlockedOnMemory(spec)).as("a writer waiting for the memory table's lock").isTrue();
            assertThat(waiting).isNotDone();

            writer.apply(holder, spec, List.of(holders));
            holder.commit();
        }

        ApplyResult r = waiting.get(30, TimeUnit.SECONDS);
        // it saw the holder's day-10 event: its day-5 event is late and splits the first version
        assertThat(List.of(r.late(), r.changed())).isEqualTo(List.of(1, 0));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(first, holders, waiters)));
    }

    private boolean awaitBlockedOnMemory(EntitySpec spec) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            List<List<Object>> waiting = JobsFixtures.query(ds,
                    "SELECT count(*) FROM pg_locks WHERE relation = to_regclass(?) AND NOT granted", Sql.table(spec.memoryTable()));
            if (((Number) waiting.get(0).get(0)).longValue() > 0) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}
