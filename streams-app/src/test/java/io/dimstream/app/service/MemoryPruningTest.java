package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.retention.HistoryRetainer;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.MemoryPruner;
import io.dimstream.db.write.Scd2Writer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * One turn of the prune schedule on real PostgreSQL, at the database's own clock: an entity with
 * {@code history-retention} and {@code history-grain} loses what they retire and counts it in
 * {@code dimstream_versions_retired_total{entity,cause}}; an entity without them is left alone and
 * gets no counter.
 */
class MemoryPruningTest {

    private final DataSource ds = TestPostgres.dataSource();

    @Test
    void aTurnRetiresTheHistoryOfEntitiesWithRetentionAndCountsItByCause() throws SQLException {
        Instant now = Instant.now().truncatedTo(ChronoUnit.DAYS);
        HistoryRetention r = new HistoryRetention(Optional.of(IsoSpan.parse("P1Y")), Optional.of(Duration.ofDays(1)),
                Optional.of(IsoSpan.parse("P30D")));
        EntitySpec retained = entity("prune_turn_r", r);
        EntitySpec all = entity("prune_turn_all", HistoryRetention.NONE);
        // K1: a version ended two years ago (retired), one within a day 60 days ago valid at no midnight (thinned), one open
        Instant old = now.minus(800, ChronoUnit.DAYS);
        Instant d60 = now.minus(60, ChronoUnit.DAYS);
        List<Event> feed = List.of(up(1, old, "A"), up(2, old.plus(10, ChronoUnit.DAYS), "B"), up(3, d60.plus(2, ChronoUnit.HOURS), "C"),
                up(4, d60.plus(5, ChronoUnit.HOURS), "D"), up(5, d60.plus(30, ChronoUnit.HOURS), "E"));
        Scd2Writer writer = new Scd2Writer(ds);
        writer.apply(retained, feed);
        writer.apply(all, feed);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        MemoryPruning.prune(new MemoryPruner(ds), new HistoryRetainer(ds), EntityShapes.of(ds, retained, all), registry);

        assertThat(cities(retained)).isEqualTo(List.of(
                "B " + old.plus(10, ChronoUnit.DAYS) + " " + d60.plus(5, ChronoUnit.HOURS),
                "D " + d60.plus(5, ChronoUnit.HOURS) + " " + d60.plus(30, ChronoUnit.HOURS),
                "E " + d60.plus(30, ChronoUnit.HOURS) + " open"));
        assertThat(cities(all)).hasSize(5);
        assertThat(registry.get(MemoryPruning.RETIRED).tag("entity", retained.name()).tag("cause", "retention").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(MemoryPruning.RETIRED).tag("entity", retained.name()).tag("cause", "grain").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(MemoryPruning.RETIRED).tag("entity", retained.name()).tag("cause", "superseded").counter().count()).isEqualTo(0.0);
        assertThat(registry.find(MemoryPruning.RETIRED).tag("entity", all.name()).counters()).isEmpty();
    }

    @Test
    void aTurnTheStopCutsShortEndsQuietlyWhileAFailureOtherwiseIsWarnedAndTheNextEntityTried() throws SQLException {
        EntitySpec first = entity("prune_stop_a", HistoryRetention.NONE, Optional.of(Duration.ofDays(30)));
        EntitySpec second = entity("prune_stop_b", HistoryRetention.NONE, Optional.of(Duration.ofDays(30)));
        com.zaxxer.hikari.HikariDataSource closed = new com.zaxxer.hikari.HikariDataSource();
        closed.setJdbcUrl(TestPostgres.jdbcUrl());
        closed.close(); // as the pool is when the service's stop closes it under a running turn
        EntityShapes shapes = EntityShapes.of(ds, first, second);

        String failing = logOf(() -> MemoryPruning.prune(new MemoryPruner(closed), new HistoryRetainer(closed), shapes,
                new SimpleMeterRegistry(), () -> false));
        String stopping = logOf(() -> MemoryPruning.prune(new MemoryPruner(closed), new HistoryRetainer(closed), shapes,
                new SimpleMeterRegistry(), () -> true));

        assertThat(failing.lines().filter(l -> l.contains("WARN")).map(l -> l.replaceFirst("^.*WARN ", "").replaceFirst(": .*$", ""))
                .toList()).containsExactlyInAnyOrder( // the turn takes the entities in EntityShapes' order, a set's
                        "io.dimstream.app.service.MemoryPruning - pruning the event memory of prune_stop_a failed (will retry)",
                        "io.dimstream.app.service.MemoryPruning - pruning the event memory of prune_stop_b failed (will retry)");
        assertThat(stopping).doesNotContain("WARN").doesNotContain("failed");
    }

    /** What the turn logged: slf4j-simple writes to System.err. */
    private static String logOf(Runnable turn) {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        try {
            turn.run();
        } finally {
            System.setErr(original);
        }
        return err.toString();
    }

    private EntitySpec entity(String table, HistoryRetention r) throws SQLException {
        return entity(table, r, Optional.empty());
    }

    private EntitySpec entity(String table, HistoryRetention r, Optional<Duration> latenessHorizon) throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        EntitySpec spec = EntitySpec.builder().name(table).table(table).key(List.of("id")).tracked(List.of("city")).columns(cols)
                .latenessHorizon(latenessHorizon).retention(r).build();
        EntityTables.ensure(ds, spec);
        return spec;
    }

    private static Event up(long seq, Instant t, String city) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "K1");
        data.put("city", city);
        return Event.upsert(t, data, seq, Source.kafka("t", 0, seq));
    }

    /** Each version: city, valid_from, valid_to or "open". */
    private List<String> cities(EntitySpec e) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT city, valid_from, valid_to FROM " + Sql.table(e.table()) + " ORDER BY valid_from")) {
            while (rs.next()) {
                OffsetDateTime to = rs.getObject(3, OffsetDateTime.class);
                out.add(rs.getString(1) + " " + rs.getObject(2, OffsetDateTime.class).toInstant() + " "
                        + (to == null ? "open" : to.toInstant().toString()));
            }
        }
        return out;
    }
}
