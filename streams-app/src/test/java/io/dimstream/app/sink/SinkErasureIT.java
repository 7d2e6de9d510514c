package io.dimstream.app.sink;

import static io.dimstream.app.sink.SinkFixtures.raws;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.topology.TopicPlanner;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.erase.Erasure;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A key erased while the streaming sink runs stays erased: its change records delivered again (a
 * replay of the topic, a re-delivery) are dropped by its tombstone and counted in
 * {@code dimstream.events.erased}, while the other keys' changes go on landing.
 */
class SinkErasureIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    @Test
    void aKeyErasedWhileTheSinkRunsIsNotBroughtBackByItsChangesDeliveredAgain() throws Exception {
        String name = "sink_erase_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<ChangeRecord> c1 = List.of(
                upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 10),
                upsert(name, "2025-08-03T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 11));

        try (ChangeSink sink = new ChangeSink(SinkSettingsFromConfig.defaults().withGroupId("sink-erase"), KAFKA.get().bootstrapServers(),
                List.of(e), DS, new SinkMetrics(registry)).start()) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(c1.get(0), c1.get(1),
                    upsert(name, "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 12))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, e)).hasSize(3));

            new Erasure(DS).erase(e, List.of(List.of("C1")), true, "dpo");
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(c1.get(0), c1.get(1),
                    upsert(name, "2025-08-04T10:00:00Z", "C2", "b@x.io", "Oslo", 2, 13))));

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                    Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", "2025-08-04T10:00:00Z", false, false, 12L),
                    Row.of("C2", "b@x.io", "Oslo", 2L, "2025-08-04T10:00:00Z", null, true, false, 13L)));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(registry.get(SinkMetrics.ERASED).tag("entity", name).counter().count()).isEqualTo(2.0));
        }
    }
}
