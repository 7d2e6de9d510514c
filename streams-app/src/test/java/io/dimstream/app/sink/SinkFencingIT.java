package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.topology.TopicPlanner;
import static io.dimstream.app.sink.SinkFixtures.raws;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two sink instances in one group share the partitions; when one leaves, the other takes over. */
class SinkFencingIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    private static String id(int k) {
        return String.format("K%02d", k);
    }

    /** Key k's version {@code v} (1-based): email and city tell which it is. */
    private static ChangeRecord version(String entity, int k, int v) {
        return upsert(entity, "2025-08-0" + v + "T10:00:00Z", id(k), "k" + k + "@x.io", "city" + v, v, k * 10L + v);
    }

    private static List<Row> expected(int keys, int versions) {
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            for (int v = 1; v <= versions; v++) {
                boolean last = v == versions;
                rows.add(Row.of(id(k), "k" + k + "@x.io", "city" + v, (long) v, "2025-08-0" + v + "T10:00:00Z",
                        last ? null : "2025-08-0" + (v + 1) + "T10:00:00Z", last, false, k * 10L + v));
            }
        }
        return rows;
    }

    @Test
    void twoInstancesShareThePartitionsAndTheSurvivorTakesOverWithoutLossOrDoubles() throws Exception {
        String name = "fencing_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
        String group = "fencing";
        SinkSettings settings = SinkSettingsFromConfig.defaults().withGroupId(group).withBatching(7, Duration.ofMillis(50));
        int keys = 30;

        ChangeSink a = new ChangeSink(settings, KAFKA.get().bootstrapServers(), List.of(e), DS, new SinkMetrics(new SimpleMeterRegistry()))
                .start();
        ChangeSink b = new ChangeSink(settings, KAFKA.get().bootstrapServers(), List.of(e), DS, new SinkMetrics(new SimpleMeterRegistry()))
                .start();
        try {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(a.ownedPartitions()).isNotEmpty();
                assertThat(b.ownedPartitions()).isNotEmpty();
                Set<TopicPartition> all = new HashSet<>(a.ownedPartitions());
                all.addAll(b.ownedPartitions());
                assertThat(all).hasSize(3);
            });
            List<ChangeRecord> first = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                first.add(version(name, k, 1));
                first.add(version(name, k, 2));
            }
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(first));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(SinkFixtures.rows(DS, e)).containsExactlyElementsOf(expected(keys, 2)));

            a.close();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(b.ownedPartitions()).containsExactlyInAnyOrder(
                    new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2)));
            List<ChangeRecord> second = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                second.add(version(name, k, 3));
            }
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(second));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).containsExactlyElementsOf(expected(keys, 3));
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
            });
            assertThat(a.failure()).isEmpty();
            assertThat(b.failure()).isEmpty();
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void aSinkWhoseOffsetAnotherInstanceAdvancedRollsBackAndResumesAtTheStoredOffset() throws Exception {
        String name = "fenced_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 1, (short) 1)));
        String group = "fenced";
        try (ChangeSink sink = new ChangeSink(SinkSettingsFromConfig.defaults().withGroupId(group), KAFKA.get().bootstrapServers(), List.of(e), DS,
                new SinkMetrics(new SimpleMeterRegistry())).start()) {
            // offsets 0 and 1, the commit marker at 2
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                    upsert(name, "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 2))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(java.util.Map.of(0, 3L)));

            // another instance of the group (played here by hand) applied offsets 3 and 4
            try (var c = DS.getConnection(); var p = c.prepareStatement(
                    "UPDATE dimstream.sink_offsets SET next_offset = 5 WHERE consumer_group = ? AND topic = ?")) {
                p.setString(1, group);
                p.setString(2, topic);
                assertThat(p.executeUpdate()).isOne();
            }
            // offsets 3, 4, 5, marker at 6: this sink's batch from 3 is fenced; it re-reads from 5
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 3),
                    upsert(name, "2025-08-02T10:00:00Z", "C2", "b@x.io", "Pisa", 2, 4),
                    upsert(name, "2025-08-03T09:00:00Z", "C1", "a@x.io", "Nice", 3, 5))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                        Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-03T09:00:00Z", false, false, 1L),
                        Row.of("C1", "a@x.io", "Nice", 3L, "2025-08-03T09:00:00Z", null, true, false, 5L),
                        Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", null, true, false, 2L));
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(java.util.Map.of(0, 7L));
            });
            assertThat(sink.failure()).isEmpty();
        }
    }
}
