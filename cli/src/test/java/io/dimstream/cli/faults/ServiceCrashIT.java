package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.write.ExpectedRow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream run} in a child JVM, killed with SIGKILL several times while a generated feed
 * flows (mid-batch, while catching up, while starting) and restarted each time on the same data
 * directory and application id: the table ends equal, row by row, to the reference model of
 * every valid event: no version lost, none doubled (DESIGN sections 2 and 5, "kill mid-batch").
 */
class ServiceCrashIT {

    @Test
    void killedWithSigkillAndRestartedTheServiceEndsWithTheReferenceModelsTable(@TempDir Path dir) throws Exception {
        try (ServiceHarness h = ServiceHarness.start(dir, "crash_it")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(7, 60, 2400);
            List<ExpectedRow> expected = h.expected(feed);
            List<List<CustomerFeed.FeedRecord>> chunks = List.of(feed.subList(0, 400), feed.subList(400, 800),
                    feed.subList(800, 1200), feed.subList(1200, 1600), feed.subList(1600, 2000), feed.subList(2000, 2400));

            // 1: killed once the first rows are in, while the first two chunks are still flowing
            Process service = h.startService("data");
            h.produce(chunks.get(0));
            h.produce(chunks.get(1));
            int seen = killAfterMoreRows(h, service, 0);

            // 2: restarted, killed once it has written more, while a third chunk flows
            h.removeDeadMembers();
            service = h.startService("data");
            h.produce(chunks.get(2));
            seen = killAfterMoreRows(h, service, seen);

            // 3: again, with two more chunks
            h.removeDeadMembers();
            service = h.startService("data");
            h.produce(chunks.get(3));
            h.produce(chunks.get(4));
            seen = killAfterMoreRows(h, service, seen);

            // 4: killed just after it started, while it joins the groups, before it could have caught up
            h.removeDeadMembers();
            service = h.startService("data");
            h.produce(chunks.get(5));
            h.awaitRunning(service);
            ServiceHarness.kill(service);

            h.removeDeadMembers();
            Process last = h.startService("data");
            ServiceHarness.log("awaiting the reference model's table");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(last.isAlive()).as("the service is running").isTrue();
                assertThat(h.rows()).isEqualTo(expected);
            });
            ServiceHarness.log("the table equals the reference model's");
        }
    }

    /**
     * Waits until the table has more than {@code before} rows, then kills the service; returns the
     * row count once it is dead (what the next restart must add to).
     */
    private static int killAfterMoreRows(ServiceHarness h, Process service, int before) throws Exception {
        int[] now = {0};
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            assertThat(service.isAlive()).as("the service is running").isTrue();
            now[0] = h.rows().size();
            return now[0] > before;
        });
        ServiceHarness.kill(service);
        return h.rows().size();
    }
}
