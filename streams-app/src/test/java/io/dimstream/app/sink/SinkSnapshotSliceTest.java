package io.dimstream.app.sink;

import static io.dimstream.app.sink.SnapshotSliceFeed.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.app.sink.SnapshotSliceFeed.SliceRow;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.MemoryPruner;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Snapshot feeds at the sink, against a real PostgreSQL (no broker): changes-topic batches of
 * slice rows and end-of-slice markers on two partitions, applied by {@link SinkTransaction}.
 * Keys by partition (Kafka's key partitioning over 2 partitions): C1, C2, C3, C7, C8 on 0; C4, C5 on 1.
 */
class SinkSnapshotSliceTest {

    private static final DataSource DS = TestPostgres.dataSource();

    private static final Instant T1 = Instant.parse("2025-08-01T00:00:00Z");
    private static final Instant T2 = Instant.parse("2025-08-02T00:00:00Z");
    private static final Instant T3 = Instant.parse("2025-08-03T00:00:00Z");
    private static final String S1 = "2025-08-01T00:00:00Z";
    private static final String S2 = "2025-08-02T00:00:00Z";
    private static final String S3 = "2025-08-03T00:00:00Z";

    /** Inserts C1 C2 C3 (p0) and C4 (p1). */
    private static final List<SliceRow> SLICE_1 = List.of(
            row("C1", "a@x.io", "Paris"), row("C2", "b@x.io", "Rome"), row("C3", "c@x.io", "Oslo"), row("C4", "d@x.io", "Lima"));
    /** C1 unchanged, C2 moves, C3 and C4 disappear, C7 and C5 are new. */
    private static final List<SliceRow> SLICE_2 = List.of(
            row("C1", "a@x.io", "Paris"), row("C2", "b@x.io", "Milan"), row("C7", "g@x.io", "Kyiv"), row("C5", "e@x.io", "Bern"));
    /** C1 disappears, C2 and C5 unchanged, C3 and C4 come back, C7 changes its email. */
    private static final List<SliceRow> SLICE_3 = List.of(
            row("C2", "b@x.io", "Milan"), row("C3", "c@x.io", "Oslo"), row("C7", "g2@x.io", "Kyiv"), row("C4", "d@x.io", "Lima"),
            row("C5", "e@x.io", "Bern"));

    /** Applies batches as the sink does, tracking each partition's stored offset. */
    private static final class Sink {
        final EntitySpec entity;
        final SnapshotSliceFeed feed;
        final SinkTransaction tx;
        final Map<Integer, OptionalLong> stored = new HashMap<>();

        Sink(String name) throws Exception {
            this(SinkFixtures.customer(name, DS));
        }

        Sink(EntitySpec spec) {
            entity = spec;
            String name = spec.name();
            feed = new SnapshotSliceFeed(entity);
            tx = SinkFixtures.tx("snapshot-" + name, entity);
        }

        void apply(int p, List<ConsumerRecord<byte[], byte[]>> batch) throws Exception {
            long next = feed.offset(p);
            SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, feed.tp(p), entity, stored.getOrDefault(p, OptionalLong.empty()), batch, next,
                    SnapshotSliceFeed.PARTITIONS);
            assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> assertThat(c.rejects()).isZero());
            stored.put(p, OptionalLong.of(next));
        }

        /** A whole slice: partition 0's rows and marker, then partition 1's. */
        void slice(Instant t, List<SliceRow> rows) throws Exception {
            apply(0, feed.records(0, t, rows, true));
            apply(1, feed.records(1, t, rows, true));
        }

        List<Row> rows() throws Exception {
            return SinkFixtures.rows(DS, entity);
        }
    }

    private static Row live(String id, String email, String city, String from, String to) {
        return Row.of(id, email, city, 1L, from, to, to == null, false, null);
    }

    private static Row gone(String id, String email, String city, String from, String to) {
        return Row.of(id, email, city, 1L, from, to, false, true, null);
    }

    /** The rows without lineage (slice rows and markers have different offsets in each test). */
    private static List<Row> withoutLineage(List<Row> rows) {
        return rows.stream().map(r -> Row.of(r.id(), r.email(), r.city(), r.lastLogin(), r.validFrom(), r.validTo(), r.current(),
                r.deleted(), null)).toList();
    }

    private static final List<Row> AFTER_THREE_SLICES = List.of(
            live("C1", "a@x.io", "Paris", S1, S3),
            gone("C1", "a@x.io", "Paris", S3, null),
            live("C2", "b@x.io", "Rome", S1, S2),
            live("C2", "b@x.io", "Milan", S2, null),
            live("C3", "c@x.io", "Oslo", S1, S2),
            gone("C3", "c@x.io", "Oslo", S2, S3),
            live("C3", "c@x.io", "Oslo", S3, null),
            live("C4", "d@x.io", "Lima", S1, S2),
            gone("C4", "d@x.io", "Lima", S2, S3),
            live("C4", "d@x.io", "Lima", S3, null),
            live("C5", "e@x.io", "Bern", S2, null),
            live("C7", "g@x.io", "Kyiv", S2, S3),
            live("C7", "g2@x.io", "Kyiv", S3, null));

    @Test
    void threeSlicesWithInsertsChangesAndDisappearancesGiveTheHandComputedHistory() throws Exception {
        Sink sink = new Sink("snap_three");
        sink.slice(T1, SLICE_1);
        sink.slice(T2, SLICE_2);
        sink.slice(T3, SLICE_3);

        assertThat(withoutLineage(sink.rows())).containsExactlyElementsOf(AFTER_THREE_SLICES);
    }

    @Test
    void theDeleteOfAnAbsentKeyCarriesTheMarkersOffsetAsLineage() throws Exception {
        Sink sink = new Sink("snap_lineage");
        sink.slice(T1, SLICE_1);
        // partition 0 of slice 2: C1, C2, C7 at offsets 4, 5, 6, the marker at 7
        sink.slice(T2, SLICE_2);

        assertThat(sink.rows()).filteredOn(r -> r.id().equals("C3")).containsExactly(
                Row.of("C3", "c@x.io", "Oslo", 1L, S1, S2, false, false, 2L),
                Row.of("C3", "c@x.io", "Oslo", 1L, S2, null, false, true, 7L));
    }

    @Test
    void reloadingTheSameSlicesChangesNothingSurrogateKeysAndLoadTimesIncluded() throws Exception {
        Sink sink = new Sink("snap_reload");
        sink.slice(T1, SLICE_1);
        sink.slice(T2, SLICE_2);
        sink.slice(T3, SLICE_3);
        List<String> before = SinkFixtures.fullRows(DS, sink.entity);
        List<EntityTableReader.StoredRow> withKeys = EntityTableReader.withSurrogateKeys(DS, sink.entity);

        sink.slice(T1, SLICE_1);
        sink.slice(T2, SLICE_2);
        sink.slice(T3, SLICE_3);

        assertThat(SinkFixtures.fullRows(DS, sink.entity)).containsExactlyElementsOf(before);
        assertThat(EntityTableReader.withSurrogateKeys(DS, sink.entity)).containsExactlyElementsOf(withKeys);
        assertThat(withoutLineage(sink.rows())).containsExactlyElementsOf(AFTER_THREE_SLICES);
    }

    @Test
    void aSliceWithoutItsEndOfSliceMarkerDeletesNothing() throws Exception {
        Sink sink = new Sink("snap_no_marker");
        sink.slice(T1, SLICE_1);
        // slice 2 without any marker: C3 and C4 are absent from it but stay
        sink.apply(0, sink.feed.records(0, T2, SLICE_2, false));
        sink.apply(1, sink.feed.records(1, T2, SLICE_2, false));

        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, S2),
                live("C2", "b@x.io", "Milan", S2, null),
                live("C3", "c@x.io", "Oslo", S1, null),
                live("C4", "d@x.io", "Lima", S1, null),
                live("C5", "e@x.io", "Bern", S2, null),
                live("C7", "g@x.io", "Kyiv", S2, null));
    }

    @Test
    void aPartitionsMarkerNeverDeletesKeysOfAnotherPartition() throws Exception {
        Sink sink = new Sink("snap_partitions");
        sink.slice(T1, SLICE_1);
        // partition 1 finishes slice 2 before partition 0 has delivered any of it: C1, C2, C3 (partition 0)
        // have no event at T2 yet and must stay; C4 (partition 1, absent) goes
        sink.apply(1, sink.feed.records(1, T2, SLICE_2, true));

        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, null),
                live("C3", "c@x.io", "Oslo", S1, null),
                live("C4", "d@x.io", "Lima", S1, S2),
                gone("C4", "d@x.io", "Lima", S2, null),
                live("C5", "e@x.io", "Bern", S2, null));

        // then partition 0's part of slice 2 and its marker: now C3 goes
        sink.apply(0, sink.feed.records(0, T2, SLICE_2, true));
        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, S2),
                live("C2", "b@x.io", "Milan", S2, null),
                live("C3", "c@x.io", "Oslo", S1, S2),
                gone("C3", "c@x.io", "Oslo", S2, null),
                live("C4", "d@x.io", "Lima", S1, S2),
                gone("C4", "d@x.io", "Lima", S2, null),
                live("C5", "e@x.io", "Bern", S2, null),
                live("C7", "g@x.io", "Kyiv", S2, null));
    }

    @Test
    void anOlderSliceArrivingAfterNewerOnesIsPlacedAsIfTheSlicesCameInTimeOrder() throws Exception {
        // C8 is only in the late slice 2: it must live from T2 and be deleted at T3 (slice 3 lacks it),
        // which only re-judging slice 3 after slice 2 completes can give
        List<SliceRow> slice2 = new java.util.ArrayList<>(SLICE_2);
        slice2.add(row("C8", "h@x.io", "Riga"));
        Sink sink = new Sink("snap_late");
        sink.slice(T1, SLICE_1);
        sink.slice(T3, SLICE_3);
        sink.slice(T2, slice2);

        TreeMap<Instant, List<SliceRow>> inTimeOrder = new TreeMap<>(Map.of(T1, SLICE_1, T2, slice2, T3, SLICE_3));
        assertThat(EntityTableReader.rows(DS, sink.entity))
                .containsExactlyElementsOf(new ReferenceModel(sink.entity).rows(SnapshotSliceFeed.chronological(inTimeOrder)));
        List<Row> expected = new java.util.ArrayList<>(AFTER_THREE_SLICES);
        expected.add(live("C8", "h@x.io", "Riga", S2, S3));
        expected.add(gone("C8", "h@x.io", "Riga", S3, null));
        expected.sort(java.util.Comparator.comparing(Row::id).thenComparing(Row::validFrom));
        assertThat(withoutLineage(sink.rows())).containsExactlyElementsOf(expected);
    }

    @Test
    void aRowOfAJudgedSliceArrivingAfterItsMarkerIsJudgedByTheLaterSlices() throws Exception {
        // C8 (partition 0) of slice 2 reaches the sink after slice 2's markers and after slice 3: it must
        // live from T2 and be deleted at T3, which slice 3 (complete, without C8) says, as in time order
        List<SliceRow> slice2 = new java.util.ArrayList<>(SLICE_2);
        Sink sink = new Sink("snap_late_row");
        sink.slice(T1, SLICE_1);
        sink.slice(T2, SLICE_2);
        sink.slice(T3, SLICE_3);
        SliceRow c8 = row("C8", "h@x.io", "Riga");
        sink.apply(SnapshotSliceFeed.partitionOf("C8"), sink.feed.records(SnapshotSliceFeed.partitionOf("C8"), T2, List.of(c8), false));

        slice2.add(c8);
        TreeMap<Instant, List<SliceRow>> inTimeOrder = new TreeMap<>(Map.of(T1, SLICE_1, T2, slice2, T3, SLICE_3));
        assertThat(EntityTableReader.rows(DS, sink.entity))
                .containsExactlyElementsOf(new ReferenceModel(sink.entity).rows(SnapshotSliceFeed.chronological(inTimeOrder)));
        List<Row> expected = new java.util.ArrayList<>(AFTER_THREE_SLICES);
        expected.add(live("C8", "h@x.io", "Riga", S2, S3));
        expected.add(gone("C8", "h@x.io", "Riga", S3, null));
        expected.sort(java.util.Comparator.comparing(Row::id).thenComparing(Row::validFrom));
        assertThat(withoutLineage(sink.rows())).containsExactlyElementsOf(expected);
    }

    @Test
    void randomSlicesDeliveredInAnyOrderEqualTheChronologicalReference() throws Exception {
        java.util.Random rnd = new java.util.Random(5);
        for (int round = 0; round < 4; round++) {
            TreeMap<Instant, List<SliceRow>> slices = new TreeMap<>();
            String[] cities = {"Paris", "Rome", "Oslo"};
            for (int s = 0; s < 5; s++) {
                List<SliceRow> rows = new java.util.ArrayList<>();
                for (int k = 1; k <= 9; k++) {
                    if (rnd.nextInt(3) > 0) {
                        rows.add(row("C" + k, "c" + k + "@x.io", cities[rnd.nextInt(cities.length)]));
                    }
                }
                slices.put(T1.plusSeconds(86_400L * s), rows);
            }
            List<Instant> order = new java.util.ArrayList<>(slices.keySet());
            java.util.Collections.shuffle(order, rnd);
            Sink sink = new Sink("snap_random_" + round);
            for (Instant t : order) {
                sink.slice(t, slices.get(t));
            }
            assertThat(EntityTableReader.rows(DS, sink.entity))
                    .as("slices delivered in order %s", order)
                    .containsExactlyElementsOf(new ReferenceModel(sink.entity).rows(SnapshotSliceFeed.chronological(slices)));
        }
    }

    @Test
    void aKeyWhoseMemoryIsPrunedPastASliceIsNotJudgedByIt() throws Exception {
        EntitySpec base = SinkFixtures.customer("snap_pruned", DS);
        EntitySpec spec = EntitySpec.builder()
                .name(base.name())
                .table(base.table())
                .key(base.key())
                .tracked(base.tracked())
                .type1(base.type1())
                .columns(base.columns())
                .latenessHorizon(java.util.Optional.of(java.time.Duration.ofDays(1)))
                .system(base.system())
                .build();
        Sink sink = new Sink(spec);
        List<SliceRow> c1 = List.of(row("C1", "a@x.io", "Paris"));
        for (int d = 0; d < 5; d++) {
            sink.slice(T1.plusSeconds(86_400L * d), c1);
        }
        // horizon 1 day: C1 keeps its events from T3 on; T3 is the anchor and the prune point
        new MemoryPruner(DS).prune(spec);
        List<String> before = SinkFixtures.fullRows(DS, spec);

        // slice T2's marker again: C1 has no remembered event at T2 any more, which proves nothing
        sink.apply(0, List.of(sink.feed.marker(0, new SliceMarker(spec.name(), T2, 0, 2))));

        assertThat(SinkFixtures.fullRows(DS, spec)).containsExactlyElementsOf(before);
        assertThat(withoutLineage(sink.rows())).containsExactly(live("C1", "a@x.io", "Paris", S1, null));
        try (java.sql.Connection c = DS.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM dimstream.quarantine WHERE entity = 'snap_pruned'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("quarantined events of snap_pruned").isZero();
        }
    }

    @Test
    void aMarkerForAnotherPartitionIsRejectedAndDeletesNothing() throws Exception {
        Sink sink = new Sink("snap_wrong_marker");
        sink.slice(T1, SLICE_1);
        // a marker claiming partition 1, read from partition 0
        long next = sink.feed.offset(0) + 1;
        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(sink.tx, sink.feed.tp(0), sink.entity, sink.stored.get(0),
                List.of(sink.feed.marker(0, new SliceMarker(sink.entity.name(), T2, 1, 2))), next, SnapshotSliceFeed.PARTITIONS);

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> assertThat(c.rejects()).isEqualTo(1));
        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, null),
                live("C3", "c@x.io", "Oslo", S1, null),
                live("C4", "d@x.io", "Lima", S1, null));
    }
    @Test
    void aControlHeaderThatIsNotUtf8IsRejectedWithTheByteAndDeletesNothing() throws Exception {
        Sink sink = new Sink("snap_bad_header");
        sink.slice(T1, SLICE_1);
        ConsumerRecord<byte[], byte[]> marker = sink.feed.marker(0, new SliceMarker(sink.entity.name(), T2, 0, 2));
        marker.headers().remove(SliceMarker.HEADER);
        marker.headers().add(SliceMarker.HEADER, new byte[] {'e', 'n', 'd', (byte) 0xed, (byte) 0xa0, (byte) 0x80});
        long next = sink.feed.offset(0);
        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(sink.tx, sink.feed.tp(0), sink.entity, sink.stored.get(0),
                List.of(marker), next, SnapshotSliceFeed.PARTITIONS);

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> assertThat(c.rejects()).isEqualTo(1));
        try (Connection c = DS.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT \"offset\", reason FROM dimstream.sink_rejects WHERE entity = ? ORDER BY id")) {
            ps.setString(1, sink.entity.name());
            List<String> rejects = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rejects.add(rs.getLong(1) + " " + rs.getString(2));
                }
            }
            assertThat(rejects).containsExactly(marker.offset() + " header dimstream.control is not valid UTF-8: malformed byte sequence at byte 3");
        }
        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, null),
                live("C3", "c@x.io", "Oslo", S1, null),
                live("C4", "d@x.io", "Lima", S1, null));
    }

    /** A slice loaded by {@code dimstream load --slice-at}: its rows as upserts at {@code t} (no Kafka). */
    private static void loadSlice(EntitySpec entity, Instant t, List<SliceRow> rows) throws Exception {
        java.util.Iterator<SliceRow> it = rows.iterator();
        io.dimstream.app.load.RowSource source = new io.dimstream.app.load.RowSource() {
            long n;

            @Override
            public io.dimstream.db.event.NativeEventJson.Parsed next() {
                if (!it.hasNext()) {
                    return null;
                }
                n++;
                return new io.dimstream.db.event.NativeEventJson.Parsed(io.dimstream.db.event.Event.upsert(t, it.next().data(),
                        io.dimstream.db.event.ArrivalSeq.ofLoad(Instant.parse("2026-01-01T00:00:00Z"), n).value(),
                        new io.dimstream.db.event.Source("file:slice.csv", null, n)), null);
            }

            @Override
            public long position() {
                return n;
            }

            @Override
            public String unit() {
                return "row";
            }

            @Override
            public void close() {
            }
        };
        new io.dimstream.app.load.SliceLoader(DS, entity, 100, 1, io.dimstream.app.load.LoadFields.NONE).load(source, "file:slice.csv", t);
    }

    @Test
    void aFeedsOlderSliceReJudgesASliceLoadedWithoutKafkaForItsOwnPartitionsKeys() throws Exception {
        Sink sink = new Sink("snap_after_load");
        // slice 2 loaded from a file first; then slice 1 arrives through the feed, partition by partition
        loadSlice(sink.entity, T2, SLICE_2);
        sink.apply(0, sink.feed.records(0, T1, SLICE_1, true));

        // partition 0's marker of slice 1 re-judges the loaded slice 2 for partition 0's keys: C3 (only in slice 1) goes at T2;
        // C4 (partition 1, whose part of slice 1 has not come) is not there yet
        assertThat(withoutLineage(sink.rows())).containsExactly(
                live("C1", "a@x.io", "Paris", S1, null),
                live("C2", "b@x.io", "Rome", S1, S2),
                live("C2", "b@x.io", "Milan", S2, null),
                live("C3", "c@x.io", "Oslo", S1, S2),
                gone("C3", "c@x.io", "Oslo", S2, null),
                live("C5", "e@x.io", "Bern", S2, null),
                live("C7", "g@x.io", "Kyiv", S2, null));

        sink.apply(1, sink.feed.records(1, T1, SLICE_1, true));
        sink.slice(T3, SLICE_3);
        // as if the three slices had come in time order
        assertThat(withoutLineage(sink.rows())).containsExactlyElementsOf(AFTER_THREE_SLICES);
    }
}
