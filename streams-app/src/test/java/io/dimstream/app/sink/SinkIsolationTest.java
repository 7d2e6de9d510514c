package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A batch PostgreSQL refuses for a data reason: the refused records are isolated (bisected under
 * savepoints) into the rejects with their SQLSTATE, everything else lands in the same transaction
 * as the offsets. Real PostgreSQL, no broker. The refusal comes from a CHECK constraint added to
 * the table by hand: a value the event validation cannot know about.
 */
class SinkIsolationTest {

    private static final DataSource DS = TestPostgres.dataSource();

    /** Refuses every email that starts with "poison". */
    private static EntitySpec withPoisonCheck(String name) throws Exception {
        EntitySpec e = SinkFixtures.customer(name, DS);
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + e.table() + " ADD CONSTRAINT " + e.table() + "_no_poison CHECK (email NOT LIKE 'poison%')");
        }
        return e;
    }

    /**
     * n changes over n/5 keys, in time order per key but shuffled between keys, some late, with
     * the given positions holding a poisoned email (on keys that also have good events).
     */
    private static List<ChangeRecord> feed(String entity, int n, Set<Integer> poisoned, long seed) {
        Random rnd = new Random(seed);
        List<ChangeRecord> out = new ArrayList<>(n);
        Instant t0 = Instant.parse("2025-08-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            String key = "K" + rnd.nextInt(n / 5);
            // mostly in order, one in ten late by up to a day
            Instant t = t0.plusSeconds(60L * i - (rnd.nextInt(10) == 0 ? rnd.nextInt(86_400) : 0));
            String email = poisoned.contains(i) ? "poison-" + i + "@x.io" : key.toLowerCase() + "-" + rnd.nextInt(3) + "@x.io";
            out.add(upsert(entity, t.toString(), key, email, "City" + rnd.nextInt(4), i, 1_000 + i));
        }
        return out;
    }

    @Test
    void aBatchOfTenThousandWithThreeRefusedValuesLandsTheRestInOneTransactionWithTheOffset() throws Exception {
        EntitySpec e = withPoisonCheck("iso_10k");
        EntitySpec reference = SinkFixtures.customer("iso_10k_ref", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        Set<Integer> poisoned = new TreeSet<>(List.of(17, 4_242, 9_998));
        List<ChangeRecord> changes = feed(e.name(), 10_000, poisoned, 7L);
        List<ConsumerRecord<byte[], byte[]>> records = SinkFixtures.records(tp, 0, changes);
        SinkTransaction tx = SinkFixtures.tx("iso-10k", e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records, 10_000);

        // the reference: the 9,997 good events applied alone, with the same arrival order (offsets)
        List<Event> good = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            if (!poisoned.contains(i)) {
                good.add(changes.get(i).toEvent(i));
            }
        }
        new Scd2Writer(DS).apply(reference, good);
        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> assertThat(c.rejects()).isEqualTo(3));
        assertThat(SinkFixtures.rows(DS, e)).isEqualTo(SinkFixtures.rows(DS, reference)).hasSizeGreaterThan(5_000);
        assertThat(rejects("iso-10k")).containsExactly(
                "0|17|23514|PostgreSQL refused the event: ERROR: new row for relation \"dim_iso_10k\" violates check constraint \"dim_iso_10k_no_poison\"",
                "0|4242|23514|PostgreSQL refused the event: ERROR: new row for relation \"dim_iso_10k\" violates check constraint \"dim_iso_10k_no_poison\"",
                "0|9998|23514|PostgreSQL refused the event: ERROR: new row for relation \"dim_iso_10k\" violates check constraint \"dim_iso_10k_no_poison\"");
        // the offset advanced once, past the whole batch; one batch row; one transaction wrote it all
        assertThat(SinkFixtures.storedOffsets(DS, "iso-10k", tp.topic())).isEqualTo(Map.of(0, 10_000L));
        assertThat(batchRows(e.name())).containsExactly("0|0|10000|10000|3");
        assertThat(transactionStarts(e, "iso-10k")).hasSize(1);
    }

    @Test
    void aGroupOfTwoPartitionsIsolatesEachPartitionsRefusedRecordAndAdvancesBothOffsets() throws Exception {
        EntitySpec e = withPoisonCheck("iso_group");
        TopicPartition p0 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        TopicPartition p1 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 1);
        SinkTransaction tx = SinkFixtures.tx("iso-group", e);

        SinkTransaction.GroupOutcome out = tx.apply(e, List.of(
                new SinkTransaction.PartitionBatch(p0, OptionalLong.empty(), SinkFixtures.records(p0, 0, List.of(
                        upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1),
                        upsert(e.name(), "2025-08-02T09:00:00Z", "C1", "poison@x.io", "Lyon", 2, 2),
                        upsert(e.name(), "2025-08-03T09:00:00Z", "C1", "a@x.io", "Nice", 3, 3))), 3, null, 0),
                new SinkTransaction.PartitionBatch(p1, OptionalLong.empty(), SinkFixtures.records(p1, 0, List.of(
                        upsert(e.name(), "2025-08-01T09:00:00Z", "C2", "poison@y.io", "Rome", 1, 4),
                        upsert(e.name(), "2025-08-02T09:00:00Z", "C3", "c@x.io", "Oslo", 1, 5))), 2, null, 0)));

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> assertThat(c.rejects()).isEqualTo(2));
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                SinkFixtures.Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-03T09:00:00Z", false, false, 1L),
                SinkFixtures.Row.of("C1", "a@x.io", "Nice", 3L, "2025-08-03T09:00:00Z", null, true, false, 3L),
                SinkFixtures.Row.of("C3", "c@x.io", "Oslo", 1L, "2025-08-02T09:00:00Z", null, true, false, 5L));
        assertThat(rejects("iso-group")).extracting(r -> r.substring(0, r.indexOf("|PostgreSQL"))).containsExactly(
                "0|1|23514", "1|0|23514");
        assertThat(SinkFixtures.storedOffsets(DS, "iso-group", p0.topic())).isEqualTo(Map.of(0, 3L, 1, 2L));
        assertThat(transactionStarts(e, "iso-group")).hasSize(1);
    }

    @Test
    void aFailureThatIsNoRecordsFaultRollsBackTheWholeBatch() throws Exception {
        EntitySpec e = SinkFixtures.customer("iso_other", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        SinkTransaction tx = SinkFixtures.tx("iso-other", e);
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            // a table altered by hand so that no statement of the writer can run: class 42, not data
            s.execute("ALTER TABLE " + e.table() + " RENAME COLUMN city TO town");
        }

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(),
                        SinkFixtures.records(tp, 0, List.of(upsert(e.name(), "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1))), 1))
                .isInstanceOfSatisfying(java.sql.SQLException.class, ex -> assertThat(ex.getSQLState()).isEqualTo("42703"));
        assertThat(SinkFixtures.storedOffsets(DS, "iso-other", tp.topic())).isEmpty();
        assertThat(rejects("iso-other")).isEmpty();
    }

    /** partition|offset|sql_state|reason of a group's rejects, by partition and offset. */
    private static List<String> rejects(String group) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT partition, \"offset\", sql_state, "
                + "reason FROM dimstream.sink_rejects WHERE consumer_group = ? ORDER BY partition, \"offset\"")) {
            p.setString(1, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1) + "|" + rs.getLong(2) + "|" + rs.getString(3) + "|" + rs.getString(4));
                }
            }
        }
        return out;
    }

    /** partition|first_offset|next_offset|events|rejected of an entity's batch rows. */
    private static List<String> batchRows(String entity) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT partition, first_offset, next_offset, "
                + "events, rejected FROM dimstream.sink_batches WHERE entity = ? ORDER BY partition, id")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1) + "|" + rs.getLong(2) + "|" + rs.getLong(3) + "|" + rs.getInt(4) + "|" + rs.getInt(5));
                }
            }
        }
        return out;
    }

    /**
     * The distinct transaction start times ({@code now()}) that wrote the table's rows, the group's
     * offsets and its rejects: one means one transaction. (Not xmin: rows written under a
     * savepoint carry the subtransaction's own id.)
     */
    private static Set<String> transactionStarts(EntitySpec e, String group) throws Exception {
        Set<String> out = new TreeSet<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT loaded_at::text FROM " + e.table()
                + " UNION SELECT updated_at::text FROM dimstream.sink_offsets WHERE consumer_group = ? "
                + " UNION SELECT rejected_at::text FROM dimstream.sink_rejects WHERE consumer_group = ?")) {
            p.setString(1, group);
            p.setString(2, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
