package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.del;
import static io.dimstream.db.write.Fixtures.deleted;
import static io.dimstream.db.write.Fixtures.h;
import static io.dimstream.db.write.Fixtures.up;
import static io.dimstream.db.write.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Named cases of DESIGN section 3 through the real writer, each with the whole expected table. */
class WriterBehaviourTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final MemoryPruner pruner = new MemoryPruner(ds);

    @Test
    void lateEventInsideVersionSplitsIt() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 5, "P1", "Ann", "Rome", 2L)));

        writer.apply(spec, List.of(up(3, 3, "P1", "Ann", "Bern", 3L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 3, 5),
                version("P1", "Ann", "Rome", 2L, 5, null)));
    }

    @Test
    void lateEventBeforeReassertionEndsWhereReassertionBegins() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        writer.apply(spec, List.of(up(2, 5, "P1", "Ann", "Oslo", 2L)));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 2L, 1, null)));

        writer.apply(spec, List.of(up(3, 3, "P1", "Ann", "Bern", 3L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 3, 5),
                version("P1", "Ann", "Oslo", 2L, 5, null)));
    }

    @Test
    void type1ChangeOverwritesInPlace() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        writer.apply(spec, List.of(up(2, 2, "P1", "Ann", "Oslo", 9L)));

        List<EntityTableReader.StoredRow> after = EntityTableReader.withSurrogateKeys(ds, spec);
        assertThat(after).isEqualTo(List.of(new EntityTableReader.StoredRow(
                version("P1", "Ann", "Oslo", 9L, 1, null), before.get(0).surrogateKey())));
    }

    @Test
    void deleteThenResurrection() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        writer.apply(spec, List.of(del(2, 2, "P1")));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, null)));

        writer.apply(spec, List.of(up(3, 4, "P1", "Ann", "Oslo", 4L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, 4),
                version("P1", "Ann", "Oslo", 4L, 4, null)));
    }

    @Test
    void deleteOfUnknownKeyLeavesNoRowButIsRemembered() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(del(1, 5, "P1")));
        assertThat(EntityTableReader.rows(ds, spec)).isEmpty();

        writer.apply(spec, List.of(up(2, 3, "P1", "Ann", "Oslo", 1L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 3, 5),
                deleted("P1", "Ann", "Oslo", 1L, 5, null)));
    }

    @Test
    void exactDuplicateIsIgnored() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        Event first = up(1, 1, "P1", "Ann", "Oslo", 1L);
        Event second = up(2, 2, "P1", "Ann", "Rome", 2L);
        writer.apply(spec, List.of(first, second));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        ApplyResult again = writer.apply(spec, List.of(first));
        ApplyResult twiceInOneBatch = writer.apply(spec, List.of(second, second));

        assertThat(again).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        assertThat(twiceInOneBatch).isEqualTo(ApplyResult.builder().received(2).duplicates(2).build());
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Rome", 2L, 2, null)));
    }

    @Test
    void sameTimeTieLaterArrivalWins() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        Event earlierArrival = up(1, 1, "P1", "Ann", "Oslo", 1L);
        Event laterArrival = up(2, 1, "P1", "Ann", "Rome", 2L);
        writer.apply(spec, List.of(laterArrival));

        writer.apply(spec, List.of(earlierArrival));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Rome", 2L, 1, null)));

        writer.apply(spec, List.of(del(3, 1, "P1")));
        assertThat(EntityTableReader.rows(ds, spec)).isEmpty();
    }

    @Test
    void sameTimeTieLaterArrivalWinsInOneBatch() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());

        writer.apply(spec, List.of(up(2, 1, "P1", "Ann", "Rome", 2L), up(1, 1, "P1", "Ann", "Oslo", 1L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Rome", 2L, 1, null)));
    }

    @Test
    void sameTimeTieReplacingTheNewestEventCanMergeItIntoThePreviousVersion() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        writer.apply(spec, List.of(up(2, 2, "P1", "Ann", "Rome", 2L)));

        writer.apply(spec, List.of(up(3, 2, "P1", "Ann", "Oslo", 3L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 3L, 1, null)));
    }

    @Test
    void sameTimeTieReplacingTheNewestUpsertByADeleteLeavesADeletedRowWithThePreviousAttributes() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        writer.apply(spec, List.of(up(2, 2, "P1", "Ann", "Rome", 2L)));

        writer.apply(spec, List.of(del(3, 2, "P1")));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, null)));
    }

    /**
     * The latest arrival wins even when it repeats the content of an earlier one: seq 5 and 7 say
     * Oslo, seq 6 says Rome, all at one time, so the key is at Oslo whatever the delivery order.
     */
    @Test
    void sameTimeTieLaterArrivalWinsEvenWhenItRepeatsAnEarlierArrivalsContent() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        Event seq5 = up(5, 1, "P1", "Ann", "Oslo", 1L);
        Event seq7 = up(7, 1, "P1", "Ann", "Oslo", 1L);
        Event seq6 = up(6, 1, "P1", "Ann", "Rome", 1L);

        writer.apply(spec, List.of(seq5));
        writer.apply(spec, List.of(seq7));
        writer.apply(spec, List.of(seq6));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 1L, 1, null)));
    }

    @Test
    void eventBeyondHorizonIsQuarantinedWithReason() throws SQLException {
        EntitySpec spec = freshPeople(Optional.of(Duration.ofHours(1)));
        writer.apply(spec, List.of(up(1, 5, "P1", "Ann", "Oslo", 1L)));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        ApplyResult result = writer.apply(spec, List.of(up(2, 3, "P1", "Ann", "Rome", 2L)));

        assertThat(result).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "P1");
        data.put("name", "Ann");
        data.put("city", "Rome");
        data.put("last_login", 2);
        assertThat(quarantine(spec)).isEqualTo(List.of(new QuarantineRow(spec.name(), Map.of("id", "P1"), h(3),
                Map.of("op", "upsert", "data", data), 2L,
                "event_time 2025-01-01 03:00:00+00 is older than the newest event of its key (2025-01-01 05:00:00+00)"
                        + " by more than the lateness horizon 01:00:00",
                "people", 0, 2L, "pending")));
    }

    @Test
    void eventExactlyAtTheHorizonIsAppliedNotQuarantined() throws SQLException {
        EntitySpec spec = freshPeople(Optional.of(Duration.ofHours(1)));
        writer.apply(spec, List.of(up(1, 5, "P1", "Ann", "Oslo", 1L)));

        ApplyResult result = writer.apply(spec, List.of(up(2, 4, "P1", "Ann", "Rome", 2L)));

        assertThat(result).isEqualTo(ApplyResult.builder().received(1).late(1).rowsInserted(1).build());
        assertThat(quarantine(spec)).isEmpty();
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Rome", 2L, 4, 5),
                version("P1", "Ann", "Oslo", 1L, 5, null)));
    }

    @Test
    void redeliveryOfAnAppliedEventBeyondTheHorizonIsADuplicateNotQuarantined() throws SQLException {
        EntitySpec spec = freshPeople(Optional.of(Duration.ofHours(1)));
        Event old = up(1, 1, "P1", "Ann", "Oslo", 1L);
        writer.apply(spec, List.of(old, up(2, 5, "P1", "Ann", "Rome", 2L)));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        ApplyResult replay = writer.apply(spec, List.of(old));

        assertThat(replay).isEqualTo(ApplyResult.builder().received(1).duplicates(1).build());
        assertThat(quarantine(spec)).isEmpty();
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(before.stream().map(EntityTableReader.StoredRow::row).toList()).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 5),
                version("P1", "Ann", "Rome", 2L, 5, null)));
    }

    @Test
    void pruningLeavesTheTableAndLatePlacementWithinTheHorizonExact() throws SQLException {
        EntitySpec spec = freshPeople(Optional.of(Duration.ofHours(2)));
        writer.apply(spec, List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 2, "P1", "Ann", "Rome", 2L),
                up(3, 3, "P1", "Ann", "Rome", 3L),
                up(4, 10, "P1", "Ann", "Bern", 4L)));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        pruner.prune(spec);
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        writer.apply(spec, List.of(up(5, 9, "P1", "Ann", "Rome", 5L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Rome", 5L, 2, 10),
                version("P1", "Ann", "Bern", 4L, 10, null)));
    }

    @Test
    void eventAtOrBeforeThePrunePointIsQuarantinedWhenTheHorizonIsWidened() throws SQLException {
        EntitySpec narrow = freshPeople(Optional.of(Duration.ofHours(2)));
        writer.apply(narrow, List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 3, "P1", "Ann", "Rome", 2L),
                up(3, 10, "P1", "Ann", "Bern", 3L)));
        pruner.prune(narrow);
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, narrow);
        EntitySpec wide = Fixtures.people(narrow.name(), narrow.table(), Optional.of(Duration.ofDays(30)));

        ApplyResult result = writer.apply(wide, List.of(up(4, 2, "P1", "Ann", "Lima", 4L)));

        assertThat(result).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(EntityTableReader.withSurrogateKeys(ds, wide)).isEqualTo(before);
        assertThat(quarantine(wide)).isEqualTo(List.of(new QuarantineRow(wide.name(), Map.of("id", "P1"), h(2),
                Map.of("op", "upsert", "data", Map.of("id", "P1", "name", "Ann", "city", "Lima", "last_login", 4)), 4L,
                "event_time 2025-01-01 02:00:00+00 is at or before the prune point 2025-01-01 03:00:00+00 of its key:"
                        + " history before it is no longer remembered",
                "people", 0, 4L, "pending")));
    }

    @Test
    void onAPartitionedEntityPruningAndThePrunePointWorkAsOnAPlainTable() throws SQLException {
        String table = Fixtures.uniqueTable("people_hp");
        EntitySpec narrow = Fixtures.people(table, table, Optional.of(Duration.ofHours(2))).toBuilder().tablePartitions(4).build();
        EntityTables.ensure(ds, narrow);
        writer.apply(narrow, List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 3, "P1", "Ann", "Rome", 2L),
                up(3, 10, "P1", "Ann", "Bern", 3L),
                up(4, 1, "P2", "Bob", "Kyiv", 1L),
                up(5, 10, "P2", "Bob", "Lima", 2L)));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, narrow);

        // each key keeps its latest event before the cut (its newest minus 2 h) as the anchor: P1's at 3, P2's at 1;
        // only P1's event at 1 goes
        assertThat(pruner.prune(narrow)).isEqualTo(1);
        assertThat(EntityTableReader.withSurrogateKeys(ds, narrow)).isEqualTo(before);
        EntitySpec wide = narrow.withLatenessHorizon(Optional.of(Duration.ofDays(30)));
        ApplyResult result = writer.apply(wide, List.of(up(6, 2, "P1", "Ann", "Lima", 4L), up(7, 9, "P2", "Bob", "Rome", 5L)));

        assertThat(result.quarantined()).isEqualTo(1);
        assertThat(quarantine(wide)).isEqualTo(List.of(new QuarantineRow(wide.name(), Map.of("id", "P1"), h(2),
                Map.of("op", "upsert", "data", Map.of("id", "P1", "name", "Ann", "city", "Lima", "last_login", 4)), 6L,
                "event_time 2025-01-01 02:00:00+00 is at or before the prune point 2025-01-01 03:00:00+00 of its key:"
                        + " history before it is no longer remembered",
                "people", 0, 6L, "pending")));
        assertThat(EntityTableReader.rows(ds, wide)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Rome", 2L, 3, 10),
                version("P1", "Ann", "Bern", 3L, 10, null),
                version("P2", "Bob", "Kyiv", 1L, 1, 9),
                version("P2", "Bob", "Rome", 5L, 9, 10),
                version("P2", "Bob", "Lima", 2L, 10, null)));
    }

    @Test
    void applyResultCountsEveryEventOnceAndTheRowsTheTableSaw() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        Event bad = up(9, 2, null, "Eve", "Nice", null);

        ApplyResult first = writer.apply(spec, List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),   // new key
                up(2, 2, "P1", "Ann", "Oslo", 2L),   // unchanged: a re-assertion
                up(3, 3, "P1", "Ann", "Rome", 2L),   // changed
                del(4, 4, "P1"),                     // deleted
                del(5, 5, "P1"),                     // unchanged: a repeated delete
                up(6, 6, "P1", "Ann", "Rome", 3L),   // changed: a resurrection
                up(7, 1, "P2", "Bob", "Bern", null), // new key
                del(8, 1, "P3"),                     // deleted: a key with no earlier event
                up(1, 1, "P1", "Ann", "Oslo", 1L),   // duplicate: delivered twice in the batch
                bad));                               // rejected

        assertThat(first).isEqualTo(ApplyResult.builder()
                .received(10)
                .newKeys(2)
                .changed(2)
                .deleted(2)
                .unchanged(2)
                .duplicates(1)
                .rejected(List.of(new Rejection(bad.source(), "key column 'id' is NULL")))
                .rowsInserted(5)
                .build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 2L, 1, 3),
                version("P1", "Ann", "Rome", 2L, 3, 4),
                deleted("P1", "Ann", "Rome", 2L, 4, 6),
                version("P1", "Ann", "Rome", 3L, 6, null),
                version("P2", "Bob", "Bern", null, 1, null)));

        ApplyResult second = writer.apply(spec, List.of(
                up(10, 0, "P1", "Ann", "Lima", 0L),  // late: a new first version
                up(3, 3, "P1", "Ann", "Rome", 2L),   // duplicate: a re-delivery
                up(11, 7, "P2", "Bob", "Bern", 5L),  // unchanged: type-1 only, updated in place
                up(12, 2, "P1", "Ann", "Oslo", 9L))); // late: wins the tie at hour 2, type-1 of the first version

        assertThat(second).isEqualTo(ApplyResult.builder().received(4).unchanged(1).late(2).duplicates(1).rowsInserted(1).rowsUpdated(2).build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Lima", 0L, 0, 1),
                version("P1", "Ann", "Oslo", 9L, 1, 3),
                version("P1", "Ann", "Rome", 2L, 3, 4),
                deleted("P1", "Ann", "Rome", 2L, 4, 6),
                version("P1", "Ann", "Rome", 3L, 6, null),
                version("P2", "Bob", "Bern", 5L, 1, null)));
    }

    /** One row of dimstream.quarantine, jsonb columns as maps. */
    record QuarantineRow(String entity, Map<String, Object> eventKey, Instant eventTime, Map<String, Object> event, long seq,
                         String reason, String sourceTopic, Integer sourcePartition, Long sourceOffset, String status) {
    }

    private List<QuarantineRow> quarantine(EntitySpec spec) throws SQLException {
        List<QuarantineRow> rows = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT entity, event_key::text, event_time, event::text, seq, reason, "
                     + "source_topic, source_partition, source_offset, status FROM dimstream.quarantine WHERE entity = ? ORDER BY id")) {
            p.setString(1, spec.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> event = json(rs.getString(4));
                    event.remove("event_time"); // its text form is PostgreSQL's; the event_time column is compared instead
                    rows.add(new QuarantineRow(rs.getString(1), json(rs.getString(2)),
                            rs.getObject(3, OffsetDateTime.class).toInstant(), event, rs.getLong(5), rs.getString(6),
                            rs.getString(7), (Integer) rs.getObject(8), (Long) rs.getObject(9), rs.getString(10)));
                }
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        try {
            return new ObjectMapper().readValue(text, LinkedHashMap.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aChangeGetsItsVersionWhenTheKeysOpenVersionWasClosedOutsideTheWriter() throws SQLException {
        EntitySpec spec = freshPeople(Optional.empty());
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 1, "P2", "Bob", "Rome", 2L)));
        // closed by hand (a user's UPDATE): the close of the next change finds no open version
        // of P1, and its successor must still be written, as for P2, whose open version it closes
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "UPDATE " + spec.table() + " SET valid_to = ? WHERE id = 'P1'")) {
            p.setObject(1, OffsetDateTime.ofInstant(h(3), ZoneOffset.UTC));
            assertThat(p.executeUpdate()).isEqualTo(1);
        }

        writer.apply(spec, List.of(up(3, 5, "P1", "Ann", "Bern", 3L), up(4, 5, "P2", "Bob", "Pisa", 4L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 5, null),
                version("P2", "Bob", "Rome", 2L, 1, 5),
                version("P2", "Bob", "Pisa", 4L, 5, null)));
    }

    private EntitySpec freshPeople(Optional<Duration> horizon) throws SQLException {
        String table = Fixtures.uniqueTable("people");
        EntitySpec spec = Fixtures.people(table, table, horizon);
        EntityTables.ensure(ds, spec);
        return spec;
    }
}
