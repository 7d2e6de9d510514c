package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.TestChanges;
import static io.dimstream.app.sink.SinkFixtures.delete;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The batch transaction records its figures in dimstream.sink_batches, with the batch, and keeps the table bounded. */
class SinkBatchRecordTest {

    private static final DataSource DS = TestPostgres.dataSource();

    /** The columns a test can know (not id, finished_at, apply_ms). */
    record BatchRow(String group, String entity, String topic, int partition, long firstOffset, long nextOffset, int events,
                    int newKeys, int changed, int deleted, int unchanged, int late, int duplicates, int quarantined, int rejected,
                    int rowsInserted, int rowsUpdated, int rowsDeleted, Long lag) {
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long firstOffset, ChangeRecord... changes) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        long o = firstOffset;
        for (ChangeRecord c : changes) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o++,
                    ChangeCodec.key(List.of(String.valueOf(c.data().get("customer_id")))), TestChanges.encode(c)));
        }
        return out;
    }

    private static List<BatchRow> rows(String entity) throws Exception {
        List<BatchRow> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT consumer_group, entity, topic, partition, first_offset, next_offset, events, new_keys, changed, deleted, "
                        + "unchanged, late, duplicates, quarantined, rejected, rows_inserted, rows_updated, rows_deleted, lag "
                        + "FROM dimstream.sink_batches WHERE entity = ? ORDER BY id")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long lag = rs.getLong(19);
                    Long lagOrNull = rs.wasNull() ? null : lag;
                    out.add(new BatchRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getLong(5),
                            rs.getLong(6), rs.getInt(7), rs.getInt(8), rs.getInt(9), rs.getInt(10), rs.getInt(11), rs.getInt(12),
                            rs.getInt(13), rs.getInt(14), rs.getInt(15), rs.getInt(16), rs.getInt(17), rs.getInt(18),
                            lagOrNull));
                }
            }
        }
        return out;
    }

    @Test
    void aCommittedBatchRecordsOneRowWithItsEventsByClassAndLag() throws Exception {
        EntitySpec e = SinkFixtures.customer("batches_ok", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        SinkTransaction tx = SinkFixtures.tx("batches-ok", e);

        SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                upsert(e.name(), "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 2),
                upsert(e.name(), "2025-08-02T09:00:00Z", "C2", "b@x.io", "Rome", 1, 3)), 3, 0, 7L);
        List<ConsumerRecord<byte[], byte[]>> second = records(tp, 3,
                delete(e.name(), "2025-08-03T09:00:00Z", "C2", 4),
                upsert(e.name(), "2025-08-03T09:00:00Z", "C1", "a@x.io", "Lyon", 3, 5));
        second.add(new ConsumerRecord<>(tp.topic(), tp.partition(), 5, null, "not a change record".getBytes()));
        SinkFixtures.applyOne(tx, tp, e, OptionalLong.of(3), second, 6, 0, null);

        assertThat(rows(e.name())).containsExactly(
                // C1 new then changed (two events of one key in one batch), C2 new: 3 rows inserted, none updated
                // (the late/multi path writes C1's first version closed directly)
                new BatchRow("batches-ok", e.name(), tp.topic(), 0, 0, 3, 3, 2, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 7L),
                // C2 deleted (close + deleted row), C1 type-1 only (updated in place), one undecodable record
                new BatchRow("batches-ok", e.name(), tp.topic(), 0, 3, 6, 3, 0, 0, 1, 1, 0, 0, 0, 1, 1, 2, 0, null));
    }

    @Test
    void theDueBatchesOfSeveralPartitionsGoInOneTransactionAndOneFencedPartitionRollsThemAllBack() throws Exception {
        EntitySpec e = SinkFixtures.customer("batches_merged", DS);
        TopicPartition p0 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        TopicPartition p1 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 1);
        SinkTransaction tx = SinkFixtures.tx("batches-merged", e);

        SinkTransaction.GroupOutcome done = tx.apply(e, List.of(
                new SinkTransaction.PartitionBatch(p1, OptionalLong.empty(), records(p1, 0,
                        upsert(e.name(), "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 11)), 1, 0L, 0),
                new SinkTransaction.PartitionBatch(p0, OptionalLong.empty(), records(p0, 0,
                        upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 10),
                        upsert(e.name(), "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 12)), 2, 5L, 0)));

        assertThat(done).isInstanceOf(SinkTransaction.Committed.class);
        assertThat(SinkFixtures.storedOffsets(DS, "batches-merged", p0.topic())).isEqualTo(java.util.Map.of(0, 2L, 1, 1L));
        // one writer call for both partitions: its class counts on the first partition's row, events and lag on each
        assertThat(rows(e.name())).containsExactly(
                new BatchRow("batches-merged", e.name(), p0.topic(), 0, 0, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 5L),
                new BatchRow("batches-merged", e.name(), p1.topic(), 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0L));
        List<SinkFixtures.Row> applied = SinkFixtures.rows(DS, e);
        assertThat(applied).containsExactly(
                SinkFixtures.Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 10L),
                SinkFixtures.Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 12L),
                SinkFixtures.Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", null, true, false, 11L));

        // partition 1's expected offset is stale (another instance moved it): neither partition's batch lands
        SinkTransaction.GroupOutcome fenced = tx.apply(e, List.of(
                new SinkTransaction.PartitionBatch(p0, OptionalLong.of(2), records(p0, 2,
                        delete(e.name(), "2025-08-03T09:00:00Z", "C1", 13)), 3, 0L, 0),
                new SinkTransaction.PartitionBatch(p1, OptionalLong.of(0), records(p1, 0,
                        upsert(e.name(), "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 11)), 1, 0L, 0)));

        assertThat(fenced).isEqualTo(new SinkTransaction.Fenced(p1, OptionalLong.of(1)));
        assertThat(SinkFixtures.rows(DS, e)).isEqualTo(applied);
        assertThat(SinkFixtures.storedOffsets(DS, "batches-merged", p0.topic())).isEqualTo(java.util.Map.of(0, 2L, 1, 1L));
        assertThat(rows(e.name())).hasSize(2);
    }

    @Test
    void aFencedBatchRecordsNothing() throws Exception {
        EntitySpec e = SinkFixtures.customer("batches_fenced", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        SinkTransaction tx = SinkFixtures.tx("batches-fenced", e);
        SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)), 1, 0, 0L);

        SinkTransaction.GroupOutcome stale = SinkFixtures.applyOne(tx, tp, e, OptionalLong.of(0), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)), 1, 0, 0L);

        assertThat(stale).isEqualTo(new SinkTransaction.Fenced(tp, OptionalLong.of(1)));
        assertThat(rows(e.name())).containsExactly(
                new BatchRow("batches-fenced", e.name(), tp.topic(), 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0L));
    }

    @Test
    void recordingABatchDeletesThatPartitionsRowsOlderThanADayOnly() throws Exception {
        EntitySpec e = SinkFixtures.customer("batches_prune", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.sink_batches (consumer_group, entity, topic, partition, first_offset, next_offset, finished_at, "
                        + "events, new_keys, changed, deleted, unchanged, late, duplicates, quarantined, rejected, rows_inserted, "
                        + "rows_updated, rows_deleted, apply_ms, lag) VALUES ('g', ?, ?, ?, 0, 1, now() - ?::interval, "
                        + "1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 5, 0)")) {
            Object[][] old = {{0, "25 hours"}, {1, "25 hours"}, {0, "23 hours"}};
            for (Object[] o : old) {
                p.setString(1, e.name());
                p.setString(2, tp.topic());
                p.setInt(3, (Integer) o[0]);
                p.setString(4, (String) o[1]);
                p.executeUpdate();
            }
        }
        SinkTransaction tx = SinkFixtures.tx("batches-prune", e);

        SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records(tp, 0,
                upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)), 1, 0, 0L);

        BatchRow oldRow0 = new BatchRow("g", e.name(), tp.topic(), 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0L);
        BatchRow oldRow1 = new BatchRow("g", e.name(), tp.topic(), 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0L);
        assertThat(rows(e.name())).containsExactly(
                oldRow1, // another partition's: its owner prunes it
                oldRow0, // 23 hours old: kept
                new BatchRow("batches-prune", e.name(), tp.topic(), 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0L));
    }
}
