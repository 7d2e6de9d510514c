package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.testing.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /health/ready} and {@code /health/live} of {@code dimstream run} in a child JVM: ready
 * while events flow; not ready (but live) while a partition is stuck on a table broken by hand,
 * with the SQL state in the detail, and ready again once the table is fixed; not live once the
 * sink's thread died (here: another member took its static identity, which Kafka answers with a
 * fatal FencedInstanceIdException), and then the process exits with status 70 for its restart policy.
 */
class ServiceHealthIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @SuppressWarnings("unchecked")
    private static Map<String, Object> checks(Map.Entry<Integer, String> response) throws Exception {
        return (Map<String, Object>) JSON.readValue(response.getValue(), Map.class).get("checks");
    }

    @Test
    void readinessFollowsAStuckPartitionAndLivenessADeadSinkThread(@TempDir Path dir) throws Exception {
        try (ServiceHarness h = ServiceHarness.start(dir, "health_it", "sink:\n  stuck-after: PT3S\n")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(11, 30, 300);
            int port = ServiceHarness.freePort();
            Process service = h.startService("data", port, "--instance-id", "health-it");
            h.awaitRunning(service);
            h.produce(feed.subList(0, 200));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(h.rows()).isEqualTo(h.expected(feed.subList(0, 200))));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Map.Entry<Integer, String> ready = ServiceHarness.get(port, "/health/ready");
                assertThat(ready.getKey()).isEqualTo(200);
                Map<String, Object> c = checks(ready);
                assertThat(c.keySet()).containsExactly("sink", "streams", "postgres", "kafka");
                assertThat(c.get("sink")).isEqualTo(Map.of("status", "UP", "detail", "3 partitions"));
                assertThat(c.get("streams")).isEqualTo(Map.of("status", "UP", "detail", "RUNNING"));
                assertThat(c.get("kafka")).isEqualTo(Map.of("status", "UP", "detail", "1 broker"));
                assertThat(((Map<?, ?>) c.get("postgres")).get("status")).isEqualTo("UP");
            });

            ServiceHarness.log("breaking the table by hand");
            try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + h.table + " RENAME COLUMN city TO town");
            }
            h.produce(feed.subList(200, 300));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Map.Entry<Integer, String> ready = ServiceHarness.get(port, "/health/ready");
                assertThat(ready.getKey()).isEqualTo(503);
                Map<?, ?> sink = (Map<?, ?>) checks(ready).get("sink");
                assertThat(sink.get("status")).isEqualTo("DOWN");
                // the first statement of the batch that names the column says so: the fast path's insert
                // ("of relation ...") or, for a batch of keys with several events, the region's select (v.city)
                assertThat((String) sink.get("detail")).matches("(" + h.applicationId + "\\.customer\\.changes-\\d stuck for \\d+ s with \\d+ records left: "
                        + "ERROR: column (\"city\" of relation \"" + h.table + "\"|v\\.city) does not exist \\(SQL state 42703\\)(; )?)+");
            });
            assertThat(ServiceHarness.get(port, "/health/live").getKey()).isEqualTo(200);

            ServiceHarness.log("fixing the table");
            try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + h.table + " RENAME COLUMN town TO city");
            }
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(h.rows()).isEqualTo(h.expected(feed));
                assertThat(ServiceHarness.get(port, "/health/ready").getKey()).isEqualTo(200);
            });

            ServiceHarness.log("another member takes the sink's static identity");
            try (KafkaConsumer<byte[], byte[]> thief = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, h.kafka.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, h.applicationId + "-sink",
                    ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "health-it-sink",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                thief.subscribe(List.of(h.applicationId + ".customer.changes"));
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    thief.poll(Duration.ofMillis(100));
                    Map.Entry<Integer, String> live = ServiceHarness.get(port, "/health/live");
                    assertThat(live.getKey()).isEqualTo(503);
                    assertThat(checks(live).get("sink")).isEqualTo(Map.of("status", "DOWN", "detail",
                            "the sink's thread died: org.apache.kafka.common.errors.FencedInstanceIdException: "
                                    + "The broker rejected this static consumer since another consumer with the same group.instance.id"
                                    + " has registered with a different member.id."));
                });
            }
            // not live stays not live: the process exits for its restart policy to start it again
            assertThat(service.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(service.exitValue()).isEqualTo(70);
        }
    }
}
