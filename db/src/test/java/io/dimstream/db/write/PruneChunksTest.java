package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.dimstream.db.retention.HistoryRetainer;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The event memory's pruning a chunk of keys at a time gives exactly what one statement over every
 * key gives: two twin tables fed alike (a composite key of text and integer, so key order is not
 * the order of the keys as text; late events, re-assertions, deletes, random batches), history
 * retention run on both (it moves some keys' prune points to its horizon, past their anchors), then
 * one pruned in chunks of 3 keys (several chunks, a bound inside a region), the other in one chunk
 * (the whole-table statement); their tables, memories and counts compared whole, real PostgreSQL.
 */
class PruneChunksTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final List<String> REGIONS = List.of("a", "b", "c", "d");
    private static final Instant B_END = Instant.parse("2025-01-21T00:00:00Z");
    private static final List<Integer> NUMBERS = List.of(1, 2, 10, 11, 100);

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void aPruneInChunksOfKeysLeavesExactlyWhatAPruneOfTheWholeTableLeaves() throws SQLException {
        Random rnd = new Random(34);
        EntitySpec chunked = entity("prune_chunked", Optional.empty());
        EntitySpec whole = entity("prune_whole", Optional.empty());
        List<Event> feed = feed(rnd, 12, Instant.parse("2023-07-01T00:00:00Z"), NOW);
        for (int i = 0; i < feed.size(); ) {
            int n = Math.min(feed.size() - i, 1 + rnd.nextInt(40));
            writer.apply(chunked, feed.subList(i, i + n));
            writer.apply(whole, feed.subList(i, i + n));
            i += n;
        }
        new HistoryRetainer(ds, 4).retain(chunked, NOW);
        new HistoryRetainer(ds, 4).retain(whole, NOW);
        assertThat(rows(chunked)).isEqualTo(rows(whole));
        assertThat(memory(chunked)).isEqualTo(memory(whole));
        // region b's events end 20 days after the retention horizon: its lateness anchors are before
        // the horizon, so those keys keep the prune point retention gave them (and lose nothing more)
        List<String> retainedPoints = prunePoints(whole).stream().filter(p -> p.startsWith("b ")).toList();
        assertThat(retainedPoints).as("keys whose prune point retention moved").hasSizeGreaterThan(3)
                .allMatch(p -> p.endsWith(" 2025-01-01 00:00:00+00"));

        Optional<Duration> horizon = Optional.of(Duration.ofDays(30));
        long removedInChunks = new MemoryPruner(ds, 3).prune(entity("prune_chunked", horizon));
        long removedAtOnce = new MemoryPruner(ds, Integer.MAX_VALUE).prune(entity("prune_whole", horizon));

        assertThat(removedInChunks).isEqualTo(removedAtOnce).isGreaterThan(40);
        assertThat(rows(chunked)).isEqualTo(rows(whole));
        assertThat(memory(chunked)).isEqualTo(memory(whole));
        // every key got a prune point; those retention had moved past the lateness anchor kept theirs
        List<String> points = prunePoints(whole);
        assertThat(points).hasSize(REGIONS.size() * NUMBERS.size()).containsAll(retainedPoints);
        assertThat(points.stream().filter(p -> !p.endsWith(" 2025-01-01 00:00:00+00"))).as("keys the lateness pruning moved").hasSizeGreaterThan(10);
        assertThat(new MemoryPruner(ds, 3).prune(entity("prune_chunked", horizon))).as("pruned again: nothing more").isZero();
        assertThat(memory(chunked)).isEqualTo(memory(whole));
    }

    @Test
    void chunkBoundsFallOnTheLastKeyAndBeyondTheLastKey() throws SQLException {
        // 20 keys in chunks of 4, 5 and 20 (the last chunk's bound is the last key, then an empty
        // chunk), 7 and 21 (a short last chunk, no bound at all): each as the whole-table prune
        Random rnd = new Random(7);
        Optional<Duration> horizon = Optional.of(Duration.ofDays(30));
        List<Event> feed = feed(rnd, 6, Instant.parse("2025-06-01T00:00:00Z"), NOW);
        EntitySpec whole = entity("bound_whole", horizon);
        writer.apply(entity("bound_whole", Optional.empty()), feed);
        long removed = new MemoryPruner(ds, Integer.MAX_VALUE).prune(whole);
        assertThat(removed).isGreaterThan(20);
        for (int chunk : List.of(4, 5, 7, 20, 21)) {
            String name = "bound_" + chunk;
            writer.apply(entity(name, Optional.empty()), feed);
            assertThat(new MemoryPruner(ds, chunk).prune(entity(name, horizon))).as("removed in chunks of %d", chunk).isEqualTo(removed);
            assertThat(rows(entity(name, horizon))).as("table in chunks of %d", chunk).isEqualTo(rows(whole));
            assertThat(memory(entity(name, horizon))).as("memory in chunks of %d", chunk).isEqualTo(memory(whole));
        }
    }

    /** Key (region text, n integer), tracked city, type-1 login; retention one year. */
    private EntitySpec entity(String table, Optional<Duration> latenessHorizon) throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("region", ColumnType.TEXT);
        cols.put("n", ColumnType.INTEGER);
        cols.put("city", ColumnType.TEXT);
        cols.put("login", ColumnType.BIGINT);
        EntitySpec spec = EntitySpec.builder().name(table).table(table).key(List.of("region", "n")).tracked(List.of("city"))
                .type1(List.of("login")).columns(cols).latenessHorizon(latenessHorizon)
                .retention(new HistoryRetention(Optional.of(IsoSpan.parse("P1Y")), Optional.empty(), Optional.empty())).build();
        EntityTables.ensure(ds, spec);
        return spec;
    }

    /**
     * {@code perKey} events for each key at random instants of [from, to) (region b's up to 2025-01-21
     * at the latest), one in ten a delete, in a shuffled arrival order.
     */
    private static List<Event> feed(Random rnd, int perKey, Instant from, Instant to) {
        List<Event> ordered = new ArrayList<>();
        for (String region : REGIONS) {
            Instant end = region.equals("b") && to.isAfter(B_END) ? B_END : to;
            long span = Duration.between(from, end).toSeconds();
            for (int n : NUMBERS) {
                for (int i = 0; i < perKey; i++) {
                    Instant t = from.plusSeconds((long) (rnd.nextDouble() * span)).truncatedTo(ChronoUnit.HOURS);
                    Map<String, Object> data = new LinkedHashMap<>();
                    data.put("region", region);
                    data.put("n", n);
                    if (rnd.nextInt(10) > 0) {
                        data.put("city", "C" + rnd.nextInt(3));
                        data.put("login", (long) rnd.nextInt(5));
                    }
                    Source none = Source.kafka("t", 0, 0);
                    ordered.add(data.size() == 2 ? Event.delete(t, data, 0, none) : Event.upsert(t, data, 0, none));
                }
            }
        }
        Collections.shuffle(ordered, rnd);
        List<Event> out = new ArrayList<>();
        long seq = 1;
        for (Event e : ordered) {
            out.add(e.op() == Op.DELETE ? Event.delete(e.eventTime(), e.data(), seq, Source.kafka("t", 0, seq))
                    : Event.upsert(e.eventTime(), e.data(), seq, Source.kafka("t", 0, seq)));
            seq++;
        }
        return out;
    }

    /**
     * The table's rows, each its whole JSON but what a twin has of its own (surrogate key, load and
     * transaction time, the event_seq value), with whether its start stands for an event.
     */
    private List<String> rows(EntitySpec e) throws SQLException {
        return strings("SELECT (to_jsonb(x) - 'surrogate_key' - 'loaded_at' - 'known_from' - 'end_known_from' - 'event_seq' "
                + "|| jsonb_build_object('remembered', x.event_seq IS NOT NULL))::text FROM " + Sql.table(e.table())
                + " x ORDER BY x.region, x.n, x.valid_from");
    }

    /** The memory table's rows, each its whole JSON but the surrogate key. */
    private List<String> memory(EntitySpec e) throws SQLException {
        return strings("SELECT (to_jsonb(x) - 'surrogate_key')::text FROM " + Sql.table(e.memoryTable()) + " x ORDER BY x.region, x.n, x.event_time");
    }

    private List<String> prunePoints(EntitySpec e) throws SQLException {
        return strings("SELECT concat_ws(' ', region, n, pruned_to) FROM " + Sql.table(e.memoryTable())
                + " WHERE pruned_to IS NOT NULL ORDER BY region, n");
    }

    private List<String> strings(String query) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
