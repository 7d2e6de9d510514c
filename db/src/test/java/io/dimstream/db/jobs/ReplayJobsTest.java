package io.dimstream.db.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Job rows: submit, claim under a lease, fencing, progress, cancel, each audited. */
class ReplayJobsTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    private static String entity(String n) {
        return n + "_" + System.nanoTime();
    }

    @Test
    void submittedJobIsQueuedWithItsSourceAndAudited() throws SQLException {
        String e = entity("submit");
        long id = jobs.submit(e, "crm.customers", ReplaySource.parse("0:5,2:7"), ReplayTarget.SHADOW, "alice");

        ReplayJob j = jobs.find(id).orElseThrow();
        assertThat(List.of(j.entity(), j.topic(), j.source(), j.target(), j.state(), j.requestedBy(), j.cancelRequested()))
                .isEqualTo(List.of(e, "crm.customers", ReplaySource.offsets(Map.of(0, 5L, 2, 7L)), ReplayTarget.SHADOW, JobState.QUEUED,
                        "alice", false));
        assertThat(j.eventsTotal()).isNull();
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target, detail::text FROM dimstream.admin_audit WHERE target = ?",
                "replay_job:" + id)).isEqualTo(List.of(List.of("alice", "replay.submit", "replay_job:" + id,
                "{\"from\": \"0:5,2:7\", \"topic\": \"crm.customers\", \"entity\": \"" + e + "\", \"target\": \"shadow\"}")));
    }

    @Test
    void sourcesParseOrAreRefusedNamingTheField() {
        assertThat(ReplaySource.parse("earliest")).isEqualTo(ReplaySource.earliest());
        assertThat(ReplaySource.parse("2025-08-01T00:00:00Z")).isEqualTo(ReplaySource.at(Instant.parse("2025-08-01T00:00:00Z")));
        assertThat(ReplaySource.parse("1:10, 0:3").toString()).isEqualTo("0:3,1:10");
        assertThatThrownBy(() -> ReplaySource.parse("yesterday")).hasMessageStartingWith("from: \"yesterday\" is not earliest");
        assertThatThrownBy(() -> ReplaySource.parse("0:1,0:2")).hasMessage("from: partition 0 is listed twice in \"0:1,0:2\"");
        assertThatThrownBy(() -> ReplaySource.parse("0:99999999999999999999"))
                .hasMessage("from: \"0:99999999999999999999\" is out of range for partition:offset");
        assertThatThrownBy(() -> ReplayTarget.parse("mirror")).hasMessage("target: \"mirror\" is not live or shadow");
    }

    @Test
    void aJobIsClaimedOnceUntilItsLeaseExpiresThenTakenOverAndTheOldOwnerIsFenced() throws Exception {
        String e = entity("claim");
        long id = jobs.submit(e, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "bob");

        ReplayJob a = jobs.claim("worker-a", List.of(e), Duration.ofMillis(400)).orElseThrow();
        assertThat(a.id()).isEqualTo(id);
        assertThat(List.of(a.state(), a.leaseOwner())).isEqualTo(List.of(JobState.RUNNING, "worker-a"));
        assertThat(jobs.claim("worker-b", List.of(e), Duration.ofSeconds(5))).isEmpty();

        Thread.sleep(600); // a's lease expires without a heartbeat
        ReplayJob b = jobs.claim("worker-b", List.of(e), Duration.ofSeconds(30)).orElseThrow();
        assertThat(List.of(b.id(), b.leaseOwner())).isEqualTo(List.of(id, "worker-b"));
        assertThat(jobs.heartbeat(id, "worker-a", Duration.ofSeconds(5))).isFalse();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(ReplayJobs.lockForBatch(c, id, "worker-a", Duration.ofSeconds(5))).isEqualTo(ReplayJobs.Lease.LOST);
            c.rollback();
            assertThat(ReplayJobs.lockForBatch(c, id, "worker-b", Duration.ofSeconds(5))).isEqualTo(ReplayJobs.Lease.HELD);
            c.rollback();
        }
        assertThat(jobs.fail(id, "worker-a", "late")).isFalse();
        assertThat(jobs.find(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void progressIsStoredOnceAndAdvancedWithCounters() throws SQLException {
        String e = entity("progress");
        long id = jobs.submit(e, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "carol");
        jobs.claim("w", List.of(e), Duration.ofSeconds(30)).orElseThrow();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ReplayJobs.start(c, id, List.of(new PartitionProgress(0, 10, 110, 10), new PartitionProgress(1, 0, 50, 0)));
            c.commit();
            assertThat(ReplayJobs.lockForBatch(c, id, "w", Duration.ofSeconds(30))).isEqualTo(ReplayJobs.Lease.HELD);
            ReplayJobs.advance(c, id, Map.of(0, 60L, 1, 50L), 2, 7);
            c.commit();
            assertThat(ReplayJobs.lockForBatch(c, id, "w", Duration.ofSeconds(30))).isEqualTo(ReplayJobs.Lease.HELD);
            ReplayJobs.advance(c, id, Map.of(0, 110L), 1, 3);
            ReplayJobs.finish(c, id, JobState.SUCCEEDED, null, null);
            c.commit();
        }
        ReplayJob j = jobs.find(id).orElseThrow();
        assertThat(List.of(j.state(), j.eventsTotal(), j.eventsRead(), j.eventsRejected(), j.rowsChanged(), j.percent()))
                .isEqualTo(List.of(JobState.SUCCEEDED, 150L, 150L, 3L, 10L, 100));
        assertThat(j.leaseOwner()).isNull();
        assertThat(j.finishedAt()).isNotNull();
        assertThat(jobs.progress(id)).isEqualTo(List.of(new PartitionProgress(0, 10, 110, 110), new PartitionProgress(1, 0, 50, 50)));
    }

    @Test
    void cancellingAQueuedJobEndsItAndARunningOneIsAskedToStop() throws SQLException {
        String e = entity("cancel");
        long queued = jobs.submit(e, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "dave");
        assertThat(jobs.requestCancel(queued, "erin")).isTrue();
        assertThat(jobs.find(queued).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(jobs.requestCancel(queued, "erin")).isFalse();

        long running = jobs.submit(e, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "dave");
        jobs.claim("w", List.of(e), Duration.ofSeconds(30)).orElseThrow();
        assertThat(jobs.requestCancel(running, "erin")).isTrue();
        assertThat(jobs.find(running).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(ReplayJobs.lockForBatch(c, running, "w", Duration.ofSeconds(30))).isEqualTo(ReplayJobs.Lease.CANCEL_REQUESTED);
            c.rollback();
        }
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target FROM dimstream.admin_audit WHERE action = 'replay.cancel' "
                + "AND target IN (?, ?) ORDER BY id", "replay_job:" + queued, "replay_job:" + running))
                .isEqualTo(List.of(List.of("erin", "replay.cancel", "replay_job:" + queued),
                        List.of("erin", "replay.cancel", "replay_job:" + running)));
        assertThatThrownBy(() -> jobs.requestCancel(running, " ")).hasMessageStartingWith("user:");
    }

    @Test
    void noJobForOtherEntities() throws SQLException {
        jobs.submit(entity("other"), "t", ReplaySource.earliest(), ReplayTarget.LIVE, "x");
        assertThat(jobs.claim("w", List.of(entity("mine")), Duration.ofSeconds(5))).isEqualTo(Optional.empty());
    }
}
