package io.dimstream.db.retention;

import static io.dimstream.db.retention.RetentionFixture.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.retention.HistoryRetainer.Retired;
import io.dimstream.db.retention.RetentionFixture.Remembered;
import io.dimstream.db.retention.RetentionFixture.Version;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.MemoryPruner;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Retention and the grain against a twin table that keeps everything, on random feeds (late
 * events, re-assertions, deletes and resurrections, random batches), real PostgreSQL. Batches of 3
 * keys, so every run spans several transactions. {@code event_seq} is left out of the compared rows:
 * it only says whether a version's start stands for a remembered event, and moving the prune point
 * clears it before the anchor, as the lateness pruning does.
 */
class HistoryRetainerTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    /** What a twin's rows have of their own: the surrogate key (of the entity's name), the load time, event_seq. */
    private static final String[] TWIN_DIFFERS = {"event_seq", "loaded_at", "surrogate_key"};

    private final DataSource ds = TestPostgres.dataSource();
    private final RetentionFixture f = new RetentionFixture(ds);
    private final HistoryRetainer retainer = new HistoryRetainer(ds, 3);

    @Test
    void retentionDeletesTheVersionsEndedBeforeTheHorizonAndNothingAsOfAnyLaterInstantChanges() throws SQLException {
        Random rnd = new Random(32);
        EntitySpec kept = f.entity("ret", retention("P1Y"));
        EntitySpec twin = f.entity("ret_twin", HistoryRetention.NONE);
        f.applyAll(rnd, RetentionFixture.feed(rnd, 12, 30, Instant.parse("2023-07-01T00:00:00Z"), NOW, 1), kept, twin);
        Instant h = Instant.parse("2025-01-01T00:00:00Z");
        List<Version> before = f.versions(kept, "event_seq");
        List<Remembered> eventsBefore = f.remembered(kept, "in_version", "pruned_to");
        TreeSet<Instant> instants = instantsFrom(kept, h, rnd);
        Map<Instant, List<String>> asOfBefore = asOf(kept, instants, "event_seq");
        // the images the feed's late events superseded that ended before the horizon go with their versions
        List<String> supersededBefore = f.strings("SELECT valid_to < ? FROM " + kept.table() + "_superseded ORDER BY 1", h);

        Retired retired = retainer.retain(kept, NOW);

        List<Version> expected = before.stream().filter(v -> v.to() == null || !v.to().isBefore(h)).toList();
        assertThat(f.rows(kept, "event_seq")).isEqualTo(expected.stream().map(Version::json).toList());
        assertThat(f.asOfEach(kept, instants, "event_seq")).isEqualTo(asOfBefore);
        // each key that lost versions: its events from the anchor (its latest at or before H) on are
        // what they were, the anchor holds the prune point H; the other keys' events are untouched
        Set<String> touched = before.stream().filter(v -> !expected.contains(v)).map(Version::id).collect(Collectors.toCollection(TreeSet::new));
        assertThat(touched).hasSizeGreaterThan(6);
        List<Remembered> expectedEvents = fromAnchors(eventsBefore, touched, h);
        assertThat(f.remembered(kept, "in_version", "pruned_to")).isEqualTo(expectedEvents);
        assertThat(f.prunePoints(kept)).isEqualTo(touched.stream().map(id -> id + " 2025-01-01T00:00:00Z").toList());
        assertThat(supersededBefore).contains("t", "f");
        assertThat(retired).isEqualTo(new Retired(before.size() - expected.size(), 0, eventsRemoved(eventsBefore, expectedEvents),
                supersededBefore.stream().filter("t"::equals).count()));
        assertThat(f.strings("SELECT count(*) FROM " + kept.table() + "_superseded WHERE valid_to < ?", h)).isEqualTo(List.of("0"));

        // a second run at the same instant finds nothing
        assertThat(retainer.retain(kept, NOW)).isEqualTo(Retired.NONE);

        // late events: older than the horizon -> quarantined, naming it; newer -> placed exactly as in the twin
        List<Event> beyond = new ArrayList<>();
        long seq = 10_000;
        for (String id : touched) {
            beyond.add(up(seq++, h.minus(1, ChronoUnit.DAYS), id, "LATE", 9));
        }
        List<String> rowsBeforeLate = f.rows(kept, "event_seq");
        f.writer.apply(kept, beyond);
        assertThat(f.rows(kept, "event_seq")).isEqualTo(rowsBeforeLate);
        assertThat(f.quarantine(kept)).isEqualTo(touched.stream().map(id -> id + " | 2024-12-31 00:00:00 | event_time 2024-12-31 00:00:00+00 "
                + "is beyond the retention horizon (history-retention): at or before the prune point 2025-01-01 00:00:00+00 of its key, "
                + "before which versions are deleted").toList());
        List<Event> late = RetentionFixture.feed(rnd, 12, 4, h.plus(1, ChronoUnit.HOURS), NOW, 20_000);
        f.applyAll(rnd, late, kept, twin);
        TreeSet<Instant> after = instantsFrom(kept, h, rnd);
        after.addAll(f.boundaries(twin, h));
        assertThat(f.asOfEach(kept, after, TWIN_DIFFERS)).isEqualTo(f.asOfEach(twin, after, TWIN_DIFFERS));
    }

    @Test
    void theGrainKeepsTheVersionsValidAtEachMidnightBeyondItsHorizonAndTheTableAsOfEachMidnightIsUnchanged() throws SQLException {
        Random rnd = new Random(7);
        EntitySpec grained = f.entity("grain", grain("P60D", Optional.empty()));
        EntitySpec twin = f.entity("grain_twin", HistoryRetention.NONE);
        f.applyAll(rnd, RetentionFixture.feed(rnd, 6, 160, Instant.parse("2025-10-01T00:00:00Z"), NOW, 1), grained, twin);
        Instant g = Instant.parse("2025-11-02T00:00:00Z");
        List<Version> before = f.versions(grained, "event_seq", "valid_to");
        List<Remembered> eventsBefore = f.remembered(grained, "in_version", "pruned_to");
        List<Instant> midnights = new ArrayList<>();
        for (Instant m = Instant.parse("2025-09-30T00:00:00Z"); !m.isAfter(NOW.plus(2, ChronoUnit.DAYS)); m = m.plus(1, ChronoUnit.DAYS)) {
            midnights.add(m);
        }
        Map<Instant, List<String>> atMidnight = asOf(grained, midnights, "event_seq", "valid_to");
        TreeSet<Instant> instants = instantsFrom(grained, g, rnd);
        Map<Instant, List<String>> asOfBefore = asOf(grained, instants, "event_seq");

        Retired retired = retainer.retain(grained, NOW);

        List<String> expected = grainModel(before, g, Duration.ofDays(1));
        assertThat(f.versions(grained, "event_seq", "valid_to").stream().map(v -> v.json() + " to " + v.to()).toList()).isEqualTo(expected);
        assertThat(f.asOfEach(grained, midnights, "event_seq", "valid_to")).isEqualTo(atMidnight);
        assertThat(f.asOfEach(grained, instants, "event_seq")).isEqualTo(asOfBefore);
        Set<String> touched = new TreeSet<>();
        List<String> keptJson = expected.stream().map(s -> s.substring(0, s.lastIndexOf(" to "))).toList();
        before.stream().filter(v -> !keptJson.contains(v.json())).forEach(v -> touched.add(v.id()));
        assertThat(touched).hasSize(6);
        List<Remembered> expectedEvents = fromAnchors(eventsBefore, touched, g);
        assertThat(f.remembered(grained, "in_version", "pruned_to")).isEqualTo(expectedEvents);
        assertThat(f.prunePoints(grained)).isEqualTo(touched.stream().map(id -> id + " 2025-11-02T00:00:00Z").toList());
        assertThat(retired).isEqualTo(new Retired(0, before.size() - expected.size(), eventsRemoved(eventsBefore, expectedEvents), 0));
        assertThat(retainer.retain(grained, NOW)).isEqualTo(Retired.NONE);

        f.writer.apply(grained, List.of(up(10_000, g.minus(1, ChronoUnit.HOURS), "K0", "LATE", 9)));
        assertThat(f.quarantine(grained)).isEqualTo(List.of("K0 | 2025-11-01 23:00:00 | event_time 2025-11-01 23:00:00+00 is beyond the grain "
                + "horizon (history-grain-after): at or before the prune point 2025-11-02 00:00:00+00 of its key, before which versions are "
                + "kept at history-grain only"));
        List<Event> late = RetentionFixture.feed(rnd, 6, 5, g.plus(1, ChronoUnit.MINUTES), NOW, 20_000);
        f.applyAll(rnd, late, grained, twin);
        TreeSet<Instant> after = instantsFrom(grained, g, rnd);
        after.addAll(f.boundaries(twin, g));
        assertThat(f.asOfEach(grained, after, TWIN_DIFFERS)).isEqualTo(f.asOfEach(twin, after, TWIN_DIFFERS));
    }

    @Test
    void retentionAndGrainTogetherDeleteBeforeTheFirstHorizonAndThinBetweenTheTwo() throws SQLException {
        Random rnd = new Random(11);
        EntitySpec both = f.entity("both", grain("P40D", Optional.of("P120D")));
        f.applyAll(rnd, RetentionFixture.feed(rnd, 6, 200, Instant.parse("2025-07-01T00:00:00Z"), NOW, 1), both);
        Instant h = Instant.parse("2025-09-03T00:00:00Z");
        Instant g = Instant.parse("2025-11-22T00:00:00Z");
        List<Version> before = f.versions(both, "event_seq", "valid_to");
        List<Instant> midnights = new ArrayList<>();
        for (Instant m = h; !m.isAfter(NOW); m = m.plus(1, ChronoUnit.DAYS)) {
            midnights.add(m);
        }
        Map<Instant, List<String>> atMidnight = asOf(both, midnights, "event_seq", "valid_to");

        Retired retired = retainer.retain(both, NOW);

        List<Version> retainedPart = before.stream().filter(v -> v.to() == null || !v.to().isBefore(h)).toList();
        List<String> expected = grainModel(retainedPart, g, Duration.ofDays(1));
        assertThat(f.versions(both, "event_seq", "valid_to").stream().map(v -> v.json() + " to " + v.to()).toList()).isEqualTo(expected);
        assertThat(f.asOfEach(both, midnights, "event_seq", "valid_to")).isEqualTo(atMidnight);
        assertThat(retired.versions()).isEqualTo(before.size() - retainedPart.size());
        assertThat(retired.grained()).isEqualTo(retainedPart.size() - expected.size());
        assertThat(f.prunePoints(both)).isEqualTo(List.of("K0 2025-11-22T00:00:00Z", "K1 2025-11-22T00:00:00Z", "K2 2025-11-22T00:00:00Z",
                "K3 2025-11-22T00:00:00Z", "K4 2025-11-22T00:00:00Z", "K5 2025-11-22T00:00:00Z"));
    }

    @Test
    void theWorkedExampleOfSemanticsMd() throws SQLException {
        EntitySpec e = f.entity("ret_doc", new HistoryRetention(Optional.of(IsoSpan.parse("P1Y")), Optional.of(Duration.ofDays(1)),
                Optional.of(IsoSpan.parse("P30D"))));
        String[] cities = {"Oslo", "Rome", "Bern", "Lima", "Nice", "Kyiv", "Riga"};
        String[] times = {"2024-06-01T10:00:00Z", "2024-12-01T10:00:00Z", "2025-11-10T08:00:00Z", "2025-11-10T13:00:00Z",
                "2025-11-10T18:00:00Z", "2025-11-11T09:00:00Z", "2025-12-20T12:00:00Z"};
        for (int i = 0; i < cities.length; i++) {
            f.writer.apply(e, List.of(up(i + 1, Instant.parse(times[i]), "K1", cities[i], 1)));
        }
        assertThat(f.strings("SELECT city FROM " + e.asOfFunction() + "(?)", Instant.parse("2025-11-10T14:00:00Z"))).isEqualTo(List.of("Lima"));

        retainer.retain(e, NOW);

        assertThat(f.versions(e).stream().map(v -> v.json().replaceAll(".*\"city\": \"(\\w+)\".*", "$1") + " " + v.from() + " " + v.to())
                .toList()).isEqualTo(List.of(
                        "Rome 2024-12-01T10:00:00Z 2025-11-10T18:00:00Z",
                        "Nice 2025-11-10T18:00:00Z 2025-11-11T09:00:00Z",
                        "Kyiv 2025-11-11T09:00:00Z 2025-12-20T12:00:00Z",
                        "Riga 2025-12-20T12:00:00Z null"));
        assertThat(f.strings("SELECT city FROM " + e.asOfFunction() + "(?)", Instant.parse("2025-11-10T00:00:00Z"))).isEqualTo(List.of("Rome"));
        assertThat(f.strings("SELECT city FROM " + e.asOfFunction() + "(?)", Instant.parse("2025-11-11T00:00:00Z"))).isEqualTo(List.of("Nice"));
        assertThat(f.strings("SELECT city FROM " + e.asOfFunction() + "(?)", Instant.parse("2025-11-10T14:00:00Z"))).isEqualTo(List.of("Rome"));
        assertThat(f.prunePoints(e)).isEqualTo(List.of("K1 2025-12-02T00:00:00Z"));

        f.writer.apply(e, List.of(up(8, Instant.parse("2025-11-20T00:00:00Z"), "K1", "Late", 1),
                up(9, Instant.parse("2025-12-10T00:00:00Z"), "K1", "Pula", 1)));
        // quarantined by the prune point G; the reason is judged at the writer's clock, a year after the example's now,
        // when 2025-11-20 is beyond the retention horizon too (at the example's now it would name the grain's)
        assertThat(f.quarantine(e)).isEqualTo(List.of("K1 | 2025-11-20 00:00:00 | event_time 2025-11-20 00:00:00+00 is beyond the "
                + "retention horizon (history-retention): at or before the prune point 2025-12-02 00:00:00+00 of its key, before which "
                + "versions are deleted"));
        assertThat(f.strings("SELECT city || ' ' || valid_from || ' ' || coalesce(valid_to::text, 'open') FROM " + e.table()
                + " WHERE valid_from > '2025-11-11Z' ORDER BY valid_from", null)).isEqualTo(List.of(
                        "Kyiv 2025-11-11 09:00:00+00 2025-12-10 00:00:00+00",
                        "Pula 2025-12-10 00:00:00+00 2025-12-20 12:00:00+00",
                        "Riga 2025-12-20 12:00:00+00 open"));
    }

    @Test
    void aCompositeKeyIsWalkedInKeyOrderAcrossBatches() throws SQLException {
        String table = "ret_composite";
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("region", ColumnType.TEXT);
        cols.put("n", ColumnType.INTEGER);
        cols.put("city", ColumnType.TEXT);
        EntitySpec e = EntitySpec.builder().name(table).table(table).key(List.of("region", "n")).tracked(List.of("city")).columns(cols)
                .latenessHorizon(Optional.empty()).retention(retention("P1Y")).build();
        EntityTables.ensure(ds, e);
        List<Event> feed = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        long seq = 1;
        for (String region : List.of("a", "b", "c")) {
            for (int n : List.of(1, 2, 10)) {
                Map<String, Object> old = new LinkedHashMap<>(Map.of("region", region, "n", n, "city", "Old"));
                Map<String, Object> now = new LinkedHashMap<>(Map.of("region", region, "n", n, "city", "New"));
                feed.add(Event.upsert(Instant.parse("2023-01-01T00:00:00Z"), old, seq, Source.kafka("t", 0, seq++)));
                feed.add(Event.upsert(Instant.parse("2024-01-01T00:00:00Z"), now, seq, Source.kafka("t", 0, seq++)));
                expected.add(region + " " + n + " New 2024-01-01 00:00:00+00 2025-01-01 00:00:00+00");
            }
        }
        f.writer.apply(e, feed);

        Retired retired = new HistoryRetainer(ds, 2).retain(e, NOW);

        assertThat(retired.versions()).isEqualTo(9);
        assertThat(f.strings("SELECT concat_ws(' ', v.region, v.n, v.city, v.valid_from, x.pruned_to) FROM " + table + " v JOIN " + table
                + "_events x ON x.region = v.region AND x.n = v.n ORDER BY v.region, v.n", null)).isEqualTo(expected);
    }

    @Test
    void anEntityThatKeepsEverythingIsLeftAlone() throws SQLException {
        Random rnd = new Random(3);
        EntitySpec all = f.entity("all", HistoryRetention.NONE);
        f.applyAll(rnd, RetentionFixture.feed(rnd, 3, 20, Instant.parse("2020-01-01T00:00:00Z"), NOW, 1), all);
        List<String> rows = f.rows(all);
        List<String> memory = f.memory(all);

        assertThat(retainer.retain(all, NOW)).isEqualTo(Retired.NONE);

        assertThat(f.rows(all)).isEqualTo(rows);
        assertThat(f.memory(all)).isEqualTo(memory);
    }

    @Test
    void theLatenessPruningAfterRetentionKeepsTheRetentionPrunePoint() throws SQLException {
        EntitySpec kept = f.entity("ret_prune", retention("P1Y"));
        f.writer.apply(kept, List.of(up(1, Instant.parse("2024-06-01T00:00:00Z"), "K1", "A", 1),
                up(2, Instant.parse("2024-12-01T00:00:00Z"), "K1", "B", 1), up(3, Instant.parse("2025-03-01T00:00:00Z"), "K1", "C", 1)));
        retainer.retain(kept, NOW);
        assertThat(f.prunePoints(kept)).isEqualTo(List.of("K1 2025-01-01T00:00:00Z"));

        // its anchor (latest event before 2025-03-01 - 60 days) is the retention's, at 2024-12-01: the prune point stays H
        new MemoryPruner(ds).prune(kept.withLatenessHorizon(Optional.of(Duration.ofDays(60))));

        assertThat(f.prunePoints(kept)).isEqualTo(List.of("K1 2025-01-01T00:00:00Z"));
        List<String> rows = f.rows(kept, "event_seq");
        f.writer.apply(kept, List.of(up(4, Instant.parse("2024-12-15T00:00:00Z"), "K1", "LATE", 9)));
        assertThat(f.rows(kept, "event_seq")).isEqualTo(rows);
        assertThat(f.quarantine(kept)).isEqualTo(List.of("K1 | 2024-12-15 00:00:00 | event_time 2024-12-15 00:00:00+00 is beyond the "
                + "retention horizon (history-retention): at or before the prune point 2025-01-01 00:00:00+00 of its key, before which "
                + "versions are deleted"));
    }

    @Test
    void supersededRowsEndedBeforeTheHorizonGoAndWhatRetentionRemovesIsNotKeptAsSuperseded() throws SQLException {
        EntitySpec kept = f.entity("ret_sup", grain("P30D", Optional.of("P1Y")));
        String t = kept.table();
        // transaction time's side table beside the entity's, three images superseded once (one ended before the horizon)
        f.execute("INSERT INTO " + t + "_superseded (id, valid_from, valid_to, is_deleted, known_from, end_known_from, known_to, row_image) "
                + "VALUES ('K1', '2023-01-01Z', '2023-02-01Z', false, NULL, NULL, '2026-12-01Z', '{}'), "
                + "('K1', '2023-02-01Z', NULL, false, NULL, NULL, '2026-12-01Z', '{}'), "
                + "('K1', '2025-03-01Z', '2025-04-01Z', false, NULL, NULL, '2026-12-01Z', '{}')");
        Instant d = Instant.parse("2025-10-01T00:00:00Z");
        // in order: the writer's closes keep nothing superseded (their open images are the closed rows read before end_known_from)
        f.writer.apply(kept, List.of(up(1, Instant.parse("2024-06-01T00:00:00Z"), "K1", "A", 1),
                up(2, Instant.parse("2024-12-01T00:00:00Z"), "K1", "B", 1), up(3, d.plus(1, ChronoUnit.HOURS), "K1", "C", 1),
                up(4, d.plus(2, ChronoUnit.HOURS), "K1", "D", 1), up(5, d.plus(3, ChronoUnit.HOURS), "K1", "E", 1)));

        Retired retired = retainer.retain(kept, NOW);

        // one batch: every event has a memory row; A goes with retention, B, C and D with the grain (E is its anchor);
        // the real trigger kept nothing of what retention deleted or the grain changed
        assertThat(retired).isEqualTo(new Retired(1, 2, 4, 1));
        assertThat(f.strings("SELECT concat_ws(' ', id, valid_from, valid_to) FROM " + t + "_superseded ORDER BY valid_from", null))
                .isEqualTo(List.of("K1 2023-02-01 00:00:00+00", "K1 2025-03-01 00:00:00+00 2025-04-01 00:00:00+00"));
    }

    // ---- the reference of the grain, and helpers

    /**
     * The grain as docs/semantics.md defines it, over versions given with their start and end: a
     * version that ended before {@code g} and is valid at no instant epoch + n x grain is dropped, a
     * kept one lasts until the next one kept. Each line: the row's JSON (less valid_to) and its end.
     */
    private static List<String> grainModel(List<Version> versions, Instant g, Duration grain) {
        List<Version> kept = new ArrayList<>();
        for (Version v : versions) {
            long s = grain.toSeconds();
            long fromSec = v.from().getEpochSecond();
            Instant bin = Instant.ofEpochSecond(Math.floorDiv(fromSec, s) * s);
            boolean covers = v.to() == null || v.from().equals(bin) || bin.plus(grain).isBefore(v.to());
            if (covers || !v.to().isBefore(g)) {
                kept.add(v);
            }
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < kept.size(); i++) {
            Version v = kept.get(i);
            boolean nextSameKey = i + 1 < kept.size() && kept.get(i + 1).id().equals(v.id());
            Instant to = v.to() != null && nextSameKey ? kept.get(i + 1).from() : v.to();
            out.add(v.json() + " to " + to);
        }
        return out;
    }

    /** Events of the touched keys from their anchor (latest at or before {@code point}) on, every event of the others. */
    private static List<Remembered> fromAnchors(List<Remembered> events, Set<String> touched, Instant point) {
        Map<String, Instant> anchor = new LinkedHashMap<>();
        for (Remembered r : events) {
            if (touched.contains(r.id()) && !r.time().isAfter(point)) {
                anchor.merge(r.id(), r.time(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        return events.stream().filter(r -> !anchor.containsKey(r.id()) || !r.time().isBefore(anchor.get(r.id()))).toList();
    }

    private static long eventsRemoved(List<Remembered> before, List<Remembered> after) {
        return before.size() - after.size();
    }

    /** Every boundary of the table from {@code from} on, and 100 random instants from it to a month after NOW. */
    private TreeSet<Instant> instantsFrom(EntitySpec e, Instant from, Random rnd) throws SQLException {
        TreeSet<Instant> out = f.boundaries(e, from);
        long span = Duration.between(from, NOW.plus(30, ChronoUnit.DAYS)).toSeconds();
        for (int i = 0; i < 100; i++) {
            out.add(from.plusSeconds((long) (rnd.nextDouble() * span)));
        }
        return out;
    }

    private Map<Instant, List<String>> asOf(EntitySpec e, Collection<Instant> instants, String... without) throws SQLException {
        return f.asOfEach(e, instants, without);
    }

    private static HistoryRetention retention(String r) {
        return new HistoryRetention(Optional.of(IsoSpan.parse(r)), Optional.empty(), Optional.empty());
    }

    private static HistoryRetention grain(String after, Optional<String> r) {
        return new HistoryRetention(r.map(IsoSpan::parse), Optional.of(Duration.ofDays(1)), Optional.of(IsoSpan.parse(after)));
    }
}
