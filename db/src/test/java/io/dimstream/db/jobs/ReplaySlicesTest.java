package io.dimstream.db.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.jobs.ReplaySlices.Part;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A snapshot replay job's slice state: stored, read back, replaced, and gone with its job. */
class ReplaySlicesTest {

    private static final Instant T1 = Instant.parse("2025-08-01T00:00:00Z");
    private static final Instant T2 = Instant.parse("2025-08-02T00:00:00.123456Z");

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    private List<Part> load(long job) throws SQLException {
        try (java.sql.Connection c = ds.getConnection()) {
            return ReplaySlices.load(c, job);
        }
    }

    @Test
    void partsAreReadBackAsStoredAndAMarkerReadLaterReplacesThePart() throws SQLException {
        long id = jobs.submit("slices_" + System.nanoTime(), "crm.snapshots", ReplaySource.earliest(), ReplayTarget.SHADOW, "alice");
        long other = jobs.submit("slices_" + System.nanoTime(), "crm.snapshots", ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
        Part open = new Part(T2, 1, false, null, null);
        Transactions.inTransaction(ds, c -> {
            ReplaySlices.save(c, id, List.of(open, new Part(T1, 0, true, 7L, 3), new Part(T1, 2, true, null, null)));
            ReplaySlices.save(c, other, List.of(new Part(T1, 0, true, 1L, 1)));
            return null;
        });
        assertThat(load(id)).containsExactly(
                new Part(T1, 0, true, 7L, 3), new Part(T1, 2, true, null, null), open);

        Transactions.inTransaction(ds, c -> {
            ReplaySlices.save(c, id, List.of(open.withMarker(12L, 3)));
            return null;
        });
        assertThat(load(id)).containsExactly(
                new Part(T1, 0, true, 7L, 3), new Part(T1, 2, true, null, null), new Part(T2, 1, false, 12L, 3));
        assertThat(load(other)).containsExactly(new Part(T1, 0, true, 1L, 1));
        assertThat(open.marked()).isFalse();
        assertThat(open.withMarker(12L, 3).marked()).isTrue();

        JobsFixtures.query(ds, "DELETE FROM dimstream.replay_jobs WHERE id = ? RETURNING id", id);
        assertThat(load(id)).isEmpty();
    }
}
