package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.dimstream.app.change.ChangeRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SinkIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    private static ChangeSink sink(String group, EntitySpec e, SinkMetrics metrics) {
        return new ChangeSink(SinkSettingsFromConfig.defaults().withGroupId(group), KAFKA.get().bootstrapServers(), List.of(e), DS, metrics)
                .start();
    }

    @Test
    void appliesNewChangeDeleteAndALateEventExactlyAndResumesWithoutReapplying() throws Exception {
        String name = "sinkit_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
        String group = "sinkit-main";
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (ChangeSink sink = sink(group, e, new SinkMetrics(registry))) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 10),
                    upsert(name, "2025-08-03T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 11),
                    upsert(name, "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 12),
                    upsert(name, "2025-08-05T08:00:00Z", "C3", "c@x.io", "Oslo", 7, 13),
                    // C1 and C2 hash to partition 2, C3 to 1, C6 to 0: every partition has records
                    upsert(name, "2025-08-07T12:00:00Z", "C6", "f@x.io", "Bergen", 1, 20))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                    Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-03T09:00:00Z", false, false, 10L),
                    Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-03T09:00:00Z", null, true, false, 11L),
                    Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", null, true, false, 12L),
                    Row.of("C3", "c@x.io", "Oslo", 7L, "2025-08-05T08:00:00Z", null, true, false, 13L),
                    Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-07T12:00:00Z", null, true, false, 20L)));

            // a second transaction: a late event inside C1's first version, C2 deleted, C3 type-1 only
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-02T09:00:00Z", "C1", "a@x.io", "Nice", 3, 14),
                    delete(name, "2025-08-04T00:00:00Z", "C2", 15),
                    upsert(name, "2025-08-06T08:00:00Z", "C3", "c@x.io", "Oslo", 8, 16))));
            List<Row> expected = List.of(
                    Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 10L),
                    Row.of("C1", "a@x.io", "Nice", 3L, "2025-08-02T09:00:00Z", "2025-08-03T09:00:00Z", false, false, 14L),
                    Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-03T09:00:00Z", null, true, false, 11L),
                    Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", "2025-08-04T00:00:00Z", false, false, 12L),
                    Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-04T00:00:00Z", null, false, true, 15L),
                    // a type-1 change updates the version in place; its lineage stays the event that started it
                    Row.of("C3", "c@x.io", "Oslo", 8L, "2025-08-05T08:00:00Z", null, true, false, 13L),
                    Row.of("C6", "f@x.io", "Bergen", 1L, "2025-08-07T12:00:00Z", null, true, false, 20L));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, e))
                    .containsExactlyElementsOf(expected));
            // the stored offsets reach the end offsets (past the last transaction marker): lag 0
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
                assertThat(lags(registry)).hasSize(3).allSatisfy(l -> assertThat(l).isZero());
            });
            assertThat(registry.get(SinkMetrics.ROWS_CHANGED).tag("entity", name).counter().count()).isPositive();
            assertThat(registry.get(SinkMetrics.REJECTS).tag("entity", name).counter().count()).isZero();
        }

        List<String> tableBefore = SinkFixtures.fullRows(DS, e);
        List<String> offsetsBefore = SinkFixtures.offsetRows(DS, group);
        SimpleMeterRegistry again = new SimpleMeterRegistry();
        try (ChangeSink restarted = sink(group, e, new SinkMetrics(again))) {
            // it owns all partitions and has fetched to their ends: lag known and 0
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(restarted.ownedPartitions()).hasSize(3);
                assertThat(lags(again)).hasSize(3).allSatisfy(l -> assertThat(l).isZero());
            });
            assertThat(again.find(SinkMetrics.BATCH_SIZE).summaries()).isEmpty();
        }
        // nothing re-applied: same rows, surrogate keys and load times; offsets not even rewritten
        assertThat(SinkFixtures.fullRows(DS, e)).isEqualTo(tableBefore);
        assertThat(SinkFixtures.offsetRows(DS, group)).isEqualTo(offsetsBefore);
    }

    /**
     * A backlog on three partitions, batches of 5: every round has several partitions due at once,
     * applied as groups on {@code parallelism} connections at once (1: one transaction per round),
     * with remainders carried into the next round. Whatever the parallelism, the table ends exact
     * and every partition's stored offset at its end; and no transaction carried more partitions
     * than a split into {@code parallelism} groups allows (each {@code sink_batches} row is written
     * by its batch's transaction, so its {@code xmin} names the transaction). That concurrent
     * groups overlap in time is not asserted (nothing here can observe it without timing).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void aBacklogOnSeveralPartitionsEndsExactWhateverTheParallelism(int parallelism) throws Exception {
        String name = "sinkit_backlog_" + parallelism;
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 3, (short) 1)));
        String[] days = {"2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", "2025-08-03T09:00:00Z"};
        String[] cities = {"Paris", "Lyon", "Nice"};
        List<ChangeRecord> changes = new ArrayList<>();
        List<Row> expected = new ArrayList<>();
        for (int k = 10; k < 22; k++) {
            for (int v = 0; v < 3; v++) {
                long offset = k * 10L + v;
                changes.add(upsert(name, days[v], "C" + k, "c" + k + "@x.io", cities[v], v, offset));
                expected.add(Row.of("C" + k, "c" + k + "@x.io", cities[v], (long) v, days[v], v < 2 ? days[v + 1] : null, v == 2, false, offset));
            }
        }
        // in time order per key, keys interleaved (C10 v0, C11 v0, ..., C10 v1, ...)
        changes.sort(Comparator.comparing(ChangeRecord::eventTime));
        SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(changes));

        String group = "sinkit-backlog-" + parallelism;
        SinkSettings settings = SinkSettingsFromConfig.defaults().withGroupId(group).withBatching(5, Duration.ofMillis(200))
                .withParallelism(parallelism);
        try (ChangeSink sink = new ChangeSink(settings, KAFKA.get().bootstrapServers(), List.of(e), DS, new SinkMetrics(new SimpleMeterRegistry()))
                .start()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).containsExactlyElementsOf(expected);
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
            });
        }
        int mostPerTransaction = (3 + parallelism - 1) / parallelism;
        assertThat(partitionsPerTransaction(group, topic)).isNotEmpty()
                .allSatisfy(partitions -> assertThat(partitions).hasSizeBetween(1, mostPerTransaction));
    }

    /** The partitions of each transaction that recorded sink batches of this group and topic. */
    private static Collection<Set<Integer>> partitionsPerTransaction(String group, String topic) throws Exception {
        Map<String, Set<Integer>> byTx = new TreeMap<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT xmin::text, partition FROM dimstream.sink_batches WHERE consumer_group = ? AND topic = ?")) {
            p.setString(1, group);
            p.setString(2, topic);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    byTx.computeIfAbsent(rs.getString(1), x -> new TreeSet<>()).add(rs.getInt(2));
                }
            }
        }
        return byTx.values();
    }

    @Test
    void prometheusScrapeShowsTheSinkMeters() throws Exception {
        String name = "sinkit_prom";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 1, (short) 1)));
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ChangeSink sink = sink("sinkit-prom", e, new SinkMetrics(prometheus))) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(List.of(
                    upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1))));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(prometheus.scrape())
                    .contains("dimstream_sink_lag_records{partition=\"0\",topic=\"" + topic + "\"} 0.0")
                    .contains("dimstream_rows_changed_total{entity=\"" + name + "\"} 1.0")
                    .contains("dimstream_sink_batch_size_records_count{entity=\"" + name + "\"}")
                    .contains("dimstream_sink_apply_seconds_count{entity=\"" + name + "\"}")
                    .contains("dimstream_sink_events_total{class=\"new\",entity=\"" + name + "\"} 1.0")
                    .contains("kafka_consumer_fetch_manager_records_consumed_total"));
        }
    }

    static List<Double> lags(io.micrometer.core.instrument.MeterRegistry registry) {
        Collection<Gauge> gauges = registry.find(SinkMetrics.LAG).gauges();
        return gauges.stream().map(Gauge::value).toList();
    }
}
