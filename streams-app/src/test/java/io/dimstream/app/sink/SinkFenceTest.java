package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.TestChanges;
import io.dimstream.app.change.ChangeTopics;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The batch transaction's fence on the stored offset, without a broker: real PostgreSQL only. */
class SinkFenceTest {

    private static final DataSource DS = TestPostgres.dataSource();

    private static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long firstOffset, ChangeRecord... changes) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        long o = firstOffset;
        for (ChangeRecord c : changes) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o++,
                    ChangeCodec.key(List.of(String.valueOf(c.data().get("customer_id")))), TestChanges.encode(c)));
        }
        return out;
    }

    private static void storeOffset(String group, TopicPartition tp, long next) throws Exception {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.sink_offsets (consumer_group, topic, partition, next_offset) VALUES (?, ?, ?, ?)")) {
            p.setString(1, group);
            p.setString(2, tp.topic());
            p.setInt(3, tp.partition());
            p.setLong(4, next);
            p.executeUpdate();
        }
    }

    @Test
    void aBatchWithAStaleExpectedOffsetCommitsNoRowsAndLeavesTheOffset() throws Exception {
        EntitySpec e = SinkFixtures.customer("fence_stale", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        String group = "fence-stale";
        // another instance has applied up to offset 7 meanwhile; this one still expects 5
        storeOffset(group, tp, 7);
        SinkTransaction tx = SinkFixtures.tx(group, e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.of(5), records(tp, 5,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                upsert(e.name(), "2025-08-02T09:00:00Z", "C2", "b@x.io", "Rome", 1, 2)), 7);

        assertThat(out).isEqualTo(new SinkTransaction.Fenced(tp, OptionalLong.of(7)));
        assertThat(SinkFixtures.rows(DS, e)).isEmpty();
        assertThat(SinkFixtures.storedOffsets(DS, group, tp.topic())).isEqualTo(Map.of(0, 7L));
    }

    @Test
    void aFirstBatchIsFencedWhenAnotherInstanceStoredAnOffsetFirst() throws Exception {
        EntitySpec e = SinkFixtures.customer("fence_first", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 2);
        String group = "fence-first";
        storeOffset(group, tp, 3);
        SinkTransaction tx = SinkFixtures.tx(group, e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)), 1);

        assertThat(out).isEqualTo(new SinkTransaction.Fenced(tp, OptionalLong.of(3)));
        assertThat(SinkFixtures.rows(DS, e)).isEmpty();
        assertThat(SinkFixtures.storedOffsets(DS, group, tp.topic())).isEqualTo(Map.of(2, 3L));
    }

    @Test
    void aBatchWithTheStoredOffsetCommitsItsRowsAndAdvancesTheOffset() throws Exception {
        EntitySpec e = SinkFixtures.customer("fence_ok", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 1);
        String group = "fence-ok";
        SinkTransaction tx = SinkFixtures.tx(group, e);

        SinkTransaction.GroupOutcome first = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)), 2);
        SinkTransaction.GroupOutcome second = SinkFixtures.applyOne(tx, tp, e, OptionalLong.of(2), records(tp, 2,
                upsert(e.name(), "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 2)), 4);

        assertThat(first).isInstanceOf(SinkTransaction.Committed.class);
        assertThat(second).isInstanceOf(SinkTransaction.Committed.class);
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 1L),
                Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 2L));
        assertThat(SinkFixtures.storedOffsets(DS, group, tp.topic())).isEqualTo(Map.of(1, 4L));
    }

    @Test
    void aMergedBatchOfTwoPartitionsCommitsBothOrNeither() throws Exception {
        EntitySpec e = SinkFixtures.customer("fence_merged", DS);
        TopicPartition p0 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        TopicPartition p1 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 1);
        String group = "fence-merged";
        SinkTransaction tx = SinkFixtures.tx(group, e);

        SinkTransaction.GroupOutcome first = tx.apply(e, List.of(
                new SinkTransaction.PartitionBatch(p1, OptionalLong.empty(), records(p1, 0,
                        upsert(e.name(), "2025-08-01T09:00:00Z", "C2", "b@x.io", "Rome", 1, 1)), 1, 0L, 0),
                new SinkTransaction.PartitionBatch(p0, OptionalLong.empty(), records(p0, 0,
                        upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                        upsert(e.name(), "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 2)), 2, 0L, 0)));
        // then p1 is fenced (another instance moved it to 5): p0's part is rolled back too
        storeOffsetAdvance(group, p1, 5);
        SinkTransaction.GroupOutcome fenced = tx.apply(e, List.of(
                new SinkTransaction.PartitionBatch(p0, OptionalLong.of(2), records(p0, 2,
                        upsert(e.name(), "2025-08-03T09:00:00Z", "C1", "a@x.io", "Nice", 3, 3)), 3, 0L, 0),
                new SinkTransaction.PartitionBatch(p1, OptionalLong.of(1), records(p1, 1,
                        upsert(e.name(), "2025-08-03T09:00:00Z", "C2", "b@x.io", "Milan", 2, 2)), 2, 0L, 0)));

        assertThat(first).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> {
            assertThat(c.rejects()).isZero();
            assertThat(c.result().rowsInserted()).isEqualTo(3);
        });
        assertThat(fenced).isEqualTo(new SinkTransaction.Fenced(p1, OptionalLong.of(5)));
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 1L),
                Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 2L),
                Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T09:00:00Z", null, true, false, 1L));
        assertThat(SinkFixtures.storedOffsets(DS, group, p0.topic())).isEqualTo(Map.of(0, 2L, 1, 5L));
    }

    private static void storeOffsetAdvance(String group, TopicPartition tp, long next) throws Exception {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "UPDATE dimstream.sink_offsets SET next_offset = ? WHERE consumer_group = ? AND topic = ? AND partition = ?")) {
            p.setLong(1, next);
            p.setString(2, group);
            p.setString(3, tp.topic());
            p.setInt(4, tp.partition());
            assertThat(p.executeUpdate()).isEqualTo(1);
        }
    }
}
