package io.dimstream.db.apply;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.JobsFixtures;
import io.dimstream.db.schema.EntityShapes;
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
 * {@link WriterLock}: a transaction holding it EXCLUSIVE (a replay batch, a quarantine action, a
 * {@code load}) makes a sink transaction (STREAMING) on the same table wait until it commits, and
 * that transaction then computes its versions from what the holder wrote; sink transactions do not
 * wait for each other.
 */
class WriterLockTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void aStreamingWriterWaitsForTheExclusiveHolderAndThenBuildsOnWhatItCommitted() throws Exception {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "writer_lock", Optional.empty());
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        Event first = up("C1", 0, "a@x", "Oslo", 1, 1);
        writer.apply(spec, List.of(first));
        Event holders = up("C1", 10, "b@x", "Rome", 2, 2);   // written under the lock
        Event waiters = up("C1", 5, "c@x", "Bern", 3, 3);    // late against the holder's event

        CompletableFuture<ApplyResult> waiting;
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            WriterLock.exclusiveWriter(holder, spec);
            waiting = CompletableFuture.supplyAsync(() -> streaming(applier, spec, waiters));
            assertThat(awaitWaitingForAdvisoryLock()).as("a streaming writer waiting for the writer lock").isTrue();
            assertThat(waiting).isNotDone();

            writer.apply(holder, spec, List.of(holders));
            holder.commit();
        }

        ApplyResult r = waiting.get(30, TimeUnit.SECONDS);
        // it saw the holder's day-10 event: its day-5 event is late and splits the first version
        assertThat(List.of(r.late(), r.changed())).isEqualTo(List.of(1, 0));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(first, holders, waiters)));
    }

    @Test
    void streamingWritersDoNotWaitForEachOther() throws Exception {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "writer_lock_shared", Optional.empty());
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        Event other = up("C2", 1, "d@x", "Lima", 4, 4);
        try (Connection sink = ds.getConnection()) {
            sink.setAutoCommit(false);
            WriterLock.take(sink, spec, WriterLock.Mode.STREAMING);
            // a second sink transaction goes through while the first holds its shared lock
            ApplyResult r = CompletableFuture.supplyAsync(() -> streaming(applier, spec, other)).get(30, TimeUnit.SECONDS);
            assertThat(r.newKeys()).isEqualTo(1);
            sink.rollback();
        }
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(other)));
    }

    private static ApplyResult streaming(BatchApplier applier, EntitySpec spec, Event e) {
        try {
            Prepared steps = Prepared.of(List.of(new Step.Events(List.of(e))));
            Outcome<Prepared, Void> out = applier.apply(Batch.of(spec.name(), WriterLock.Mode.STREAMING, shape -> steps, "a sink batch"),
                    Position.NONE);
            return ((Outcome.Done<Prepared, Void>) out).applied().result();
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private boolean awaitWaitingForAdvisoryLock() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            List<List<Object>> waiting = JobsFixtures.query(ds,
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = "
                            + "(SELECT oid FROM pg_database WHERE datname = current_database())");
            if (((Number) waiting.get(0).get(0)).longValue() > 0) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}
