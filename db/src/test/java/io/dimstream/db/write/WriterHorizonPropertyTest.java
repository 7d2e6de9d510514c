package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * With a finite lateness horizon, whether an event is late or beyond the horizon is judged in its
 * arrival order, within a batch too: random feeds ({@link HorizonFeeds}: late events, events beyond
 * the horizon, same-time ties, deletes, resurrections, exact repeats and re-deliveries) are applied
 * in arrival order, cut into batches four ways (one batch; batches of one; random cuts; random cuts
 * applied on two connections at once, as {@code load} does), each into a table of its own. Every
 * run's whole table, quarantine rows (key, time, seq and the newest event time the reason names)
 * and summed class counts must equal {@link ReferenceModel#inArrivalOrder}, which takes the events
 * one at a time.
 */
class WriterHorizonPropertyTest {

    /** Pooled, so the writer's per-connection work tables are created once, not per batch. */
    private static final DataSource DS = pooled();

    enum Batching { ONE_BATCH, ONE_BY_ONE, RANDOM, RANDOM_PARALLEL }

    private static final Map<Batching, EntitySpec> SPECS = createTables();

    private final Scd2Writer writer = new Scd2Writer(DS);

    @Property(tries = 40)
    void tableQuarantineAndCountsEqualTheModelInArrivalOrderWhateverTheBatching(
            @ForAll("feeds") List<HorizonFeeds.Draft> drafts, @ForAll Random random) throws SQLException {
        List<Event> events = HorizonFeeds.events(drafts);
        for (Batching b : Batching.values()) {
            EntitySpec spec = SPECS.get(b);
            ReferenceModel.Outcome expected = new ReferenceModel(spec).inArrivalOrder(events);
            QuarantineReader.empty(DS, spec);
            ApplyResult total = ApplyResult.empty();
            for (List<Event> batch : cut(events, b, random)) {
                total = total.plus(PartsApply.apply(writer, spec, batch, b == Batching.RANDOM_PARALLEL ? 2 : 1));
            }
            assertThat(EntityTableReader.rows(DS, spec)).as("table, %s, of %s", b, events).isEqualTo(expected.rows());
            assertThat(QuarantineReader.rows(DS, spec)).as("quarantine, %s, of %s", b, events).isEqualTo(expected.quarantine());
            assertThat(ReferenceModel.Counts.of(total)).as("counts, %s, of %s", b, events).isEqualTo(expected.counts());
        }
    }

    @Provide
    Arbitrary<List<HorizonFeeds.Draft>> feeds() {
        return HorizonFeeds.feeds(16, true);
    }

    private static List<List<Event>> cut(List<Event> events, Batching b, Random random) {
        List<List<Event>> batches = new ArrayList<>();
        int i = 0;
        while (i < events.size()) {
            int size = switch (b) {
                case ONE_BATCH -> events.size();
                case ONE_BY_ONE -> 1;
                case RANDOM, RANDOM_PARALLEL -> 1 + random.nextInt(6);
            };
            batches.add(events.subList(i, Math.min(events.size(), i + size)));
            i += size;
        }
        return batches;
    }

    private static Map<Batching, EntitySpec> createTables() {
        Map<Batching, EntitySpec> specs = new EnumMap<>(Batching.class);
        for (Batching b : Batching.values()) {
            String name = Fixtures.uniqueTable("horizon_" + b.name().toLowerCase());
            EntitySpec spec = HorizonFeeds.spec(name, name);
            try {
                EntityTables.ensure(DS, spec);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create " + spec.table() + ": " + e.getMessage(), e);
            }
            specs.put(b, spec);
        }
        return specs;
    }

    private static DataSource pooled() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestPostgres.jdbcUrl());
        cfg.setMaximumPoolSize(2);
        cfg.setPoolName("writer-horizon-property-test");
        return new HikariDataSource(cfg);
    }
}
