package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.cli.DimstreamCli;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Replay jobs through the real service: {@code dimstream run} in a child JVM is SIGKILLed in the
 * middle of a shadow rebuild; a second instance resumes the job once the dead one's lease expired,
 * with the range stored at the start, and swaps in a table equal to the one it replaces. Then
 * {@code dimstream replay --wait} queues a live replay of the whole topic, follows it to the end
 * (exit 0), and the table has not changed in any column of any row.
 */
class ServiceReplayRestartIT {

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    @Test
    void aShadowRebuildInterruptedBySigkillIsResumedByTheNextInstanceAndALiveReplayThroughTheCliChangesNothing(@TempDir Path dir)
            throws Exception {
        try (ServiceHarness h = ServiceHarness.start(dir, "replay_restart_it")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(31, 50, 3000);
            List<ExpectedRow> expected = h.expected(feed);
            String[] slowReplays = {"--replay-batch-size", "50", "--replay-pause", "PT0.05S", "--replay-lease", "PT3S",
                "--replay-poll", "PT0.2S"};
            Process a = h.startService("data-a", slowReplays);
            h.awaitRunning(a);
            h.produce(feed);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(h.rows()).isEqualTo(expected));
            var withKeys = EntityTableReader.withSurrogateKeys(ds, h.customer);

            long shadow = jobs.submit("customer", ServiceHarness.TOPIC, ReplaySource.earliest(), ReplayTarget.SHADOW, "ops");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> jobs.find(shadow).orElseThrow().eventsRead() > 600);
            ServiceHarness.kill(a);
            ReplayJob mid = jobs.find(shadow).orElseThrow();
            ServiceHarness.log("killed the service at " + mid.eventsRead() + "/" + mid.eventsTotal());
            assertThat(mid.state()).isEqualTo(JobState.RUNNING);
            assertThat(mid.eventsRead()).isLessThan(mid.eventsTotal());
            List<PartitionProgress> range = jobs.progress(shadow);

            Process b = h.startService("data-b", slowReplays);
            h.awaitRunning(b);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> jobs.find(shadow).orElseThrow().state().finished());
            ReplayJob done = jobs.find(shadow).orElseThrow();
            assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(List.of(done.eventsRead(), done.eventsTotal())).isEqualTo(List.of((long) feed.size(), (long) feed.size()));
            List<PartitionProgress> finished = new ArrayList<>();
            range.forEach(p -> finished.add(new PartitionProgress(p.partition(), p.startOffset(), p.endOffset(), p.endOffset())));
            assertThat(jobs.progress(shadow)).isEqualTo(finished);
            assertThat(EntityTableReader.withSurrogateKeys(ds, h.customer)).isEqualTo(withKeys);
            assertThat(h.rows()).isEqualTo(expected);

            // a live replay of the whole topic, queued and followed by the command line
            List<String> before = wholeRows(h.table);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new DimstreamCli());
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            int code = cli.execute("replay", "--config", h.configFile.toString(), "--entity", "customer", "--wait", "--user", "ops");
            assertThat(err.toString()).isEmpty();
            assertThat(code).isZero();
            List<String> lines = out.toString().lines().toList();
            assertThat(lines.get(lines.size() - 1)).matches("job \\d+ SUCCEEDED: 3,000/3,000 events \\(100%\\), 0 rows changed, "
                    + (feed.size() - countValid(h, feed)) + " rejected");
            assertThat(wholeRows(h.table)).isEqualTo(before);
        }
    }

    private static long countValid(ServiceHarness h, List<CustomerFeed.FeedRecord> feed) {
        io.dimstream.db.event.EventValidator v = new io.dimstream.db.event.EventValidator(h.customer);
        return feed.stream().filter(r -> {
            var p = io.dimstream.db.event.NativeEventJson.parse(r.valueText(), 0, null);
            return p.event() != null && v.validate(p.event()).ok();
        }).count();
    }

    private List<String> wholeRows(String table) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT to_jsonb(t)::text FROM " + table + " t ORDER BY customer_id, valid_from");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
