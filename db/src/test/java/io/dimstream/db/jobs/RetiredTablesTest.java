package io.dimstream.db.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Tables shadow replays leave behind ({@link RetiredTables}): the listing (whole rows, sizes read
 * back from PostgreSQL), a drop by an admin and by retention, each audited; a table without its job,
 * or of a live job, is never listed.
 */
class RetiredTablesTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MICROS);

    /** A finished job of {@code live}, finished {@code ago} before NOW, and the table it leaves (made here), if any. */
    private long job(EntitySpec live, ReplayTarget target, JobState state, Duration ago, boolean leaveTable) throws SQLException {
        long id = jobs.submit(live.name(), "crm", ReplaySource.earliest(), target, "ann");
        assertThat(jobs.claim("w", List.of(live.name()), Duration.ofMinutes(1)).orElseThrow().id()).isEqualTo(id);
        Transactions.run(ds, c -> {
            ReplayJobs.finish(c, id, state, null, null);
            try (var p = c.prepareStatement("UPDATE dimstream.replay_jobs SET finished_at = ? WHERE id = ?")) {
                p.setTimestamp(1, java.sql.Timestamp.from(NOW.minus(ago)));
                p.setLong(2, id);
                p.executeUpdate();
            }
            if (leaveTable) {
                EntitySpec kept = state == JobState.SUCCEEDED ? live.withTable(ShadowTables.retiredTable(live, id)) : ShadowTables.shadowSpec(live, id);
                EntityTables.createUnregistered(c, kept);
            }
        });
        return id;
    }

    private long bytes(String table, String memory) throws SQLException {
        return (Long) JobsFixtures.query(ds, "SELECT pg_total_relation_size(to_regclass(?)) + pg_total_relation_size(to_regclass(?))",
                table, memory).get(0).get(0);
    }

    private boolean exists(String table) throws SQLException {
        return JobsFixtures.query(ds, "SELECT to_regclass(?) IS NOT NULL", table).get(0).get(0).equals(true);
    }

    @Test
    void listsReplacedAndFailedShadowTablesWithSizeAndAgeAndAnAdminDropsOneAudited() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "retired", Optional.empty());
        long replaced = job(live, ReplayTarget.SHADOW, JobState.SUCCEEDED, Duration.ofDays(10), true);
        long failed = job(live, ReplayTarget.SHADOW, JobState.FAILED, Duration.ofDays(1), true);
        job(live, ReplayTarget.SHADOW, JobState.SUCCEEDED, Duration.ofDays(3), false);   // dropped by hand already
        job(live, ReplayTarget.LIVE, JobState.FAILED, Duration.ofDays(3), false);        // a live job leaves nothing
        job(live, ReplayTarget.SHADOW, JobState.CANCELLED, Duration.ofDays(3), false);   // its shadow was dropped at the cancel
        String rt = live.table() + "_replaced_" + replaced;
        String st = live.table() + "_shadow_" + failed;

        List<RetiredTables.Retired> listed = RetiredTables.list(ds, List.of(live));

        assertThat(listed).isEqualTo(List.of(
                new RetiredTables.Retired(replaced, live.name(), "replaced", rt, rt + "_events", bytes(rt, rt + "_events"), NOW.minus(Duration.ofDays(10))),
                new RetiredTables.Retired(failed, live.name(), "failed shadow", st, st + "_events", bytes(st, st + "_events"), NOW.minus(Duration.ofDays(1)))));
        assertThat(listed.get(0).bytes()).isPositive();

        assertThat(RetiredTables.drop(ds, List.of(live), failed, "ann")).contains(listed.get(1));

        assertThat(List.of(exists(st), exists(st + "_events"), exists(rt), exists(live.table()))).isEqualTo(List.of(false, false, true, true));
        assertThat(RetiredTables.list(ds, List.of(live))).isEqualTo(List.of(listed.get(0)));
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, detail::text FROM dimstream.admin_audit WHERE target = ? AND action <> 'replay.submit'",
                "replay_job:" + failed))
                .isEqualTo(List.of(List.of("ann", "replay.drop-retired", "{\"kind\": \"failed shadow\", \"bytes\": " + listed.get(1).bytes()
                        + ", \"table\": \"" + st + "\", \"entity\": \"" + live.name() + "\", \"memory\": \"" + st + "_events\"}")));
        assertThat(RetiredTables.drop(ds, List.of(live), failed, "ann")).isEmpty();
    }

    @Test
    void aPartitionedRetiredTableIsListedWithItsPartitionsSizesAndDroppedWithThem() throws SQLException {
        EntitySpec plain = JobsFixtures.ensuredCustomer(ds, "retired_part", Optional.empty());
        EntitySpec live = plain.toBuilder().tablePartitions(2).build();
        long failed = job(live, ReplayTarget.SHADOW, JobState.FAILED, Duration.ofDays(1), true);
        String st = live.table() + "_shadow_" + failed;
        // the parents own no storage: the size is their partitions'
        long partitions = (Long) JobsFixtures.query(ds, "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_inherits i "
                + "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ANY (ARRAY[?::regclass, ?::regclass])", st, st + "_events")
                .get(0).get(0);

        List<RetiredTables.Retired> listed = RetiredTables.list(ds, List.of(live));

        assertThat(listed).isEqualTo(List.of(new RetiredTables.Retired(failed, live.name(), "failed shadow", st, st + "_events", partitions,
                NOW.minus(Duration.ofDays(1)))));
        assertThat(partitions).isEqualTo(bytes(st + "_p0", st + "_p1") + bytes(st + "_events_p0", st + "_events_p1")).isPositive();
        assertThat(RetiredTables.drop(ds, List.of(live), failed, "ann")).contains(listed.get(0));
        assertThat(List.of(exists(st), exists(st + "_p0"), exists(st + "_events_p1"))).isEqualTo(List.of(false, false, false));
    }

    @Test
    void retentionDropsTablesOlderThanTheSettingAsSystemAndKeepsNewerOnes() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "retired_keep", Optional.empty());
        long old = job(live, ReplayTarget.SHADOW, JobState.SUCCEEDED, Duration.ofDays(8), true);
        long oldFailed = job(live, ReplayTarget.SHADOW, JobState.FAILED, Duration.ofDays(7).plusMinutes(1), true);
        long recent = job(live, ReplayTarget.SHADOW, JobState.SUCCEEDED, Duration.ofDays(6), true);
        List<RetiredTables.Retired> before = RetiredTables.list(ds, List.of(live));

        List<RetiredTables.Retired> dropped = RetiredTables.dropOlderThan(ds, List.of(live), Duration.ofDays(7), NOW);

        assertThat(dropped).isEqualTo(before.subList(0, 2));
        assertThat(dropped.stream().map(RetiredTables.Retired::job).toList()).isEqualTo(List.of(old, oldFailed));
        assertThat(RetiredTables.list(ds, List.of(live))).isEqualTo(before.subList(2, 3));
        assertThat(before.get(2).job()).isEqualTo(recent);
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target, detail->>'keep', detail->>'table' FROM dimstream.admin_audit "
                + "WHERE target IN (?, ?, ?) AND action <> 'replay.submit' ORDER BY id", "replay_job:" + old, "replay_job:" + oldFailed, "replay_job:" + recent))
                .isEqualTo(List.of(
                        List.of("system", "replay.drop-retired", "replay_job:" + old, "PT168H", live.table() + "_replaced_" + old),
                        List.of("system", "replay.drop-retired", "replay_job:" + oldFailed, "PT168H", live.table() + "_shadow_" + oldFailed)));
    }
}
