package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.topology.TopicPlanner;
import static io.dimstream.app.sink.SinkFixtures.delete;
import static io.dimstream.app.sink.SinkFixtures.raws;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker restarts under a running sink: it reconnects by itself, nothing lost, nothing doubled. */
class SinkBrokerRestartIT {

    private static final DataSource DS = TestPostgres.dataSource();

    @TempDir
    Path kafkaDir;

    @Test
    void aRunningSinkSurvivesABrokerRestartWithoutLossOrDoubles() throws Exception {
        String name = "restart_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        String group = "broker-restart";
        EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir);
        String bootstrap = kafka.bootstrapServers();
        try (ChangeSink sink = new ChangeSink(SinkSettingsFromConfig.defaults().withGroupId(group), bootstrap, List.of(e), DS,
                new SinkMetrics(new SimpleMeterRegistry())).start()) {
            kafka.createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
            SinkFixtures.produce(bootstrap, topic, raws(List.of(
                    upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                    upsert(name, "2025-08-01T10:00:00Z", "C3", "c@x.io", "Riga", 1, 2),
                    upsert(name, "2025-08-01T11:00:00Z", "C6", "f@x.io", "Bergen", 1, 3))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                    Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", null, true, false, 1L),
                    Row.of("C3", "c@x.io", "Riga", 1L, "2025-08-01T10:00:00Z", null, true, false, 2L),
                    Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-01T11:00:00Z", null, true, false, 3L)));

            kafka.stop();
            kafka = EmbeddedKafka.start(kafkaDir);
            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);

            SinkFixtures.produce(bootstrap, topic, raws(List.of(
                    upsert(name, "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 4),
                    delete(name, "2025-08-02T10:00:00Z", "C3", 5),
                    upsert(name, "2025-08-02T11:00:00Z", "C6", "f@x.io", "Oslo", 2, 6))));
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                        Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 1L),
                        Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 4L),
                        Row.of("C3", "c@x.io", "Riga", 1L, "2025-08-01T10:00:00Z", "2025-08-02T10:00:00Z", false, false, 2L),
                        Row.of("C3", "c@x.io", "Riga", 1L, "2025-08-02T10:00:00Z", null, false, true, 5L),
                        Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-01T11:00:00Z", "2025-08-02T11:00:00Z", false, false, 3L),
                        Row.of("C6", "f@x.io", "Oslo", 2L, "2025-08-02T11:00:00Z", null, true, false, 6L));
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(bootstrap, topic));
            });
            assertThat(sink.failure()).isEmpty();
        } finally {
            kafka.close();
        }
    }
}
