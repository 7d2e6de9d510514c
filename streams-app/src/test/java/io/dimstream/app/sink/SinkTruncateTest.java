package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.Scd2Writer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Truncate markers ({@code on-truncate: delete-all}) at the sink, against a real PostgreSQL (no
 * broker): each changes partition deletes, at the truncate's time, every key of its own that is
 * live then and has no event at exactly that time, between the changes before and after the marker,
 * in the batch's transaction. Keys by partition (Kafka's key partitioning over 2 partitions): C1,
 * C2, C3, C7, C8 on 0; C4, C5 on 1.
 */
class SinkTruncateTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final int PARTITIONS = 2;
    private static final String T1 = "2025-08-01T00:00:00Z";
    private static final String T2 = "2025-08-02T00:00:00Z";
    private static final String T3 = "2025-08-03T00:00:00Z";
    private static final String T4 = "2025-08-04T00:00:00Z";
    /** The truncate event's record on the source topic: the deletes' lineage. */
    private static final Source TRUNCATE_SOURCE = Source.kafka(SinkFixtures.SOURCE_TOPIC, 0, 42L);

    /** Batches of one entity's two changes partitions, applied as the sink applies them. */
    private static final class Feed {
        final EntitySpec entity;
        final SinkTransaction tx;
        final Map<Integer, Long> next = new HashMap<>();
        final Map<Integer, OptionalLong> stored = new HashMap<>();

        Feed(String name) throws Exception {
            entity = SinkFixtures.customer(name, DS);
            tx = SinkFixtures.tx("truncate-" + name, entity);
        }

        TopicPartition tp(int p) {
            return new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, entity.name()), p);
        }

        ConsumerRecord<byte[], byte[]> change(int p, ChangeRecord c) {
            assertThat(SnapshotSliceFeed.partitionOf(String.valueOf(c.data().get("customer_id")))).as("partition of %s", c.data()).isEqualTo(p);
            return new ConsumerRecord<>(tp(p).topic(), p, take(p), SinkFixtures.Raw.of(c).key(), SinkFixtures.Raw.of(c).value());
        }

        ConsumerRecord<byte[], byte[]> truncate(int p, String time, OptionalInt forPartition) {
            TruncateMarker m = new TruncateMarker(entity.name(), Instant.parse(time), TRUNCATE_SOURCE, forPartition);
            ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(tp(p).topic(), p, take(p), TruncateMarker.KIND.getBytes(), m.toBytes());
            TruncateMarker.mark(r.headers());
            return r;
        }

        ConsumerRecord<byte[], byte[]> truncate(int p, String time) {
            return truncate(p, time, OptionalInt.of(p));
        }

        private long take(int p) {
            long o = next.getOrDefault(p, 0L);
            next.put(p, o + 1);
            return o;
        }

        /** Applies a batch of partition p; returns the rejects. */
        int apply(int p, List<ConsumerRecord<byte[], byte[]>> batch) throws Exception {
            long to = next.getOrDefault(p, 0L);
            SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp(p), entity, stored.getOrDefault(p, OptionalLong.empty()), batch, to,
                    PARTITIONS);
            assertThat(out).isInstanceOf(SinkTransaction.Committed.class);
            stored.put(p, OptionalLong.of(to));
            return ((SinkTransaction.Committed) out).rejects();
        }

        /** Source offsets of the changes, counted from 0 in the order made. */
        private long src;

        ChangeRecord upsert(String time, String id, String city) {
            return SinkFixtures.upsert(entity.name(), time, id, id.toLowerCase() + "@x.io", city, 1, src++);
        }

        ChangeRecord delete(String time, String id) {
            return SinkFixtures.delete(entity.name(), time, id, src++);
        }
    }

    private static Row live(String id, String city, String from, String to, long srcOffset) {
        return Row.of(id, id.toLowerCase() + "@x.io", city, 1L, from, to, to == null, false, srcOffset);
    }

    private static Row truncated(String id, String city, String from, String to) {
        return Row.of(id, id.toLowerCase() + "@x.io", city, 1L, from, to, false, true, TRUNCATE_SOURCE.offset());
    }

    /**
     * Partition 0: C1, C2, C3 at T1, C3 deleted at T2, the truncate at T3, then C7 inserted at T3
     * (the truncate's transaction: TRUNCATE; INSERT) and C1 again at T4. Partition 1: C4 at T1, C5
     * at T3 (INSERT; TRUNCATE in one transaction: it survives, the documented price), the truncate.
     */
    private static Feed truncatedFeed(String name) throws Exception {
        Feed f = new Feed(name);
        assertThat(f.apply(0, List.of(f.change(0, f.upsert(T1, "C1", "Paris")), f.change(0, f.upsert(T1, "C2", "Rome")),
                f.change(0, f.upsert(T1, "C3", "Oslo")), f.change(0, f.delete(T2, "C3"))))).isZero();
        assertThat(f.apply(1, List.of(f.change(1, f.upsert(T1, "C4", "Lima"))))).isZero();
        // the marker splits partition 0's batch: changes before it, the deletes, changes after it, one transaction
        assertThat(f.apply(0, List.of(f.truncate(0, T3), f.change(0, f.upsert(T3, "C7", "Kyiv")),
                f.change(0, f.upsert(T4, "C1", "Bergen"))))).isZero();
        assertThat(f.apply(1, List.of(f.change(1, f.upsert(T3, "C5", "Bern")), f.truncate(1, T3)))).isZero();
        return f;
    }

    private static final List<Row> AFTER_TRUNCATE = List.of(
            live("C1", "Paris", T1, T3, 0),
            truncated("C1", "Paris", T3, T4),
            live("C1", "Bergen", T4, null, 6),
            live("C2", "Rome", T1, T3, 1),
            truncated("C2", "Rome", T3, null),
            live("C3", "Oslo", T1, T2, 2),
            Row.of("C3", "c3@x.io", "Oslo", 1L, T2, null, false, true, 3L),
            live("C4", "Lima", T1, T3, 4),
            truncated("C4", "Lima", T3, null),
            live("C5", "Bern", T3, null, 7),
            live("C7", "Kyiv", T3, null, 5));

    @Test
    void everyKeyLiveAtTheTruncateIsDeletedThenOnItsOwnPartitionAndTheChangesAroundItKeepTheirPlace() throws Exception {
        Feed f = truncatedFeed("trunc_all");

        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactlyElementsOf(AFTER_TRUNCATE);
    }

    @Test
    void theSameTruncateDeliveredAgainChangesNothing() throws Exception {
        Feed f = truncatedFeed("trunc_again");
        List<String> before = SinkFixtures.fullRows(DS, f.entity);
        List<EntityTableReader.StoredRow> withKeys = EntityTableReader.withSurrogateKeys(DS, f.entity);

        // Debezium re-delivers the truncate (a connector restart): new markers, later offsets, on both partitions
        assertThat(f.apply(0, List.of(f.truncate(0, T3)))).isZero();
        assertThat(f.apply(1, List.of(f.truncate(1, T3)))).isZero();

        assertThat(SinkFixtures.fullRows(DS, f.entity)).containsExactlyElementsOf(before);
        assertThat(EntityTableReader.withSurrogateKeys(DS, f.entity)).containsExactlyElementsOf(withKeys);
        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactlyElementsOf(AFTER_TRUNCATE);
    }

    @Test
    void aMarkerForEveryPartitionDeletesOnlyThePartitionItIsReadFrom() throws Exception {
        // partitioned-by-key: the one classify task that saw the truncate writes it to every changes partition
        Feed f = new Feed("trunc_every");
        f.apply(0, List.of(f.change(0, f.upsert(T1, "C1", "Paris")), f.change(0, f.upsert(T1, "C2", "Rome"))));
        f.apply(1, List.of(f.change(1, f.upsert(T1, "C4", "Lima"))));

        assertThat(f.apply(0, List.of(f.truncate(0, T3, OptionalInt.empty())))).isZero();
        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactly(
                live("C1", "Paris", T1, T3, 0), truncated("C1", "Paris", T3, null),
                live("C2", "Rome", T1, T3, 1), truncated("C2", "Rome", T3, null),
                live("C4", "Lima", T1, null, 2));

        assertThat(f.apply(1, List.of(f.truncate(1, T3, OptionalInt.empty())))).isZero();
        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactly(
                live("C1", "Paris", T1, T3, 0), truncated("C1", "Paris", T3, null),
                live("C2", "Rome", T1, T3, 1), truncated("C2", "Rome", T3, null),
                live("C4", "Lima", T1, T3, 2), truncated("C4", "Lima", T3, null));
    }

    @Test
    void aChangeOlderThanTheTruncateArrivingAfterItIsPlacedAndAKeyWrittenLaterStays() throws Exception {
        Feed f = new Feed("trunc_late");
        f.apply(0, List.of(f.change(0, f.upsert(T1, "C1", "Paris")), f.truncate(0, T3)));
        // after the marker: C1 changed at T2 (before the truncate: placed before its delete), C2 created at T4
        f.apply(0, List.of(f.change(0, f.upsert(T2, "C1", "Rome")), f.change(0, f.upsert(T4, "C2", "Oslo"))));

        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactly(
                live("C1", "Paris", T1, T2, 0),
                live("C1", "Rome", T2, T3, 1),
                truncated("C1", "Rome", T3, null),
                live("C2", "Oslo", T4, null, 2));
    }

    @Test
    void badMarkersAreRejectsAndDeleteNothing() throws Exception {
        Feed f = new Feed("trunc_bad");
        f.apply(0, List.of(f.change(0, f.upsert(T1, "C1", "Paris"))));
        List<Row> before = SinkFixtures.rows(DS, f.entity);

        List<ConsumerRecord<byte[], byte[]>> bad = new ArrayList<>();
        bad.add(f.truncate(0, T3, OptionalInt.of(1)));                                 // for partition 1, read from 0
        ConsumerRecord<byte[], byte[]> other = new ConsumerRecord<>(f.tp(0).topic(), 0, f.take(0), TruncateMarker.KIND.getBytes(),
                new TruncateMarker("product", Instant.parse(T3), TRUNCATE_SOURCE, OptionalInt.of(0)).toBytes());
        TruncateMarker.mark(other.headers());
        bad.add(other);                                                                 // another entity's
        ConsumerRecord<byte[], byte[]> garbled = new ConsumerRecord<>(f.tp(0).topic(), 0, f.take(0), TruncateMarker.KIND.getBytes(),
                "{\"entity\":\"trunc_bad\",\"time\":\"soon\"}".getBytes());
        TruncateMarker.mark(garbled.headers());
        bad.add(garbled);

        assertThat(f.apply(0, bad)).isEqualTo(3);
        assertThat(SinkFixtures.rows(DS, f.entity)).containsExactlyElementsOf(before);
        try (java.sql.Connection c = DS.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT \"offset\", reason FROM dimstream.sink_rejects WHERE consumer_group = "
                     + "'truncate-trunc_bad' ORDER BY \"offset\"")) {
            List<String> reasons = new ArrayList<>();
            while (rs.next()) {
                reasons.add(rs.getLong(1) + ": " + rs.getString(2));
            }
            assertThat(reasons).containsExactly(
                    "1: truncate marker for partition OptionalInt[1] read from partition 0 of 2 partitions: nothing deleted",
                    "2: truncate marker of entity 'product' on the changes topic of entity 'trunc_bad'",
                    "3: truncate marker: field 'time' is not an ISO-8601 instant with offset: \"soon\"");
        }
    }

    @Test
    void theMarkersTimeAndLineageSurviveItsEncoding() {
        TruncateMarker m = new TruncateMarker("customer", Instant.parse("2025-08-22T17:00:00.123456Z"), TRUNCATE_SOURCE, OptionalInt.of(3));

        assertThat(new String(m.toBytes())).isEqualTo("{\"entity\":\"customer\",\"time\":\"2025-08-22T17:00:00.123456Z\","
                + "\"source\":{\"topic\":\"crm.customers\",\"partition\":0,\"offset\":42},\"partition\":3}");
        assertThat(TruncateMarker.fromBytes(m.toBytes())).isEqualTo(m);
        assertThat(TruncateMarker.fromBytes(m.forPartition(1).toBytes())).isEqualTo(
                new TruncateMarker("customer", m.time(), TRUNCATE_SOURCE, OptionalInt.of(1)));
        TruncateMarker every = new TruncateMarker("customer", m.time(), TRUNCATE_SOURCE, OptionalInt.empty());
        assertThat(TruncateMarker.fromBytes(every.toBytes())).isEqualTo(every);
    }
}
