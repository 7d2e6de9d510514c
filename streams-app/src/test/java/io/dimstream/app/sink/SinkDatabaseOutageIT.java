package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.testing.FlakyDataSource;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.topology.TopicPlanner;
import static io.dimstream.app.sink.SinkFixtures.delete;
import static io.dimstream.app.sink.SinkFixtures.raws;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PostgreSQL refusing connections, then losing a commit: the sink waits, retries and applies everything once. */
class SinkDatabaseOutageIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    @Test
    void recordsProducedWhilePostgresIsDownAreAppliedOnceItIsBack() throws Exception {
        String name = "outage_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
        String group = "outage";
        FlakyDataSource flaky = new FlakyDataSource(DS);
        // down from the start: even the stored offsets cannot be read at assignment
        flaky.failNextConnections(6);
        SinkSettings settings = SinkSettingsFromConfig.defaults().withGroupId(group).withBackoff(Duration.ofMillis(50), Duration.ofMillis(400));

        try (ChangeSink sink = new ChangeSink(settings, KAFKA.get().bootstrapServers(), List.of(e), flaky,
                new SinkMetrics(new SimpleMeterRegistry())).start()) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                    upsert(name, "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 2),
                    upsert(name, "2025-08-01T11:00:00Z", "C6", "f@x.io", "Bergen", 1, 3),
                    // C1 and C2 hash to partition 2, C3 to 1, C6 to 0
                    upsert(name, "2025-08-01T12:00:00Z", "C3", "c@x.io", "Riga", 1, 7))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(flaky.pendingFailures()).isZero();
                assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                        Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", null, true, false, 1L),
                        Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", null, true, false, 2L),
                        Row.of("C3", "c@x.io", "Riga", 1L, "2025-08-01T12:00:00Z", null, true, false, 7L),
                        Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-01T11:00:00Z", null, true, false, 3L));
            });

            // down again while running: connections refused, then a batch whose commit is lost
            flaky.failNextConnections(4);
            flaky.failNextCommits(2);
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 4),
                    delete(name, "2025-08-03T09:00:00Z", "C2", 5),
                    upsert(name, "2025-08-02T11:00:00Z", "C6", "f@x.io", "Oslo", 2, 6))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(flaky.pendingFailures()).isZero();
                assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                        Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 1L),
                        Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 4L),
                        Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", "2025-08-03T09:00:00Z", false, false, 2L),
                        Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-03T09:00:00Z", null, false, true, 5L),
                        Row.of("C3", "c@x.io", "Riga", 1L, "2025-08-01T12:00:00Z", null, true, false, 7L),
                        Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-01T11:00:00Z", "2025-08-02T11:00:00Z", false, false, 3L),
                        Row.of("C6", "f@x.io", "Oslo", 2L, "2025-08-02T11:00:00Z", null, true, false, 6L));
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
            });
            assertThat(flaky.refused()).isEqualTo(12);
            assertThat(sink.failure()).isEmpty();
        }
    }
}
