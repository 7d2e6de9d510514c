package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.read.ShadowDiff;
import io.dimstream.db.read.VersionRow;
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
    void aSnapshotFeedIsQueuedLikeAnyOtherEntity() throws Exception {
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

        // its slices are replayed with their deletions by absence (SnapshotReplayIT)
        assertThat(run.exitCode()).isZero();
        List<ReplayJob> queued = jobs.list(entity, 10);
        assertThat(queued).hasSize(1);
        assertThat(List.of(queued.get(0).topic(), queued.get(0).target(), queued.get(0).state()))
                .isEqualTo(List.of("crm.snapshots", ReplayTarget.LIVE, JobState.QUEUED));
        assertThat(run.out()).startsWith("replay job " + queued.get(0).id() + " queued: crm.snapshots from earliest into the live table of "
                + entity);
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

    /**
     * A READY no-swap job of {@code entity}: the live table has A (a1 from day 1) and B (b1); the
     * shadow (what the replay read) has A (a1, then a2 from day 2) and C (c1), not B.
     */
    private long readyJob(Path config) throws Exception {
        io.dimstream.db.entity.EntitySpec live = io.dimstream.config.DimstreamConfig.load(config, Map.of()).entity(entity).toEntitySpec();
        io.dimstream.db.schema.EntityTables.ensure(ds, live);
        io.dimstream.db.write.Scd2Writer writer = new io.dimstream.db.write.Scd2Writer(ds);
        writer.apply(live, List.of(ev("A", 1, "a1", 1), ev("B", 1, "b1", 2)));
        long id = jobs.submit(entity, "crm.customers", ReplaySource.earliest(), ReplayTarget.SHADOW, true, "ops");
        io.dimstream.db.entity.EntitySpec shadow = io.dimstream.db.jobs.ShadowTables.shadowSpec(live, id);
        io.dimstream.db.jobs.ShadowTables.create(ds, shadow);
        writer.apply(shadow, List.of(ev("A", 1, "a1", -3), ev("A", 2, "a2", -2), ev("C", 1, "c1", -1)));
        io.dimstream.db.sql.Transactions.run(ds, c -> ReplayJobs.ready(c, id, "filled"));
        return id;
    }

    private static io.dimstream.db.event.Event ev(String id, int day, String email, long seq) {
        return io.dimstream.db.event.Event.upsert(java.time.Instant.parse("2025-08-01T00:00:00Z").plus(Duration.ofDays(day)),
                Map.of("customer_id", id, "email", email), seq, io.dimstream.db.event.Source.kafka("crm.customers", 0, Math.abs(seq)));
    }

    private List<String> rows(String table) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = ds.getConnection(); var p = c.prepareStatement("SELECT to_jsonb(t)::text FROM " + table
                + " t ORDER BY customer_id, valid_from"); var rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Each version as "key email valid_from valid_to" (days, UTC). */
    private List<String> versions(String table) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = ds.getConnection(); var p = c.prepareStatement("SELECT customer_id || ' ' || email || ' ' || to_char(valid_from "
                + "AT TIME ZONE 'UTC', 'YYYY-MM-DD') || ' ' || coalesce(to_char(valid_to AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'open') FROM "
                + table + " ORDER BY customer_id, valid_from"); var rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @Test
    void noSwapIsQueuedOnlyForAShadowReplay() throws Exception {
        Path config = config();
        CliRun ok = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--target", "shadow", "--no-swap", "--user", "ops");
        CliRun live = CliRun.of("replay", "--config", config.toString(), "--entity", entity, "--no-swap");

        assertThat(ok.exitCode()).isZero();
        ReplayJob job = jobs.list(entity, 10).get(0);
        assertThat(ok.out()).isEqualTo("replay job " + job.id() + " queued: crm.customers from earliest into the shadow table of " + entity
                + " (by ops); it stops READY before the swap\n");
        assertThat(List.of(job.target(), job.noSwap(), job.state())).isEqualTo(List.of(ReplayTarget.SHADOW, true, JobState.QUEUED));
        assertThat(List.of(live.exitCode(), live.err())).isEqualTo(List.of(2,
                "dimstream replay: --no-swap: only with --target shadow (a live replay has no swap)\n"));
        assertThat(jobs.list(entity, 10)).hasSize(1);
    }

    @Test
    void diffPrintsWhatTheSwapWouldChangeThenSwapMakesTheShadowLive() throws Exception {
        Path config = config();
        long id = readyJob(config);
        String shadow = entity + "_shadow_" + id;
        List<String> liveBefore = rows(entity);

        CliRun diff = CliRun.of("replay", "--config", config.toString(), "--diff", Long.toString(id));
        CliRun first = CliRun.of("replay", "--config", config.toString(), "--diff", Long.toString(id), "--limit", "1");

        String head = "replay job " + id + " READY: swapping " + shadow + " in for " + entity + " would change\n"
                + "  keys: 1 added, 0 removed, 1 changed; versions: 3 added, 1 removed\n"
                + "  computed as the swap would do it now: 1 events of the live memory the shadow lacks (written after the job's end "
                + "offsets, loaded, applied from quarantine) merged into it first\n";
        String a = "  changed customer_id=A\n"
                + "    + [2025-08-02T00:00:00Z, 2025-08-03T00:00:00Z) email=a1\n"
                + "    + [2025-08-03T00:00:00Z, open) email=a2\n"
                + "    - [2025-08-02T00:00:00Z, open) email=a1\n";
        assertThat(List.of(diff.exitCode(), diff.out())).isEqualTo(List.of(0, head + "keys:\n" + a
                + "  added customer_id=C\n"
                + "    + [2025-08-02T00:00:00Z, open) email=c1\n"));
        assertThat(List.of(first.exitCode(), first.out())).isEqualTo(List.of(0, head + "first 1 of 2 keys (--limit):\n" + a));
        // B is in the live memory: the swap merges it, so it is not removed; the preview changed nothing
        assertThat(rows(entity)).isEqualTo(liveBefore);

        CliRun swap = CliRun.of("replay", "--config", config.toString(), "--swap", Long.toString(id), "--user", "ops-anna");
        assertThat(List.of(swap.exitCode(), swap.out())).isEqualTo(List.of(0, "replay job " + id + " SUCCEEDED: swapped in by ops-anna "
                + "after its preview; the replaced table is kept as " + entity + "_replaced_" + id + " (memory " + entity + "_replaced_" + id
                + "_events); 1 events of the live memory merged at the swap\n"));
        assertThat(versions(entity)).isEqualTo(List.of("A a1 2025-08-02 2025-08-03", "A a2 2025-08-03 open", "B b1 2025-08-02 open",
                "C c1 2025-08-02 open"));
        assertThat(rows(entity + "_replaced_" + id)).isEqualTo(liveBefore);

        CliRun again = CliRun.of("replay", "--config", config.toString(), "--swap", Long.toString(id));
        assertThat(List.of(again.exitCode(), again.err())).isEqualTo(List.of(2, "dimstream replay: replay job " + id + " is SUCCEEDED, "
                + "not READY: only a shadow replay submitted with --no-swap that has reached its end offsets waits for a swap or discard\n"));
    }

    @Test
    void aVersionAddedAndOneRemovedThatPrintAlikeShowTheirRecordHashes() {
        java.time.Instant from = java.time.Instant.parse("2025-08-02T00:00:00Z");
        java.util.function.BiFunction<java.time.Instant, String, VersionRow> version = (validFrom, hash) -> new VersionRow(
                Map.of("customer_id", "A"), Map.of("email", "a1"), 1L, validFrom, null, true, false, hash, "crm", 0, 1L, from);
        VersionRow live = version.apply(from, "aa".repeat(32));
        VersionRow replayed = version.apply(from, "bb".repeat(32));
        VersionRow other = version.apply(from.plusSeconds(86_400), "cc".repeat(32));
        ShadowDiff diff = new ShadowDiff(0, 0, 1, 2, 1, List.of(new ShadowDiff.KeyDiff(Map.of("customer_id", "A"), ShadowDiff.Kind.CHANGED,
                List.of(replayed, other), List.of(live))), false);
        ReplayJob job = new ReplayJob(7, "customer", "crm", null, ReplayTarget.SHADOW, JobState.READY, false, 3L, 3, 0, 3, "ops", from,
                from, null, null, null, null, null, true);
        java.io.StringWriter text = new java.io.StringWriter();
        java.io.PrintWriter out = new java.io.PrintWriter(text);

        ReplayCommand.printPreview(out, new ShadowPreviews.Preview(job, "customer", "customer_shadow_7", 0, diff));
        out.flush();

        assertThat(text.toString()).isEqualTo("replay job 7 READY: swapping customer_shadow_7 in for customer would change\n"
                + "  keys: 0 added, 0 removed, 1 changed; versions: 2 added, 1 removed\n"
                + "  computed as the swap would do it now: 0 events of the live memory the shadow lacks (written after the job's end "
                + "offsets, loaded, applied from quarantine) merged into it first\n"
                + "keys:\n"
                + "  changed customer_id=A\n"
                + "    + [2025-08-02T00:00:00Z, open) email=a1 record_hash=bbbbbbbbbbbbbbbb...\n"
                + "    + [2025-08-03T00:00:00Z, open) email=a1\n"
                + "    - [2025-08-02T00:00:00Z, open) email=a1 record_hash=aaaaaaaaaaaaaaaa...\n");
    }

    @Test
    void aSwapThatCannotBeMadeFailsSayingWhyAndTheJobStaysReady() throws Exception {
        Path config = config();
        long id = readyJob(config);
        List<String> liveBefore = rows(entity);
        try (Connection c = ds.getConnection(); var s = c.createStatement()) {
            s.execute("CREATE TABLE " + entity + "_refs (customer_id text, valid_from timestamptz, CONSTRAINT " + entity + "_refs_fk "
                    + "FOREIGN KEY (customer_id, valid_from) REFERENCES " + entity + " (customer_id, valid_from))");
        }

        CliRun swap = CliRun.of("replay", "--config", config.toString(), "--swap", Long.toString(id), "--user", "ops-anna");

        assertThat(List.of(swap.exitCode(), swap.err())).isEqualTo(List.of(1, "dimstream replay: replay job " + id + " was not swapped in "
                + "(nothing changed, it is still READY): the swap replaces the rows of " + entity + ", which foreign keys reference: "
                + entity + "_refs (" + entity + "_refs_fk); drop them (ALTER TABLE ... DROP CONSTRAINT) before the swap and add them again "
                + "after it\n"));
        assertThat(List.of(jobs.find(id).orElseThrow().state(), rows(entity))).isEqualTo(List.of(JobState.READY, liveBefore));
    }

    @Test
    void discardDropsTheShadowAndLeavesTheLiveTableAsItWas() throws Exception {
        Path config = config();
        long id = readyJob(config);
        List<String> liveBefore = rows(entity);

        CliRun both = CliRun.of("replay", "--config", config.toString(), "--swap", Long.toString(id), "--discard", Long.toString(id));
        CliRun discard = CliRun.of("replay", "--config", config.toString(), "--discard", Long.toString(id), "--user", "ops-ben");

        assertThat(List.of(both.exitCode(), both.err())).isEqualTo(List.of(2, "dimstream replay: --diff, --swap and --discard: give one of them\n"));
        assertThat(List.of(discard.exitCode(), discard.out())).isEqualTo(List.of(0, "replay job " + id + " CANCELLED: discarded by ops-ben "
                + "before its swap; the shadow table " + entity + "_shadow_" + id + " was dropped, the live table is untouched\n"));
        assertThat(rows(entity)).isEqualTo(liveBefore);
        try (Connection c = ds.getConnection(); var p = c.prepareStatement("SELECT to_regclass(?)::text, (SELECT string_agg(actor || ' ' "
                + "|| action, ',' ORDER BY id) FROM dimstream.admin_audit WHERE target = ?)")) {
            p.setString(1, entity + "_shadow_" + id);
            p.setString(2, "replay_job:" + id);
            try (var rs = p.executeQuery()) {
                rs.next();
                assertThat(java.util.Arrays.asList(rs.getString(1), rs.getString(2))).isEqualTo(java.util.Arrays.asList(null,
                        "ops replay.submit,ops-ben replay.discard"));
            }
        }
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
