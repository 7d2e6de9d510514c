package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The replay gauges against jobs in a real PostgreSQL, advanced through ReplayJobs' worker side as
 * the worker does: every gauge of the served entities with its value, before and after a refresh.
 */
class ReplayMetersTest {

    private static final AtomicInteger N = new AtomicInteger();
    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    /** Every meter as "name{tag=value,...}" -> value. */
    private static Map<String, Double> values(SimpleMeterRegistry registry) {
        Map<String, Double> out = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            String tags = m.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue()).collect(Collectors.joining(","));
            out.put(m.getId().getName() + "{" + tags + "}", m.measure().iterator().next().getValue());
        }
        return out;
    }

    private void running(String entity, long total, long read, long rows, String owner) throws Exception {
        long id = jobs.submit(entity, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "ann");
        assertThat(jobs.claim(owner, List.of(entity), Duration.ofMinutes(5)).orElseThrow().id()).isEqualTo(id);
        Transactions.run(ds, c -> {
            ReplayJobs.start(c, id, List.of(new PartitionProgress(0, 0, total, 0)));
            ReplayJobs.advance(c, id, Map.of(0, read), 0, rows);
        });
    }

    private void finished(String entity, JobState state) throws Exception {
        long id = jobs.submit(entity, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "ann");
        jobs.claim("w-done", List.of(entity), Duration.ofMinutes(5)).orElseThrow();
        Transactions.run(ds, c -> ReplayJobs.finish(c, id, state, null, null));
    }

    @Test
    void gaugesReadJobsByStateAndTheRunningJobsProgressAndLagFromTheTable() throws Exception {
        int n = N.incrementAndGet();
        String a = "meters_a_" + n;
        String b = "meters_b_" + n;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ReplayMeters meters = new ReplayMeters(ds, List.of(a, b), registry);

        Map<String, Double> zero = expected(a, b, Map.of(), Map.of());
        assertThat(values(registry)).isEqualTo(zero);

        finished(a, JobState.SUCCEEDED);
        finished(a, JobState.SUCCEEDED);
        finished(a, JobState.FAILED);
        running(a, 100, 40, 7, "w1");
        running(a, 50, 50, 3, "w2");
        jobs.submit(a, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "ann");       // queued
        long cancelled = jobs.submit(b, "t", ReplaySource.earliest(), ReplayTarget.LIVE, "ann");
        jobs.requestCancel(cancelled, "ann");
        finished("meters_not_served_" + n, JobState.FAILED);
        assertThat(values(registry)).as("no query before the refresh").isEqualTo(zero);

        meters.refresh();

        assertThat(values(registry)).isEqualTo(expected(a, b,
                Map.of(a + "/succeeded", 2.0, a + "/failed", 1.0, a + "/running", 2.0, a + "/queued", 1.0, b + "/cancelled", 1.0),
                Map.of(a + "/events.read", 90.0, a + "/rows.changed", 10.0, a + "/lag", 60.0)));
    }

    private static Map<String, Double> expected(String a, String b, Map<String, Double> states, Map<String, Double> running) {
        Map<String, Double> out = new TreeMap<>();
        for (String e : List.of(a, b)) {
            for (JobState s : JobState.values()) {
                String state = s.name().toLowerCase(java.util.Locale.ROOT);
                out.put(ReplayMeters.JOBS + "{entity=" + e + ",state=" + state + "}", states.getOrDefault(e + "/" + state, 0.0));
            }
            for (String r : List.of("events.read", "rows.changed", "lag")) {
                out.put("dimstream.replay.running." + r + "{entity=" + e + "}", running.getOrDefault(e + "/" + r, 0.0));
            }
        }
        return out;
    }
}
