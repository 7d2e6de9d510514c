package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Transaction time against the {@link ReferenceModel} (docs/semantics.md, "Transaction time"): random
 * histories of {@link WriterPropertyTest} (late events, duplicates, re-deliveries, deletes, resurrections,
 * same-time ties) delivered shuffled in batches of random sizes, one transaction each. After each batch
 * commits, the instant is read; at the end, for every such instant {@code k} and every instant {@code v}
 * around the events' times, {@code T_as_of(v, k)} must equal the model run on the arrivals up to that
 * batch, as of {@code v}: key, tracked values, hash, validity as known then. Type-1 columns are left out
 * of the comparison: a superseded image shows the type-1 values it had when superseded, a believed row
 * today's (type 1 keeps no history, in valid time or transaction time). And {@code T_as_of(v, now())}
 * must equal the one-argument {@code T_as_of(v)}. Both with {@code valid-to-current} null and infinity.
 */
class TransactionTimePropertyTest {

    private static final DataSource DS = pooled();
    private static final String NAME = Fixtures.uniqueTable("ttprop");
    private static final EntitySpec SPEC = create(WriterPropertyTest.spec(NAME, NAME));
    /** The same entity with {@code valid-to-current: infinity}: its open versions end at infinity, as known at any instant. */
    private static final EntitySpec INFINITE = create(WriterPropertyTest.spec(NAME, NAME + "_inf").toBuilder()
            .validToCurrent(ValidToCurrent.INFINITY).build());

    private final Scd2Writer writer = new Scd2Writer(DS);

    @Property(tries = 25)
    void asOfAnyPastCommitEqualsTheModelOnTheArrivalsUpToIt(@ForAll("histories") List<WriterPropertyTest.Draft> drafts,
                                                            @ForAll Random random) throws SQLException {
        List<Event> arrivals = WriterPropertyTest.arrange(WriterPropertyTest.delivered(drafts), WriterPropertyTest.Delivery.SHUFFLED, random);
        List<Integer> cuts = new ArrayList<>();
        int cut = 0;
        while (cut < arrivals.size()) {
            cut = Math.min(arrivals.size(), cut + 1 + random.nextInt(5));
            cuts.add(cut);
        }
        for (EntitySpec spec : List.of(SPEC, INFINITE)) {
            empty(spec);
            List<OffsetDateTime> knownAt = new ArrayList<>();
            int from = 0;
            for (int end : cuts) {
                writer.apply(spec, arrivals.subList(from, end));
                knownAt.add(KnownAt.clock(DS));
                from = end;
            }
            for (int b = 0; b < cuts.size(); b++) {
                List<ExpectedRow> model = new ReferenceModel(spec).rows(arrivals.subList(0, cuts.get(b)));
                for (Instant v : validInstants()) {
                    assertThat(KnownAt.asOf(DS, spec, v, knownAt.get(b)))
                            .as("%s: as of %s known at batch %d of %d (%s)", spec.table(), v, b + 1, cuts.size(), arrivals)
                            .isEqualTo(KnownAt.modelAsOf(spec, model, v));
                }
            }
            for (Instant v : validInstants()) {
                OffsetDateTime at = OffsetDateTime.ofInstant(v, ZoneOffset.UTC);
                assertThat(EntityTableReader.query(DS, spec, Sql.table(spec.asOfFunction()) + "(?, now())", at))
                        .as("%s: known now = the one-argument function, at %s", spec.table(), v)
                        .isEqualTo(EntityTableReader.query(DS, spec, Sql.table(spec.asOfFunction()) + "(?)", at));
            }
        }
    }

    @Provide
    Arbitrary<List<WriterPropertyTest.Draft>> histories() {
        return WriterPropertyTest.drafts();
    }

    /** Each event hour, half an hour after it, and an hour before the first. */
    private static List<Instant> validInstants() {
        List<Instant> out = new ArrayList<>();
        for (int h = -1; h <= 4; h++) {
            out.add(Fixtures.h(h));
            out.add(Fixtures.h(h).plus(Duration.ofMinutes(30)));
        }
        return out;
    }

    private static void empty(EntitySpec spec) throws SQLException {
        try (Connection c = DS.getConnection(); Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + Sql.table(spec.table()) + ", " + Sql.table(spec.memoryTable()) + ", " + Sql.table(spec.supersededTable()));
        }
    }

    private static EntitySpec create(EntitySpec spec) {
        try {
            EntityTables.ensure(DS, spec);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create " + spec.table() + ": " + e.getMessage(), e);
        }
        return spec;
    }

    private static DataSource pooled() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestPostgres.jdbcUrl());
        cfg.setMaximumPoolSize(2);
        cfg.setPoolName("transaction-time-property-test");
        return new HikariDataSource(cfg);
    }
}
