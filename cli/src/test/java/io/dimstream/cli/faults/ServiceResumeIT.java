package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How fast a restarted {@code dimstream run} resumes, with the default static membership (the
 * instance id derives from the host and the data directory): after SIGKILL and after SIGTERM, the
 * time from the stop to the restarted instance's first rows, with records produced while it was
 * down. Printed as figures (README, Operations), not asserted: the machine is shared. What is
 * asserted is the table, equal to the reference model's after both restarts. With
 * {@code -Ddimstream.faults.dynamic=true} the same runs use dynamic membership
 * ({@code --instance-id none}), for comparison: the killed member then holds its partitions until
 * its session times out (45 s).
 */
class ServiceResumeIT {

    @Test
    void aRestartedInstanceResumesWithinSecondsAfterSigkillAndSigterm(@TempDir Path dir) throws Exception {
        boolean dynamic = Boolean.getBoolean("dimstream.faults.dynamic");
        String[] membership = dynamic ? new String[] {"--instance-id", "none"} : new String[0];
        try (ServiceHarness h = ServiceHarness.start(dir, "resume_it")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(5, 40, 600);
            Process service = h.startService("data", membership);
            h.produce(feed.subList(0, 200));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(h.rows()).isEqualTo(h.expected(feed.subList(0, 200))));

            long killed = System.nanoTime();
            ServiceHarness.kill(service);
            service = h.startService("data", membership);
            h.produce(feed.subList(200, 400));
            double afterKill = resumed(h, feed.subList(0, 400), killed, service);

            long stopping = System.nanoTime();
            ServiceHarness.log("SIGTERM to the service, pid " + service.pid());
            service.destroy();
            assertThat(service.waitFor(120, TimeUnit.SECONDS)).as("stopped within 2 minutes of SIGTERM").isTrue();
            double stopTook = (System.nanoTime() - stopping) / 1e9;
            long stopped = System.nanoTime();
            service = h.startService("data", membership);
            h.produce(feed.subList(400, 600));
            double afterTerm = resumed(h, feed, stopped, service);

            ServiceHarness.log(String.format(java.util.Locale.ROOT, "RESUME (%s membership): SIGKILL -> rows of the restarted instance in"
                    + " %.1f s; SIGTERM: stopped in %.1f s, then rows of the restarted instance in %.1f s",
                    dynamic ? "dynamic" : "static", afterKill, stopTook, afterTerm));
        }
    }

    /** Waits until the table equals the reference model of {@code upTo}; returns the seconds since {@code from}. */
    private static double resumed(ServiceHarness h, List<CustomerFeed.FeedRecord> upTo, long from, Process service) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(service.isAlive()).as("the service is running").isTrue();
            assertThat(h.rows()).isEqualTo(h.expected(upTo));
        });
        return (System.nanoTime() - from) / 1e9;
    }
}
