package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay verb submits a job row and, with --wait, follows it to its end. The worker here is
 * played by the test through {@link ReplayJobs} (the real one runs in 'dimstream run' and is
 * tested by the streams-app ITs).
 */
class ReplayCommandTest {

    private static final AtomicInteger N = new AtomicInteger();
    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    @TempDir
    Path dir;

    private String entity;

    private Path config() throws IOException {
        entity = "cli_replay_" + N.incrementAndGet() + "_" + System.nanoTime() % 100000;
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """.formatted(TestPostgres.jdbcUrl(), entity, entity));
        return file;
    }

    @Test
    void submitsAJobWithItsSourceTargetAndUser() throws Exception {
        Path config = config();
        CliRun run = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--from", "0:10,2:0",
                "--target", "shadow", "--user", "ops-anna");

        assertThat(run.exitCode()).isZero();
        ReplayJob job = jobs.list(entity, 10).get(0);
        assertThat(run.out()).isEqualTo("replay job " + job.id() + " queued: crm.customers from 0:10,2:0 into the shadow table of "
                + entity + " (by ops-anna)\n");
        assertThat(List.of(job.topic(), job.source(), job.target(), job.state(), job.requestedBy())).isEqualTo(List.of("crm.customers",
                ReplaySource.offsets(Map.of(0, 10L, 2, 0L)), ReplayTarget.SHADOW, JobState.QUEUED, "ops-anna"));
    }

    @Test
    void keysOrAKeyPrefixQueueARepairOfTheLiveTableAndAreRefusedForAShadowOrTogether() throws Exception {
        Path config = config();
        CliRun keys = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--keys", "C2,C1", "--user", "ops");
        CliRun prefix = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--key-prefix", "EU-", "--user", "ops");

        assertThat(List.of(keys.exitCode(), prefix.exitCode())).isEqualTo(List.of(0, 0));
        List<ReplayJob> queued = jobs.list(entity, 10);
        assertThat(keys.out()).isEqualTo("replay job " + queued.get(1).id() + " queued: crm.customers from earliest into the live table of "
                + entity + ", keys C2, C1 only (by ops)\n");
        assertThat(prefix.out()).isEqualTo("replay job " + queued.get(0).id() + " queued: crm.customers from earliest into the live table of "
                + entity + ", keys starting with \"EU-\" only (by ops)\n");
        assertThat(List.of(jobs.keys(queued.get(1).id()), jobs.keys(queued.get(0).id()))).isEqualTo(List.of(
                java.util.Optional.of(new io.dimstream.db.jobs.ReplayKeys(List.of(List.of("C2"), List.of("C1")), null)),
                java.util.Optional.of(new io.dimstream.db.jobs.ReplayKeys(null, "EU-"))));

        CliRun shadow = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--keys", "C1", "--target", "shadow");
        CliRun both = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--keys", "C1", "--key-prefix", "C");
        assertThat(List.of(shadow.exitCode(), both.exitCode())).isEqualTo(List.of(2, 2));
        assertThat(shadow.err()).isEqualTo("dimstream replay: --keys: a repair of some keys writes the live table (--target live); "
                + "a shadow of some keys would replace the whole table\n");
        assertThat(both.err()).isEqualTo("dimstream replay: --keys and --key-prefix: give one of them\n");
        assertThat(jobs.list(entity, 10)).hasSize(2);
    }

    @Test
    void badFromOrTargetIsRefusedNamingTheOptionAndNothingIsQueued() throws Exception {
        Path config = config();
        CliRun badFrom = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--from", "last tuesday");
        CliRun badTarget = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--target", "elsewhere");
        CliRun badEntity = CliRun.of("replay", "--config", config.toString(), "--entity", "nope");

        assertThat(List.of(badFrom.exitCode(), badTarget.exitCode(), badEntity.exitCode())).isEqualTo(List.of(2, 2, 2));
        assertThat(badFrom.err()).startsWith("dimstream replay: --from: \"last tuesday\" is not earliest, an ISO-8601 instant");
        assertThat(badTarget.err()).isEqualTo("dimstream replay: --target: \"elsewhere\" is not live or shadow\n");
        assertThat(badEntity.err()).startsWith("dimstream replay: --entity: ");
        assertThat(jobs.list(entity, 10)).isEmpty();
    }

    @Test
    void aSnapshotFeedIsRefusedAndNothingIsQueued() throws Exception {
        entity = "cli_replay_snap_" + N.incrementAndGet();
        Path config = dir.resolve("snapshot.yml");
        Files.writeString(config, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.snapshots
                    mode: snapshot
                    table: %s
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """.formatted(TestPostgres.jdbcUrl(), entity, entity));
        CliRun run = CliRun.of("replay", "--config", config.toString(), "--entity", entity);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("dimstream replay: --entity: " + entity + " is a snapshot feed (mode: snapshot); replaying "
                + "snapshot feeds is not supported yet (the deletions by absence would not be applied)\n");
        assertThat(jobs.list(entity, 10)).isEmpty();
    }

    @Test
    void waitPrintsProgressUntilTheJobSucceedsOrExitsByOutcome() throws Exception {
        Path config = config();
        CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of("replay", "--config", config.toString(),
                "--entity", entity, "--wait", "--poll", "PT0.05S", "--user", "ops"));
        // the worker: claim, take a range of 100 offsets, advance twice, finish
        ReplayJob job = awaitClaim("worker");
        step(job.id(), c -> ReplayJobs.start(c, job.id(), List.of(new PartitionProgress(0, 0, 100, 0))));
        step(job.id(), c -> ReplayJobs.advance(c, job.id(), Map.of(0, 40L), 1, 12));
        step(job.id(), c -> ReplayJobs.advance(c, job.id(), Map.of(0, 100L), 0, 5));
        step(job.id(), c -> ReplayJobs.finish(c, job.id(), JobState.SUCCEEDED, null, null));

        CliRun done = run.get();
        assertThat(done.exitCode()).isZero();
        List<String> lines = done.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("replay job " + job.id() + " queued: crm.customers from earliest into the live table of "
                + entity + " (by ops)");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("job " + job.id() + " SUCCEEDED: 100/100 events (100%), 17 rows changed, 1 rejected");
        // every line printed is one state the job really went through, in order
        assertThat(lines.subList(1, lines.size())).isSubsetOf(List.of(
                "job " + job.id() + " QUEUED: 0/? events (0%), 0 rows changed, 0 rejected",
                "job " + job.id() + " RUNNING: 0/? events (0%), 0 rows changed, 0 rejected",
                "job " + job.id() + " RUNNING: 0/100 events (0%), 0 rows changed, 0 rejected",
                "job " + job.id() + " RUNNING: 40/100 events (40%), 12 rows changed, 1 rejected",
                "job " + job.id() + " RUNNING: 100/100 events (100%), 17 rows changed, 1 rejected",
                "job " + job.id() + " SUCCEEDED: 100/100 events (100%), 17 rows changed, 1 rejected"));

        CompletableFuture<CliRun> cancelled = CompletableFuture.supplyAsync(() -> CliRun.of("replay", "--config", config.toString(),
                "--entity", entity, "--wait", "--poll", "PT0.05S"));
        ReplayJob second = awaitClaim("worker");
        jobs.requestCancel(second.id(), "someone");
        step(second.id(), c -> ReplayJobs.finish(c, second.id(), JobState.CANCELLED, null, "cancelled between two batches"));
        assertThat(cancelled.get().exitCode()).isEqualTo(3);

        CompletableFuture<CliRun> failed = CompletableFuture.supplyAsync(() -> CliRun.of("replay", "--config", config.toString(),
                "--entity", entity, "--wait", "--poll", "PT0.05S"));
        ReplayJob third = awaitClaim("worker");
        assertThat(jobs.fail(third.id(), "worker", "topic crm.customers does not exist")).isTrue();
        CliRun f = failed.get();
        assertThat(f.exitCode()).isEqualTo(1);
        assertThat(f.out()).contains("error: topic crm.customers does not exist\n");
    }

    private ReplayJob awaitClaim(String owner) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            var j = jobs.claim(owner, List.of(entity), Duration.ofSeconds(30));
            if (j.isPresent()) {
                return j.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no job was queued");
    }

    private interface Step {
        void run(Connection c) throws Exception;
    }

    private void step(long id, Step s) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ReplayJobs.lockForBatch(c, id, "worker", Duration.ofSeconds(30));
            s.run(c);
            c.commit();
        }
        Thread.sleep(150);
    }
}
