package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.del;
import static io.dimstream.db.write.Fixtures.deleted;
import static io.dimstream.db.write.Fixtures.up;
import static io.dimstream.db.write.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EntityTables.SchemaMismatchException;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The event memory keeps no row of an in-order event that starts a version (DESIGN 5b, {@link EventMemory}):
 * its version row, with the event's arrival order in {@code event_seq}, stands for it. Every case
 * applies its events one batch each, so each in-order change takes the fast path that skips the
 * memory, and checks the whole table, the memory's own rows and the remembered events as one
 * relation (the memory's rows and the version starts it has no row of). Real PostgreSQL.
 */
class CompactMemoryTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final MemoryPruner pruner = new MemoryPruner(ds);

    @Test
    void inOrderChangesAreRememberedByTheirVersionsAndEverythingElseByTheMemory() throws SQLException {
        EntitySpec spec = fresh(Optional.empty());
        List<Event> feed = List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),   // new key: its version stands for it
                up(2, 2, "P1", "Ann", "Rome", 1L),   // a change: likewise
                up(3, 3, "P1", "Ann", "Rome", 5L),   // a re-assertion with another type-1 value: remembered, and the start it
                                                     // overwrites (Rome at 2, last_login 1) written into the memory first
                del(4, 4, "P1"),                     // a delete: always remembered
                up(5, 1, "P2", "Bob", "Kyiv", 7L));  // another new key
        for (Event e : feed) {
            writer.apply(spec, List.of(e));
        }

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Rome", 5L, 2, 4),
                deleted("P1", "Ann", "Rome", 5L, 4, null),
                version("P2", "Bob", "Kyiv", 7L, 1, null)));
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 1", "P1 02:00 2", "P1 04:00 4", "P2 01:00 5"));
        assertThat(rows(spec, Sql.table(spec.memoryTable()) + " x")).isEqualTo(List.of(
                "P1 02:00 seq 2 upsert Ann Rome 1 offset 2 pruned_to null",
                "P1 03:00 seq 3 upsert Ann Rome 5 offset 3 pruned_to null",
                "P1 04:00 seq 4 delete null null null offset 4 pruned_to null"));
        // what the memory held when it had a row per event
        assertThat(rows(spec, EventMemory.eventsSql(spec) + " x")).isEqualTo(List.of(
                "P1 01:00 seq 1 upsert Ann Oslo 1 offset 1 pruned_to null",
                "P1 02:00 seq 2 upsert Ann Rome 1 offset 2 pruned_to null",
                "P1 03:00 seq 3 upsert Ann Rome 5 offset 3 pruned_to null",
                "P1 04:00 seq 4 delete null null null offset 4 pruned_to null",
                "P2 01:00 seq 5 upsert Bob Kyiv 7 offset 5 pruned_to null"));

        // delivered again, one batch or one each: nothing changes, every event a duplicate
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);
        assertThat(writer.apply(spec, feed)).isEqualTo(ApplyResult.builder().received(5).duplicates(5).build());
        for (Event e : feed) {
            assertThat(writer.apply(spec, List.of(e))).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        }
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 1", "P1 02:00 2", "P1 04:00 4", "P2 01:00 5"));
    }

    @Test
    void aLateEventBetweenStartsTheMemoryHasNoRowOfLandsExactlyAndTheStartsFromTheRegionOnAreRemembered() throws SQLException {
        EntitySpec spec = fresh(Optional.empty());
        for (Event e : List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 5, "P1", "Ann", "Rome", 2L), up(3, 9, "P1", "Ann", "Bern", 3L))) {
            writer.apply(spec, List.of(e));
        }
        assertThat(rows(spec, Sql.table(spec.memoryTable()) + " x")).isEmpty();

        writer.apply(spec, List.of(up(4, 7, "P1", "Ann", "Lima", 4L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 5),
                version("P1", "Ann", "Rome", 2L, 5, 7),
                version("P1", "Ann", "Lima", 4L, 7, 9),
                version("P1", "Ann", "Bern", 3L, 9, null)));
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 1", "P1 05:00 2", "P1 07:00 4", "P1 09:00 3"));
        // the region began at the start at 5 (the last before the late event): the starts from there
        // on went into the memory with the late event; the one at 1, before the region, stays in its version
        assertThat(rows(spec, Sql.table(spec.memoryTable()) + " x")).isEqualTo(List.of(
                "P1 05:00 seq 2 upsert Ann Rome 2 offset 2 pruned_to null",
                "P1 07:00 seq 4 upsert Ann Lima 4 offset 4 pruned_to null",
                "P1 09:00 seq 3 upsert Ann Bern 3 offset 3 pruned_to null"));

        // a second late event, before every start in the memory: the start at 1 joins them
        writer.apply(spec, List.of(up(5, 3, "P1", "Ann", "Nice", 5L)));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Nice", 5L, 3, 5),
                version("P1", "Ann", "Rome", 2L, 5, 7),
                version("P1", "Ann", "Lima", 4L, 7, 9),
                version("P1", "Ann", "Bern", 3L, 9, null)));
        List<String> all = List.of(
                "P1 01:00 seq 1 upsert Ann Oslo 1 offset 1 pruned_to null",
                "P1 03:00 seq 5 upsert Ann Nice 5 offset 5 pruned_to null",
                "P1 05:00 seq 2 upsert Ann Rome 2 offset 2 pruned_to null",
                "P1 07:00 seq 4 upsert Ann Lima 4 offset 4 pruned_to null",
                "P1 09:00 seq 3 upsert Ann Bern 3 offset 3 pruned_to null");
        assertThat(rows(spec, Sql.table(spec.memoryTable()) + " x")).isEqualTo(all);
        assertThat(rows(spec, EventMemory.eventsSql(spec) + " x")).isEqualTo(all);
    }

    @Test
    void aSameTimeEventMeetsAStartTheMemoryHasNoRowOfByArrivalOrder() throws SQLException {
        EntitySpec spec = fresh(Optional.empty());
        writer.apply(spec, List.of(up(5, 1, "P1", "Ann", "Oslo", 1L)));

        // an earlier arrival with other content loses
        assertThat(writer.apply(spec, List.of(up(3, 1, "P1", "Ann", "Rome", 1L)))).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 5"));
        // a later arrival repeating the content changes no version but is the arrival to beat from now
        // on: the memory gets a row with its seq (the version row is not written on a re-delivery)
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);
        assertThat(writer.apply(spec, List.of(up(7, 1, "P1", "Ann", "Oslo", 1L)))).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 5"));
        assertThat(rows(spec, Sql.table(spec.memoryTable()) + " x")).isEqualTo(List.of(
                "P1 01:00 seq 7 upsert Ann Oslo 1 offset 5 pruned_to null"));
        assertThat(writer.apply(spec, List.of(up(6, 1, "P1", "Ann", "Bern", 1L)))).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(rows(spec, EventMemory.eventsSql(spec) + " x")).isEqualTo(List.of(
                "P1 01:00 seq 7 upsert Ann Oslo 1 offset 5 pruned_to null"));

        // a later arrival with other content wins
        writer.apply(spec, List.of(up(8, 1, "P1", "Ann", "Lima", 1L)));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Lima", 1L, 1, null)));
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 8"));
        assertThat(rows(spec, EventMemory.eventsSql(spec) + " x")).isEqualTo(List.of(
                "P1 01:00 seq 8 upsert Ann Lima 1 offset 8 pruned_to null"));
    }

    @Test
    void pruningWritesAnAnchorTheMemoryHadNoRowOfAndForgetsTheStartsBeforeIt() throws SQLException {
        EntitySpec spec = fresh(Optional.of(Duration.ofHours(2)));
        for (Event e : List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 3, "P1", "Ann", "Rome", 2L), up(3, 10, "P1", "Ann", "Bern", 3L),
                up(4, 1, "P2", "Bob", "Kyiv", 1L))) {
            writer.apply(spec, List.of(e));
        }
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        // P1: cut at 10 - 2 = 8, anchor the start at 3, the start at 1 forgotten; P2: its only event is its anchor
        assertThat(pruner.prune(spec)).isEqualTo(1);

        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(eventSeqs(spec)).isEqualTo(List.of("P1 01:00 null", "P1 03:00 2", "P1 10:00 3", "P2 01:00 4"));
        assertThat(rows(spec, EventMemory.eventsSql(spec) + " x")).isEqualTo(List.of(
                "P1 03:00 seq 2 upsert Ann Rome 2 offset 2 pruned_to 03:00",
                "P1 10:00 seq 3 upsert Ann Bern 3 offset 3 pruned_to null",
                "P2 01:00 seq 4 upsert Bob Kyiv 1 offset 4 pruned_to null"));
        assertThat(pruner.prune(spec)).as("pruned again: nothing more").isZero();

        // with a wider horizon: an event at the prune point is quarantined, a late one after it lands exactly
        EntitySpec wide = spec.withLatenessHorizon(Optional.of(Duration.ofDays(30)));
        ApplyResult result = writer.apply(wide, List.of(up(5, 3, "P1", "Ann", "Lima", 5L), up(6, 5, "P2", "Bob", "Rome", 6L)));
        assertThat(result.quarantined()).isEqualTo(1);
        ApplyResult late = writer.apply(wide, List.of(up(7, 6, "P1", "Ann", "Nice", 7L)));
        assertThat(late.late()).isEqualTo(1);
        assertThat(EntityTableReader.rows(ds, wide)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Rome", 2L, 3, 6),
                version("P1", "Ann", "Nice", 7L, 6, 10),
                version("P1", "Ann", "Bern", 3L, 10, null),
                version("P2", "Bob", "Kyiv", 1L, 1, 5),
                version("P2", "Bob", "Rome", 6L, 5, null)));
    }

    @Test
    void aTableWithoutEventSeqIsRefusedNamingTheColumn() throws SQLException {
        EntitySpec spec = fresh(Optional.empty());
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + Sql.table(spec.table()) + " DROP COLUMN event_seq CASCADE"); // and the view on it
        }

        assertThatThrownBy(() -> EntityTables.ensure(ds, spec)).isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("event_seq");
    }

    private EntitySpec fresh(Optional<Duration> horizon) throws SQLException {
        String table = Fixtures.uniqueTable("people_cm");
        EntitySpec spec = Fixtures.people(table, table, horizon);
        EntityTables.ensure(ds, spec);
        return spec;
    }

    /** Each version's key, start (hour:minute) and event_seq. */
    private List<String> eventSeqs(EntitySpec spec) throws SQLException {
        return strings("SELECT id || ' ' || to_char(valid_from AT TIME ZONE 'UTC', 'HH24:MI') || ' ' || coalesce(event_seq::text, 'null') FROM "
                + Sql.table(spec.table()) + " ORDER BY id, valid_from");
    }

    /** Remembered events of {@code relation} (alias x), one line each: key, time, seq, op, attributes, lineage offset, prune point. */
    private List<String> rows(EntitySpec spec, String relation) throws SQLException {
        return strings("SELECT concat_ws(' ', x.id, to_char(x.event_time AT TIME ZONE 'UTC', 'HH24:MI'), 'seq', x.seq, "
                + "CASE WHEN x.is_deleted THEN 'delete' ELSE 'upsert' END, coalesce(x.name, 'null'), coalesce(x.city, 'null'), "
                + "coalesce(x.last_login::text, 'null'), 'offset', x.source_offset, 'pruned_to', "
                + "coalesce(to_char(x.pruned_to AT TIME ZONE 'UTC', 'HH24:MI'), 'null')) FROM " + relation + " ORDER BY x.id, x.event_time");
    }

    private List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
