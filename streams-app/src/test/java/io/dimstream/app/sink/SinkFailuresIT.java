package io.dimstream.app.sink;

import io.dimstream.app.testing.FlakyDataSource;
import io.dimstream.app.service.SinkSettingsFromConfig;
import static io.dimstream.app.sink.SinkFixtures.raws;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.app.topology.TopicPlanner;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the sink does when something is wrong that no retry fixes, with a real broker and
 * PostgreSQL: a broken table, or one locked by another transaction, holds back only its own
 * partitions; a stored offset that left the
 * log stops the partition (default) or is skipped with the gap recorded; a thread killed by an
 * Error is reported.
 */
class SinkFailuresIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    private static SinkSettings settings(String group) {
        return SinkSettingsFromConfig.defaults().withGroupId(group).withBatching(100, Duration.ofMillis(50))
                .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).withStuckAfter(Duration.ofSeconds(2));
    }

    private static List<ChangeRecord> changes(String entity, String id, int n, long firstSourceOffset) {
        List<ChangeRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(upsert(entity, "2025-08-0" + (1 + i % 9) + "T09:00:00Z", id + i, id.toLowerCase() + i + "@x.io", "City", 1,
                    firstSourceOffset + i));
        }
        return out;
    }

    private static List<Row> rowsOf(List<ChangeRecord> changes) {
        return changes.stream().map(c -> Row.of((String) c.data().get("customer_id"), (String) c.data().get("email"), "City", 1L,
                        c.eventTime().toString(), null, true, false, c.sourceOffset()))
                .sorted(java.util.Comparator.comparing(Row::id)).toList();
    }

    @Test
    void aBrokenTableHoldsBackOnlyItsOwnPartitionsAndResumesOnceFixed() throws Exception {
        EntitySpec broken = SinkFixtures.customer("fail_broken", DS);
        EntitySpec fine = SinkFixtures.customer("fail_fine", DS);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, broken.name(), 1, (short) 1),
                TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, fine.name(), 1, (short) 1)));
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + broken.table() + " RENAME COLUMN city TO town");
        }
        List<ChangeRecord> a = changes(broken.name(), "A", 20, 0);
        List<ChangeRecord> b = changes(fine.name(), "B", 20, 0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(settings("fail-broken"), KAFKA.get().bootstrapServers(), List.of(broken, fine), DS,
                new SinkMetrics(registry)).start()) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, broken.name()), raws(a));
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, fine.name()), raws(b));

            // the other entity lands whole while the broken one fails; then the broken partition is stuck
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, fine))
                    .isEqualTo(rowsOf(b)));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                SinkStatus.Partition p = partition(sink.status(), broken.name());
                // the first statement to name the column: the one writing A's version starts into the memory
                // before its region (20 events of one key) is recomputed
                assertThat(p.failing()).hasValue("ERROR: column v.city does not exist (SQL state 42703)");
                assertThat(p.stuck()).isTrue();
                assertThat(p.buffered()).isEqualTo(20);
                assertThat(sink.status().healthy()).isFalse();
                assertThat(registry.get(SinkMetrics.STUCK).gauge().value()).isEqualTo(1.0);
            });
            assertThat(partition(sink.status(), fine.name()).failing()).isEmpty();
            assertThat(registry.get(SinkMetrics.FAILURES).tag("entity", broken.name()).tag("kind", "other").counter().count())
                    .isPositive();

            try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + broken.table() + " RENAME COLUMN town TO city");
            }
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, broken)).isEqualTo(rowsOf(a));
                assertThat(sink.status().healthy()).isTrue();
                assertThat(partition(sink.status(), broken.name()).failing()).isEmpty();
            });
            assertThat(SinkFixtures.storedOffsets(DS, "fail-broken", ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, broken.name())))
                    .isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, broken.name())));
        }
    }

    /**
     * A table held by another transaction (here {@code LOCK TABLE ... IN SHARE MODE}, as a replay's
     * writer lock, an ALTER TABLE or VACUUM FULL would) holds back only its own partitions: the other
     * entity's records produced while it is held land meanwhile. Before the sink's transactions had a
     * lock wait bound, the sink's wave waited on the held table and the other entity's second part
     * waited with it.
     */
    @Test
    void aTableLockedByAnotherTransactionHoldsBackOnlyItsOwnPartitions() throws Exception {
        EntitySpec locked = SinkFixtures.customer("fail_locked", DS);
        EntitySpec fine = SinkFixtures.customer("fail_unlocked", DS);
        String lockedTopic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, locked.name());
        String fineTopic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, fine.name());
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, locked.name(), 1, (short) 1),
                TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, fine.name(), 1, (short) 1)));
        List<ChangeRecord> a = changes(locked.name(), "A", 20, 0);
        List<ChangeRecord> b = changes(fine.name(), "B", 20, 0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(settings("fail-locked"), KAFKA.get().bootstrapServers(), List.of(locked, fine), DS,
                new SinkMetrics(registry)).start();
             Connection holder = DS.getConnection()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.status().partitions().size() == 2);
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE " + locked.table() + " IN SHARE MODE");
            }
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), lockedTopic, raws(a));
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), fineTopic, raws(b.subList(0, 10)));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(partition(sink.status(), locked.name()).failing())
                    .hasValue("ERROR: canceling statement due to lock timeout (SQL state 55P03)"));
            // the held table's batches keep waiting out their lock; the other entity's next records land meanwhile
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), fineTopic, raws(b.subList(10, 20)));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(SinkFixtures.rows(DS, fine)).isEqualTo(rowsOf(b)));
            assertThat(SinkFixtures.rows(DS, locked)).isEqualTo(List.of());
            assertThat(partition(sink.status(), fine.name()).failing()).isEmpty();
            assertThat(registry.get(SinkMetrics.FAILURES).tag("entity", locked.name()).tag("kind", "transient").counter().count())
                    .isPositive();

            holder.rollback();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, locked)).isEqualTo(rowsOf(a));
                assertThat(partition(sink.status(), locked.name()).failing()).isEmpty();
            });
            assertThat(SinkFixtures.storedOffsets(DS, "fail-locked", lockedTopic))
                    .isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), lockedTopic));
        }
    }

    @Test
    void aStoredOffsetThatLeftTheLogStopsThePartitionByDefault() throws Exception {
        EntitySpec e = SinkFixtures.customer("fail_gap_stop", DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name());
        List<ChangeRecord> first = changes(e.name(), "F", 5, 0);
        List<ChangeRecord> lost = changes(e.name(), "L", 5, 100);
        List<ChangeRecord> after = changes(e.name(), "Z", 5, 200);
        long[] logStart = gap(e, "fail-gap-stop", first, lost, after);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(settings("fail-gap-stop"), KAFKA.get().bootstrapServers(), List.of(e), DS,
                new SinkMetrics(registry)).start()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                SinkStatus.Partition p = partition(sink.status(), e.name());
                assertThat(p.stopped()).hasValue("stored offset " + logStart[0] + " is outside the partition's log (it starts at "
                        + logStart[1] + "): records were deleted by retention before the sink applied them, or the topic was recreated");
                assertThat(sink.status().healthy()).isFalse();
            });
            assertThat(registry.get(SinkMetrics.STOPPED).tag("entity", e.name()).counter().count()).isEqualTo(1.0);
            // nothing after the gap was applied, the stored offset did not move, no gap was recorded
            assertThat(SinkFixtures.rows(DS, e)).isEqualTo(rowsOf(first));
            assertThat(SinkFixtures.storedOffsets(DS, "fail-gap-stop", topic)).isEqualTo(Map.of(0, logStart[0]));
            assertThat(gaps("fail-gap-stop")).isEmpty();
        }
    }

    @Test
    void withSkipAStoredOffsetThatLeftTheLogIsSkippedAndTheGapRecorded() throws Exception {
        EntitySpec e = SinkFixtures.customer("fail_gap_skip", DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name());
        List<ChangeRecord> first = changes(e.name(), "F", 5, 0);
        List<ChangeRecord> lost = changes(e.name(), "L", 5, 100);
        List<ChangeRecord> after = changes(e.name(), "Z", 5, 200);
        long[] logStart = gap(e, "fail-gap-skip", first, lost, after);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(settings("fail-gap-skip").withOnOffsetOutOfRange(SinkSettings.OnOffsetOutOfRange.SKIP),
                KAFKA.get().bootstrapServers(), List.of(e), DS, new SinkMetrics(registry)).start()) {
            List<Row> expected = new ArrayList<>(rowsOf(first));
            expected.addAll(rowsOf(after));
            expected.sort(java.util.Comparator.comparing(Row::id));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).isEqualTo(expected);
                assertThat(SinkFixtures.storedOffsets(DS, "fail-gap-skip", topic))
                        .isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
            });
            assertThat(gaps("fail-gap-skip")).containsExactly(e.name() + "|" + topic + "|0|" + logStart[0] + "|" + logStart[1]);
            assertThat(registry.get(SinkMetrics.GAPS).tag("entity", e.name()).counter().count())
                    .isEqualTo((double) (logStart[1] - logStart[0]));
            assertThat(sink.status().healthy()).isTrue();
        }
    }

    @Test
    void aSinkThreadKilledByAnErrorIsReportedFailed() throws Exception {
        EntitySpec e = SinkFixtures.customer("fail_error", DS);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name(), 1, (short) 1)));
        FlakyDataSource flaky = new FlakyDataSource(DS);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(settings("fail-error"), KAFKA.get().bootstrapServers(), List.of(e), flaky,
                new SinkMetrics(registry)).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.status().partitions().size() == 1);
            flaky.dieWith(new OutOfMemoryError("test: Java heap space"));
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), raws(changes(e.name(), "E", 3, 0)));

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(sink.status().state()).isEqualTo(SinkStatus.State.FAILED);
                assertThat(sink.status().failure()).hasValue("java.lang.OutOfMemoryError: test: Java heap space");
                assertThat(sink.status().healthy()).isFalse();
            });
            assertThat(sink.failure()).containsInstanceOf(OutOfMemoryError.class);
            assertThat(registry.get(SinkMetrics.RUNNING).gauge().value()).isZero();
        }
    }

    /**
     * Applies {@code first} with a sink of the group, stops it, produces {@code lost} then
     * {@code after}, and deletes the records of {@code lost} from the log (as retention would).
     *
     * @return the stored offset (= the first lost offset) and the log's new start
     */
    private static long[] gap(EntitySpec e, String group, List<ChangeRecord> first, List<ChangeRecord> lost,
                              List<ChangeRecord> after) throws Exception {
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name());
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name(), 1, (short) 1)));
        try (ChangeSink sink = new ChangeSink(settings(group), KAFKA.get().bootstrapServers(), List.of(e), DS,
                new SinkMetrics(new SimpleMeterRegistry())).start()) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(first));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(SinkFixtures.storedOffsets(DS, group, topic))
                    .isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic)));
        }
        long stored = SinkFixtures.storedOffsets(DS, group, topic).get(0);
        SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(lost));
        long afterLost = SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic).get(0);
        SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, raws(after));
        try (org.apache.kafka.clients.admin.Admin admin = KAFKA.get().admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(afterLost))).all().get();
        }
        return new long[] {stored, afterLost};
    }

    private static SinkStatus.Partition partition(SinkStatus s, String entity) {
        Optional<SinkStatus.Partition> p = s.partitions().stream().filter(x -> x.entity().equals(entity)).findFirst();
        assertThat(p).as("partition of " + entity + " in " + s).isPresent();
        return p.get();
    }

    /** entity|topic|partition|from|to of a group's gaps. */
    private static List<String> gaps(String group) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT entity, topic, partition, from_offset, "
                + "to_offset FROM dimstream.sink_gaps WHERE consumer_group = ? ORDER BY id")) {
            p.setString(1, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getInt(3) + "|" + rs.getLong(4) + "|" + rs.getLong(5));
                }
            }
        }
        return out;
    }
}
