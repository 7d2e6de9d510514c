package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import javax.sql.DataSource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The writer against the {@link ReferenceModel} on random event sets (DESIGN section 5): a few
 * composite keys (text + bigint), tracked text/numeric columns with NULL vs '', '|' and unicode,
 * numerics spelled 1.5 and 1.50, a type-1 column; upserts, deletes, resurrections, re-assertions,
 * same-time ties with different seq, and exact re-deliveries (same seq). Each event set is
 * delivered (a) sorted by event time, (b) shuffled, (c) newest first, (d) shuffled on 3
 * connections at once into a table hash-partitioned by the key, (e) shuffled into a table with
 * {@code valid-to-current: infinity}, each into a table of its own (created once, emptied before each try) in
 * batches of random sizes, lateness horizon unlimited. Every table must equal the model row for
 * row (with infinity: every column the same but an open version's {@code valid_to}, 'infinity'), all must have the same surrogate keys (a deterministic function of entity, key and
 * valid_from), and applying every event again to the first table, shuffled and batched anew, must
 * change nothing, surrogate keys included. (One re-apply per try keeps the class near 60 s: each
 * batch is one transaction of about 0.1 s here.)
 */
class WriterPropertyTest {

    /** Pooled, so the writer's per-connection work tables are created once, not per batch. */
    private static final DataSource DS = pooled();

    private static final List<Object[]> KEYS = List.of(
            new Object[] {"eu", 1L},
            new Object[] {"eu", 2L},
            new Object[] {"a|b ✓ 東京", 1L},
            new Object[] {"", -7L});

    /** (name, note, amount): 0 and 1 are one state spelled two ways; 2 and 3 differ only by where '|' falls. */
    private static final List<Object[]> TRACKED = List.of(
            new Object[] {"Ann", "x", new BigDecimal("1.5")},
            new Object[] {"Ann", "x", new BigDecimal("1.50")},
            new Object[] {"a|b", "c", null},
            new Object[] {"a", "b|c", null},
            new Object[] {null, "", BigDecimal.ZERO},
            new Object[] {"", null, new BigDecimal("0.00")},
            new Object[] {"Zoë 🚀 ✓", "", new BigDecimal("-2.25")},
            new Object[] {null, null, null});

    private static final Long[] LOGINS = {null, 1L, 2L};

    /** One generated event: delete or upsert of KEYS[key] at hour, TRACKED[tracked], LOGINS[login]; redeliver = sent twice. */
    record Draft(boolean delete, int key, int hour, int tracked, int login, boolean redeliver) {
    }

    /**
     * PARALLEL: shuffled, each batch applied on 3 connections at once (disjoint keys), as {@code load}
     * does, into a table and memory hash-partitioned by the key ({@code table-partitions: 3}).
     */
    enum Delivery { SORTED, SHUFFLED, NEWEST_FIRST, PARALLEL, INFINITY }

    /**
     * One entity with one table per delivery, created once for the class and emptied (table and
     * event memory) at the start of each try: creating four tables with their views, as-of
     * functions and indexes per try cost more than a third of the class's time. A try sees what a
     * fresh table shows it: no rows, no memory; the entity's registry row is the same spec's.
     */
    private static final String NAME = Fixtures.uniqueTable("prop");
    private static final Map<Delivery, EntitySpec> SPECS = createTables();

    private final Scd2Writer writer = new Scd2Writer(DS);

    @Property(tries = 30)
    void tableEqualsReferenceModelWhateverTheDeliveryOrderAndBatchingAndReapplyingChangesNothing(
            @ForAll("histories") List<Draft> drafts, @ForAll Random random) throws SQLException {
        List<Event> delivered = delivered(drafts);
        List<ExpectedRow> expected = new ReferenceModel(spec(NAME, NAME)).rows(delivered);

        Map<Delivery, EntitySpec> specs = new EnumMap<>(Delivery.class);
        Map<Delivery, List<EntityTableReader.StoredRow>> tables = new EnumMap<>(Delivery.class);
        for (Delivery d : Delivery.values()) {
            EntitySpec spec = SPECS.get(d);
            empty(spec);
            applyInBatches(spec, arrange(delivered, d, random), random, d == Delivery.PARALLEL ? 3 : 1);
            List<EntityTableReader.StoredRow> stored = EntityTableReader.withSurrogateKeys(DS, spec);
            assertThat(stored.stream().map(EntityTableReader.StoredRow::row).toList())
                    .as("%s delivery of %s", d, delivered)
                    .isEqualTo(d == Delivery.INFINITY ? expected.stream().map(ExpectedRow::openAtInfinity).toList() : expected);
            specs.put(d, spec);
            tables.put(d, stored);
        }
        assertThat(tables.get(Delivery.SHUFFLED)).as("surrogate keys, shuffled vs sorted").isEqualTo(tables.get(Delivery.SORTED));
        assertThat(tables.get(Delivery.NEWEST_FIRST)).as("surrogate keys, newest first vs sorted").isEqualTo(tables.get(Delivery.SORTED));
        assertThat(tables.get(Delivery.PARALLEL)).as("surrogate keys, parallel vs sorted").isEqualTo(tables.get(Delivery.SORTED));
        assertThat(tables.get(Delivery.INFINITY)).as("surrogate keys, valid-to-current: infinity vs sorted").isEqualTo(
                tables.get(Delivery.SORTED).stream().map(s -> new EntityTableReader.StoredRow(s.row().openAtInfinity(), s.surrogateKey())).toList());

        EntitySpec sorted = specs.get(Delivery.SORTED);
        applyInBatches(sorted, arrange(delivered, Delivery.SHUFFLED, random), random, 1);
        assertThat(EntityTableReader.withSurrogateKeys(DS, sorted))
                .as("table after every event was applied again, shuffled").isEqualTo(tables.get(Delivery.SORTED));
    }

