package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.h;
import static io.dimstream.db.write.Fixtures.up;
import static io.dimstream.db.write.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A source record is quarantined once (V011): a replay re-reading it with another seq
 * ({@link ArrivalSeq#ofReplay}) adds no second row, whatever became of the first (it still counts as
 * quarantined: judged beyond the horizon, kept once); without a Kafka lineage the same key, time
 * and content is the same record.
 */
class QuarantineOnceTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    private static final String REASON = "event_time 2025-01-01 03:00:00+00 is older than the newest event of its key "
            + "(2025-01-01 05:00:00+00) by more than the lateness horizon 01:00:00";

    @Test
    void aRecordTheLivePathQuarantinedIsNotQuarantinedAgainWhenAReplayRereadsIt() throws SQLException {
        EntitySpec spec = fresh();
        writer.apply(spec, List.of(up(1, 5, "P1", "Ann", "Oslo", 1L)));
        Event live = up(2, 3, "P1", "Ann", "Rome", 2L);
        assertThat(writer.apply(spec, List.of(live))).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        List<Row> once = quarantine(spec);
        assertThat(once).isEqualTo(List.of(new Row(spec.name(), "{\"id\": \"P1\"}", h(3),
                "{\"op\": \"upsert\", \"data\": {\"id\": \"P1\", \"city\": \"Rome\", \"name\": \"Ann\", \"last_login\": 2}}",
                2L, REASON, "people", 0, 2L, "pending")));

        // the replay: the same record (people-0@2) with the replay's seq, once alone and once among others
        Event reread = replayed(live, 2);
        ApplyResult r = writer.apply(spec, List.of(reread));
        ApplyResult again = writer.apply(spec, List.of(replayed(up(1, 5, "P1", "Ann", "Oslo", 1L), 1), reread));

        // judged beyond the horizon again (the count QuarantineActions.apply refuses by), kept once
        assertThat(r).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(again).isEqualTo(ApplyResult.builder().received(2).duplicates(1).quarantined(1).build());
        assertThat(quarantine(spec)).isEqualTo(once);
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 1L, 5, null)));
    }

    @Test
    void aRecordWhoseQuarantinedRowWasDiscardedIsNotQuarantinedAgain() throws SQLException {
        EntitySpec spec = fresh();
        writer.apply(spec, List.of(up(1, 5, "P1", "Ann", "Oslo", 1L)));
        Event live = up(2, 3, "P1", "Ann", "Rome", 2L);
        writer.apply(spec, List.of(live));
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "UPDATE dimstream.quarantine SET status = 'discarded', resolved_by = 'ann', resolved_at = now() WHERE entity = ?")) {
            p.setString(1, spec.name());
            p.executeUpdate();
        }

        ApplyResult r = writer.apply(spec, List.of(replayed(live, 2)));

        assertThat(r).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(quarantine(spec)).isEqualTo(List.of(new Row(spec.name(), "{\"id\": \"P1\"}", h(3),
                "{\"op\": \"upsert\", \"data\": {\"id\": \"P1\", \"city\": \"Rome\", \"name\": \"Ann\", \"last_login\": 2}}",
                2L, REASON, "people", 0, 2L, "discarded")));
    }

    @Test
    void withoutKafkaLineageTheSameContentIsQuarantinedOnceAndOtherContentAgain() throws SQLException {
        EntitySpec spec = fresh();
        writer.apply(spec, List.of(up(1, 5, "P1", "Ann", "Oslo", 1L)));
        Event fromFile = line(up(10, 3, "P1", "Ann", "Rome", 2L), "f.jsonl", 7);

        ApplyResult first = writer.apply(spec, List.of(fromFile));
        ApplyResult sameLoadedAgain = writer.apply(spec, List.of(line(up(11, 3, "P1", "Ann", "Rome", 2L), "f.jsonl", 7)));
        ApplyResult otherContent = writer.apply(spec, List.of(line(up(12, 3, "P1", "Ann", "Bern", 2L), "f.jsonl", 7)));

        assertThat(first).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(sameLoadedAgain).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(otherContent).isEqualTo(ApplyResult.builder().received(1).quarantined(1).build());
        assertThat(quarantine(spec)).isEqualTo(List.of(
                new Row(spec.name(), "{\"id\": \"P1\"}", h(3),
                        "{\"op\": \"upsert\", \"data\": {\"id\": \"P1\", \"city\": \"Rome\", \"name\": \"Ann\", \"last_login\": 2}}",
                        10L, REASON, "file:f.jsonl", null, 7L, "pending"),
                new Row(spec.name(), "{\"id\": \"P1\"}", h(3),
                        "{\"op\": \"upsert\", \"data\": {\"id\": \"P1\", \"city\": \"Bern\", \"name\": \"Ann\", \"last_login\": 2}}",
                        12L, REASON, "file:f.jsonl", null, 7L, "pending")));
    }

    private static Event replayed(Event e, long offset) {
        return new Event(e.op(), e.eventTime(), e.data(), ArrivalSeq.ofReplay(offset).value(), e.source(), e.badTimeReason());
    }

    private static Event line(Event e, String file, long lineNo) {
        return new Event(e.op(), e.eventTime(), e.data(), e.seq(), Source.line(file, lineNo), e.badTimeReason());
    }

    /** One row of dimstream.quarantine; the event without its event_time (compared in its own column). */
    record Row(String entity, String eventKey, Instant eventTime, String event, long seq, String reason, String sourceTopic,
               Integer sourcePartition, Long sourceOffset, String status) {
    }

    private List<Row> quarantine(EntitySpec spec) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT entity, event_key::text, event_time, (event - 'event_time')::text, seq, "
                     + "reason, source_topic, source_partition, source_offset, status FROM dimstream.quarantine WHERE entity = ? ORDER BY id")) {
            p.setString(1, spec.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs.getString(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class).toInstant(), rs.getString(4),
                            rs.getLong(5), rs.getString(6), rs.getString(7), (Integer) rs.getObject(8), (Long) rs.getObject(9),
                            rs.getString(10)));
                }
            }
        }
        return rows;
    }

    private EntitySpec fresh() throws SQLException {
        String table = Fixtures.uniqueTable("qonce");
        EntitySpec spec = Fixtures.people(table, table, Optional.of(Duration.ofHours(1)));
        EntityTables.ensure(ds, spec);
        return spec;
    }

}
