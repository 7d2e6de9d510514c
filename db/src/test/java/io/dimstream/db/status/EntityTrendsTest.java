package io.dimstream.db.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.status.EntityTrends.Bucket;
import io.dimstream.db.status.EntityTrends.Window;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class EntityTrendsTest {

    static final DataSource DS = TestPostgres.dataSource();

    static final Instant END = Instant.parse("2026-01-01T12:00:00Z");

    static Bucket zero(Instant start) {
        return new Bucket(start, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, 0, 0);
    }

    @Test
    void bucketsTheWindowWithZerosWhereNothingHappened() throws Exception {
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            String batch = "INSERT INTO dimstream.sink_batches (consumer_group, entity, topic, partition, first_offset, next_offset, "
                    + "finished_at, events, new_keys, changed, deleted, unchanged, late, duplicates, quarantined, rejected, "
                    + "rows_inserted, rows_updated, rows_deleted, apply_ms, lag) VALUES ";
            // bucket 0 [11:00, 11:02): two batches on two partitions
            s.execute(batch + "('g', 'tr_x', 't', 0, 0, 3, '2026-01-01T11:00:00Z', 3, 1, 1, 1, 0, 0, 0, 0, 0, 4, 2, 0, 10, 9)");
            s.execute(batch + "('g', 'tr_x', 't', 1, 0, 5, '2026-01-01T11:01:59.999Z', 5, 0, 2, 0, 1, 0, 1, 1, 1, 2, 2, 1, 30, 4)");
            // bucket 0 again, a third batch: the median of 10, 30, 20 is 20
            s.execute(batch + "('g', 'tr_x', 't', 1, 5, 6, '2026-01-01T11:01:00Z', 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 20, NULL)");
            // bucket 29 [11:58, 12:00): no lag recorded
            s.execute(batch + "('g', 'tr_x', 't', 0, 3, 4, '2026-01-01T11:59:00Z', 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 7, NULL)");
            // outside the window on each side, and another entity
            s.execute(batch + "('g', 'tr_x', 't', 0, 0, 1, '2026-01-01T10:59:59Z', 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1)");
            s.execute(batch + "('g', 'tr_x', 't', 0, 0, 1, '2026-01-01T12:00:00Z', 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1)");
            s.execute(batch + "('g', 'tr_y', 't', 0, 0, 1, '2026-01-01T11:30:00Z', 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1)");
            String dlq = "INSERT INTO dimstream.dlq_records (entity, dlq_topic, dlq_partition, dlq_offset, record_timestamp, received_at) VALUES ";
            // bucket 5 [11:10, 11:12) by its record timestamp though mirrored later; bucket 6 by the mirror time
            s.execute(dlq + "('tr_x', 't.dlq', 0, 0, '2026-01-01T11:10:30Z', '2026-01-01T11:40:00Z')");
            s.execute(dlq + "('tr_x', 't.dlq', 0, 1, '2026-01-01T11:11:30Z', '2026-01-01T11:40:00Z')");
            s.execute(dlq + "('tr_x', 't.dlq', 0, 2, NULL, '2026-01-01T11:12:00Z')");
            s.execute(dlq + "('tr_y', 'y.dlq', 0, 0, '2026-01-01T11:10:30Z', '2026-01-01T11:40:00Z')");
            String q = "INSERT INTO dimstream.quarantine (entity, event_key, event_time, event, seq, reason, quarantined_at, status) VALUES ";
            s.execute(q + "('tr_x', '{\"id\": 1}', '2025-12-01T00:00:00Z', '{}', 1, 'late', '2026-01-01T11:20:00Z', 'pending')");
            s.execute(q + "('tr_x', '{\"id\": 2}', '2025-12-01T00:00:00Z', '{}', 1, 'late', '2026-01-01T11:21:00Z', 'applied')");
        }

        List<Bucket> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add(zero(END.minusSeconds(3600).plusSeconds(120L * i)));
        }
        Instant t0 = Instant.parse("2026-01-01T11:00:00Z");
        expected.set(0, new Bucket(t0, 3, 1, 3, 1, 1, 1, 1, 1, 1, 13, 9L, 20, 30, 0, 0));
        expected.set(5, new Bucket(Instant.parse("2026-01-01T11:10:00Z"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, 2, 0));
        expected.set(6, new Bucket(Instant.parse("2026-01-01T11:12:00Z"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, 1, 0));
        expected.set(10, new Bucket(Instant.parse("2026-01-01T11:20:00Z"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, 0, 2));
        expected.set(29, new Bucket(Instant.parse("2026-01-01T11:58:00Z"), 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, null, 7, 7, 0, 0));

        assertThat(EntityTrends.of(DS, "tr_x", Window.H1, END)).containsExactlyElementsOf(expected);

        List<Bucket> none = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            none.add(zero(END.minusSeconds(3600).plusSeconds(120L * i)));
        }
        assertThat(EntityTrends.of(DS, "tr_none", Window.H1, END)).containsExactlyElementsOf(none);
        // the first and the last batch of each entity, whatever window: where the dashboard's default window goes
        assertThat(EntityTrends.activity(DS, "tr_x")).contains(
                new EntityTrends.Activity(Instant.parse("2026-01-01T10:59:59Z"), Instant.parse("2026-01-01T12:00:00Z")));
        assertThat(EntityTrends.activity(DS, "tr_y")).contains(
                new EntityTrends.Activity(Instant.parse("2026-01-01T11:30:00Z"), Instant.parse("2026-01-01T11:30:00Z")));
        assertThat(EntityTrends.activity(DS, "tr_none")).isEmpty();
    }

    @Test
    void windowsAreNamedAndAlignedOnTheirBuckets() {
        assertThat(Window.parse(null)).isEqualTo(Window.H24);
        assertThat(Window.parse("7d")).isEqualTo(Window.D7);
        assertThatThrownBy(() -> Window.parse("2h")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window: '2h' is not one of 15m, 1h, 6h, 24h, 7d");
        assertThat(Window.H24.endFor(Instant.parse("2026-01-01T11:07:12Z"))).isEqualTo(Instant.parse("2026-01-01T11:15:00Z"));
        assertThat(Window.H24.endFor(Instant.parse("2026-01-01T11:15:00Z"))).isEqualTo(Instant.parse("2026-01-01T11:30:00Z"));
        assertThat(Window.D7.endFor(Instant.parse("2026-01-01T11:07:12Z"))).isEqualTo(Instant.parse("2026-01-01T12:00:00Z"));
    }
}
