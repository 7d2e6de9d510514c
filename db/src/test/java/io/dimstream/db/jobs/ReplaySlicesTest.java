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
    void aSliceIsCompleteOnlyWhenWholeAndMarkedOnEveryPartitionItsMarkersName() {
        Instant t3 = Instant.parse("2025-08-03T00:00:00Z");
        Instant t4 = Instant.parse("2025-08-04T00:00:00Z");
        Instant t5 = Instant.parse("2025-08-05T00:00:00Z");
        List<Part> parts = List.of(
                // T1: two partitions, both whole and marked naming 2: complete
                new Part(T1, 1, true, 9L, 2), new Part(T1, 0, true, 4L, 2),
                // T2: partition 1's marker not read yet
                new Part(T2, 0, true, 11L, 2), new Part(T2, 1, true, null, null),
                // t3: partition 0's rows began before the range (not whole)
                new Part(t3, 0, false, 20L, 2), new Part(t3, 1, true, 21L, 2),
                // t4: no part on partition 2 of the 3 its markers name
                new Part(t4, 0, true, 30L, 3), new Part(t4, 1, true, 31L, 3),
                // t5: the markers disagree on the partition count
                new Part(t5, 0, true, 40L, 2), new Part(t5, 1, true, 41L, 3));

        assertThat(ReplaySlices.completeSlices(parts)).containsExactly(T1);
        assertThat(ReplaySlices.complete(parts, T1)).isTrue();
        assertThat(ReplaySlices.complete(parts, T2)).isFalse();
        assertThat(ReplaySlices.complete(List.of(new Part(t5, 0, true, 40L, 1)), t5)).as("a one-partition slice").isTrue();
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
