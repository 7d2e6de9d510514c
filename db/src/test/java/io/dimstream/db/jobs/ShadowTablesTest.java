package io.dimstream.db.jobs;

import static io.dimstream.db.jobs.JobsFixtures.del;
import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The swap: what the live table got after the shadow's range is merged in; view, function and names
 * follow. The swap after columns changed and what users built on the table: {@link ShadowSwapTest}.
 */
class ShadowTablesTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void swappedShadowHoldsEverythingTheLiveTableHadPlusItsOwnAndTheViewAndFunctionFollow() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "shadow_swap", Optional.empty());
        // the topic range the shadow replays: events 1..6; the live table saw 1..4 plus two later
        // events (after the job's end offsets) and one loaded from a file
        List<Event> range = List.of(up("A", 1, "a1", "Oslo", 1, 1), up("B", 1, "b1", "Rome", 1, 2), up("A", 3, "a2", "Oslo", 2, 3),
                del("B", 4, 4), up("C", 2, "c1", "Bern", 1, 5), up("A", 2, "a9", "Nice", 1, 6));
        List<Event> liveOnly = List.of(up("A", 9, "a3", "Oslo", 3, 100), up("C", 8, "c2", "Bern", 2, 101), up("D", 5, "d1", "Kyiv", 1, 102));
        writer.apply(live, range.subList(0, 4));
        writer.apply(live, liveOnly);
        EntitySpec shadow = ShadowTables.shadowSpec(live, 77);
        ShadowTables.create(ds, shadow);
        // replayed events lose same-time ties against the live memory (negative seq, as the worker stamps them)
        List<Event> replayed = range.stream().map(e -> new Event(e.op(), e.eventTime(), e.data(), e.seq() - (1L << 62), e.source(), null))
                .toList();
        writer.apply(shadow, replayed);
        List<String> liveBefore = JobsFixtures.wholeRows(ds, live.table());
        String asOfKnown = "SELECT customer_id, email, valid_from, valid_to, known_from FROM " + live.table()
                + "_as_of(?::timestamptz, ?::timestamptz) ORDER BY customer_id";
        String knownBefore = String.valueOf(JobsFixtures.query(ds, "SELECT clock_timestamp()").get(0).get(0));
        Map<Integer, List<List<Object>>> believedBefore = new LinkedHashMap<>();
        for (int day = 1; day <= 10; day++) {
            believedBefore.put(day, JobsFixtures.query(ds, asOfKnown, "2025-08-0" + Math.min(day, 9) + (day == 10 ? "T23:00:00Z" : "T12:00:00Z"),
                    knownBefore));
        }

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ShadowTables.Swap swap = ShadowTables.swap(c, writer, live, shadow, 77);
            c.commit();
            assertThat(swap.retiredTable()).isEqualTo(live.table() + "_replaced_77");
            assertThat(swap.merged().applied()).isEqualTo(3);
        }
        // transaction time: the table as it stood before the swap is still what it said then, every
        // version with the instant it was learned (unchanged ones kept theirs through the swap)
        for (Map.Entry<Integer, List<List<Object>>> day : believedBefore.entrySet()) {
            int d = day.getKey();
            assertThat(JobsFixtures.query(ds, asOfKnown, "2025-08-0" + Math.min(d, 9) + (d == 10 ? "T23:00:00Z" : "T12:00:00Z"), knownBefore))
                    .as("as of day %d, known before the swap", d).isEqualTo(day.getValue());
        }

        List<Event> all = new ArrayList<>(range);
        all.addAll(liveOnly);
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all));
        assertThat(JobsFixtures.wholeRows(ds, ShadowTables.retiredTable(live, 77))).isEqualTo(liveBefore);
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email FROM " + live.table() + "_current ORDER BY customer_id"))
                .isEqualTo(List.of(List.of("A", "a3"), List.of("C", "c2"), List.of("D", "d1")));
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email FROM " + live.table() + "_as_of('2025-08-03T12:00:00Z') ORDER BY customer_id"))
                .isEqualTo(List.of(List.of("A", "a9"), List.of("B", "b1"), List.of("C", "c1")));
        assertThat(JobsFixtures.query(ds, "SELECT relname FROM pg_class WHERE relname LIKE ? ORDER BY relname", live.table() + "%"))
                .isEqualTo(List.of(
                        List.of(live.table()), List.of(live.table() + "_current"), List.of(live.table() + "_events"),
                        List.of(live.table() + "_events_pkey"), List.of(live.table() + "_one_open"), List.of(live.table() + "_pkey"),
                        // the replaced contents: a plain copy (no indexes); its memory renamed, with its index
                        List.of(live.table() + "_replaced_77"), List.of(live.table() + "_replaced_77_events"),
                        List.of(live.table() + "_replaced_77_events_pkey"),
                        // transaction time: the live rows the swap changed, and its index
                        List.of(live.table() + "_superseded"), List.of(live.table() + "_superseded_key")));
        // the writer keeps working on the swapped-in table
        writer.apply(live, List.of(up("D", 6, "d2", "Kyiv", 1, 103)));
        all.add(up("D", 6, "d2", "Kyiv", 1, 103));
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all));
    }

    @Test
    void aPlainLiveTableIsRebuiltPartitionedWhenTheConfigNowSaysTablePartitionsAndThePartitionsFollowTheNames() throws SQLException {
        EntitySpec plain = JobsFixtures.ensuredCustomer(ds, "shadow_part", Optional.empty());
        List<Event> range = List.of(up("A", 1, "a1", "Oslo", 1, 1), up("B", 1, "b1", "Rome", 1, 2), up("A", 3, "a2", "Oslo", 2, 3),
                del("B", 4, 4), up("C", 2, "c1", "Bern", 1, 5));
        writer.apply(plain, range);
        // the config now says table-partitions: 2; the existing table stays as it is until the rebuild
        EntitySpec live = plain.toBuilder().tablePartitions(2).build();
        EntitySpec shadow = ShadowTables.shadowSpec(live, 79);
        ShadowTables.create(ds, shadow);
        writer.apply(shadow, range.stream().map(e -> new Event(e.op(), e.eventTime(), e.data(), e.seq() - (1L << 62), e.source(), null))
                .toList());
        writer.apply(live, List.of(up("D", 5, "d1", "Kyiv", 1, 100)));

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ShadowTables.Swap swap = ShadowTables.swap(c, writer, live, shadow, 79);
            c.commit();
            assertThat(swap.merged().applied()).isEqualTo(1);
        }

        List<Event> all = new ArrayList<>(range);
        all.add(up("D", 5, "d1", "Kyiv", 1, 100));
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all));
        String t = live.table();
        assertThat(JobsFixtures.query(ds, "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                + "WHERE i.inhparent = ANY (ARRAY[?::regclass, ?::regclass]) ORDER BY c.relname", t, t + "_events"))
                .isEqualTo(List.of(List.of(t + "_events_p0"), List.of(t + "_events_p1"), List.of(t + "_p0"), List.of(t + "_p1")));
        assertThat(JobsFixtures.query(ds, "SELECT relname FROM pg_class WHERE relname LIKE ? AND relkind IN ('r', 'p', 'i', 'I') "
                + "ORDER BY relname", t + "%")).isEqualTo(List.of(
                        List.of(t), List.of(t + "_events"), List.of(t + "_events_p0"), List.of(t + "_events_p0_pkey"),
                        List.of(t + "_events_p1"), List.of(t + "_events_p1_pkey"), List.of(t + "_events_pkey"), List.of(t + "_one_open"),
                        List.of(t + "_p0"), List.of(t + "_p0_customer_id_idx"), List.of(t + "_p0_pkey"), List.of(t + "_p1"),
                        List.of(t + "_p1_customer_id_idx"), List.of(t + "_p1_pkey"), List.of(t + "_pkey"),
                        List.of(t + "_replaced_79"), List.of(t + "_replaced_79_events"), List.of(t + "_replaced_79_events_pkey"),
                        List.of(t + "_replaced_79_one_open"), List.of(t + "_replaced_79_pkey"), List.of(t + "_superseded"),
                        List.of(t + "_superseded_key")));
        // transaction time's triggers are on the table renamed in (and its partitions, as PostgreSQL clones
        // row triggers), none on the retired one
        assertThat(JobsFixtures.query(ds, "SELECT DISTINCT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal "
                + "AND tgrelid::regclass::text IN (?, ?) ORDER BY 1, 2", t, t + "_replaced_79")).isEqualTo(List.of(
                        List.of(t, t + "_supersede_delete"), List.of(t, t + "_supersede_insert"), List.of(t, t + "_supersede_update")));
        // the next start validates the swapped-in table without a warning, and the writer keeps working on it
        assertThat(io.dimstream.db.schema.EntityTables.ensure(ds, live)).isEmpty();
        writer.apply(live, List.of(up("D", 6, "d2", "Kyiv", 1, 103)));
        all.add(up("D", 6, "d2", "Kyiv", 1, 103));
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all));
    }

    @Test
    void theLiveEventsMergedAtTheSwapKeepTheirJsonbByteaAndTimestampValues() throws SQLException {
        java.util.Map<String, io.dimstream.db.entity.ColumnType> cols = new java.util.LinkedHashMap<>();
        cols.put("id", io.dimstream.db.entity.ColumnType.TEXT);
        cols.put("doc", io.dimstream.db.entity.ColumnType.JSONB);
        cols.put("blob", io.dimstream.db.entity.ColumnType.BYTEA);
        cols.put("seen", io.dimstream.db.entity.ColumnType.TIMESTAMP);
        EntitySpec live = EntitySpec.builder()
                .name("shadow_typed")
                .table("shadow_typed")
                .key(List.of("id"))
                .tracked(List.of("doc", "blob", "seen"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .system(io.dimstream.db.entity.SystemColumns.DEFAULTS)
                .build();
        io.dimstream.db.schema.EntityTables.ensure(ds, live);
        List<Event> range = List.of(typed("A", 1, "{\"a\": [1, 2.50]}", "AP8=", "2018-06-20T15:13:16.945104", 1));
        // live only: a jsonb string (given as its JSON text), bytes that need escaping, a timestamp at the range's edge
        List<Event> liveOnly = List.of(typed("A", 9, "\"just a string\"", "XAoN", "0001-01-01T00:00:00", 100),
                typed("B", 5, "[]", "", "9999-12-31T23:59:59.999999", 101));
        writer.apply(live, range);
        writer.apply(live, liveOnly);
        EntitySpec shadow = ShadowTables.shadowSpec(live, 78);
        ShadowTables.create(ds, shadow);
        writer.apply(shadow, range.stream().map(e -> new Event(e.op(), e.eventTime(), e.data(), e.seq() - (1L << 62), e.source(), null))
                .toList());

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ShadowTables.Swap swap = ShadowTables.swap(c, writer, live, shadow, 78);
            c.commit();
            assertThat(List.of(swap.merged().applied(), swap.merged().rejected())).isEqualTo(List.of(2, List.of()));
        }
        List<Event> all = new ArrayList<>(range);
        all.addAll(liveOnly);
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all));
    }

    private static Event typed(String id, int day, String doc, String blob, String seen, long seq) {
        java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("id", id);
        d.put("doc", doc);
        d.put("blob", blob);
        d.put("seen", seen);
        return Event.upsert(JobsFixtures.T0.plus(java.time.Duration.ofDays(day)), d, seq, io.dimstream.db.event.Source.kafka("crm", 0, seq));
    }
}