    @Provide
    Arbitrary<List<Draft>> histories() {
        return drafts();
    }

    /** Random histories of the four keys (shared with {@link TransactionTimePropertyTest}). */
    static Arbitrary<List<Draft>> drafts() {
        Arbitrary<Draft> draft = Combinators.combine(
                Arbitraries.integers().between(0, 3).map(i -> i == 0),
                Arbitraries.integers().between(0, KEYS.size() - 1),
                Arbitraries.integers().between(0, 4),
                // half the upserts say (Ann, x, 1.5) in one of its two spellings: re-assertions and equal-content ties are common
                Arbitraries.oneOf(Arbitraries.integers().between(0, 1), Arbitraries.integers().between(0, TRACKED.size() - 1)),
                Arbitraries.integers().between(0, LOGINS.length - 1),
                Arbitraries.integers().between(0, 5).map(i -> i == 0))
                .as(Draft::new);
        return draft.list().ofMinSize(1).ofMaxSize(20);
    }

    /** The events, seq = position + 1 (arrival rank), then the re-deliveries (same seq, same content). */
    static List<Event> delivered(List<Draft> drafts) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < drafts.size(); i++) {
            events.add(event(drafts.get(i), i + 1));
        }
        for (int i = 0; i < drafts.size(); i++) {
            if (drafts.get(i).redeliver()) {
                events.add(events.get(i));
            }
        }
        return events;
    }

    private static Event event(Draft d, long seq) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("region", KEYS.get(d.key())[0]);
        data.put("num", KEYS.get(d.key())[1]);
        Source source = Source.kafka("prop", 0, seq);
        if (d.delete()) {
            return Event.delete(Fixtures.h(d.hour()), data, seq, source);
        }
        Object[] t = TRACKED.get(d.tracked());
        data.put("name", t[0]);
        data.put("note", t[1]);
        data.put("amount", t[2]);
        data.put("last_login", LOGINS[d.login()]);
        return Event.upsert(Fixtures.h(d.hour()), data, seq, source);
    }

    static List<Event> arrange(List<Event> events, Delivery d, Random random) {
        List<Event> out = new ArrayList<>(events);
        Comparator<Event> byTime = Comparator.comparing(Event::eventTime).thenComparingLong(Event::seq);
        switch (d) {
            case SORTED -> out.sort(byTime);
            case SHUFFLED, PARALLEL, INFINITY -> Collections.shuffle(out, random);
            case NEWEST_FIRST -> out.sort(byTime.reversed());
        }
        return out;
    }

    private void applyInBatches(EntitySpec spec, List<Event> events, Random random, int parallelism) throws SQLException {
        int i = 0;
        while (i < events.size()) {
            int size = 1 + random.nextInt(8);
            PartsApply.apply(writer, spec, events.subList(i, Math.min(events.size(), i + size)), parallelism);
            i += size;
        }
    }

    static EntitySpec spec(String name, String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("region", ColumnType.TEXT);
        cols.put("num", ColumnType.BIGINT);
        cols.put("name", ColumnType.TEXT);
        cols.put("note", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name(name)
                .table(table)
                .key(List.of("region", "num"))
                .tracked(List.of("name", "note", "amount"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }

    private static Map<Delivery, EntitySpec> createTables() {
        Map<Delivery, EntitySpec> specs = new EnumMap<>(Delivery.class);
        for (Delivery d : Delivery.values()) {
            EntitySpec spec = spec(NAME, NAME + "_" + d.name().toLowerCase());
            if (d == Delivery.PARALLEL) {
                // one table hash-partitioned by its (composite) key: the same statements through a partitioned parent
                spec = spec.toBuilder().tablePartitions(3).build();
            }
            if (d == Delivery.INFINITY) {
                spec = spec.toBuilder().validToCurrent(ValidToCurrent.INFINITY).build();
            }
            try {
                EntityTables.ensure(DS, spec);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create " + spec.table() + ": " + e.getMessage(), e);
            }
            specs.put(d, spec);
        }
        return specs;
    }

    /** The entity table and its event memory emptied, as new. */
    private static void empty(EntitySpec spec) throws SQLException {
        try (Connection c = DS.getConnection(); Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + Sql.table(spec.table()) + ", " + Sql.table(spec.memoryTable()));
        }
    }

    private static DataSource pooled() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestPostgres.jdbcUrl());
        // PARALLEL applies each batch on 3 connections at once: 3, so they really run at once
        cfg.setMaximumPoolSize(3);
        cfg.setPoolName("writer-property-test");
        return new HikariDataSource(cfg);
    }
}
