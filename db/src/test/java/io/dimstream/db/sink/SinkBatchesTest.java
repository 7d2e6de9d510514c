package io.dimstream.db.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class SinkBatchesTest {

    static final DataSource DS = TestPostgres.dataSource();

    static SinkBatch batch(String entity, int partition, int events, ApplyResult r, int rejected, long ms, Long lag) {
        return new SinkBatch("g", entity, "dimstream." + entity + ".changes", partition, 0, events, events, r, rejected, ms, lag);
    }

    @Test
    void summarySumsTheWindowAndTakesTheNewestBatchAndEachPartitionsNewestLag() throws Exception {
        try (Connection c = DS.getConnection()) {
            SinkBatches.record(c, batch("sb_x", 0, 3, ApplyResult.builder().received(3).newKeys(1).changed(1).deleted(1)
                    .rowsInserted(4).rowsUpdated(2).build(), 0, 10, 9L));
            SinkBatches.record(c, batch("sb_x", 0, 4, ApplyResult.builder().received(4).unchanged(1).late(1).erased(2)
                    .rowsInserted(1).rowsUpdated(1).build(), 0, 11, 4L));
            SinkBatches.record(c, batch("sb_x", 1, 5, ApplyResult.builder().received(4).changed(2).duplicates(1).quarantined(1)
                    .rowsInserted(2).rowsUpdated(2).build(), 1, 7, 6L));
            // two hours ago: outside the window's sums, but it is not the newest either
            try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.sink_batches SET finished_at = finished_at - interval '2 hours' "
                    + "WHERE entity = 'sb_x' AND events = 3")) {
                assertThat(p.executeUpdate()).isEqualTo(1);
            }
        }
        Instant since;
        Instant newest;
        try (Connection c = DS.getConnection(); var s = c.createStatement();
             var rs = s.executeQuery("SELECT now() - interval '1 hour', max(finished_at) FROM dimstream.sink_batches WHERE entity = 'sb_x'")) {
            rs.next();
            since = rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
            newest = rs.getObject(2, java.time.OffsetDateTime.class).toInstant();
        }
        SinkBatches.Summary s = SinkBatches.summary(DS, "sb_x", since);
        assertThat(s).isEqualTo(new SinkBatches.Summary("sb_x", since, 2, 9, 0, 2, 0, 1, 1, 1, 1, 1, 2,
                Optional.of(newest), Optional.of(5), Optional.of(7), 10L));
        // the dashboard's and the demo summary's map: every class, in the dashboard's order, adding up to the events
        assertThat(s.byClass()).containsExactly(entry("new", 0L), entry("changed", 2L), entry("deleted", 0L), entry("unchanged", 1L),
                entry("late", 1L), entry("duplicate", 1L), entry("quarantined", 1L), entry("rejected", 1L), entry("erased", 2L));
        assertThat(SinkBatches.summary(DS, "sb_none", since)).isEqualTo(new SinkBatches.Summary("sb_none", since, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, Optional.empty(), Optional.empty(), Optional.empty(), null));
        // erased only when there are some (the dashboard's table keeps its width)
        assertThat(SinkBatches.summary(DS, "sb_none", since).byClass()).containsExactly(entry("new", 0L), entry("changed", 0L),
                entry("deleted", 0L), entry("unchanged", 0L), entry("late", 0L), entry("duplicate", 0L), entry("quarantined", 0L),
                entry("rejected", 0L));
    }
}
