package io.dimstream.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.HorizonFeeds;
import io.dimstream.db.write.QuarantineReader;
import io.dimstream.db.write.ReferenceModel;
import java.io.BufferedReader;
import java.io.StringReader;
import java.sql.SQLException;
import java.time.Instant;
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
 * {@code load} of one file gives the same table, quarantine and counts in any batching and any heap:
 * random files ({@link HorizonFeeds}: late lines, lines beyond the horizon, same-time ties, deletes,
 * resurrections, exact repeats of earlier lines) with a finite lateness horizon, loaded through
 * {@link EventFileLoader} as one batch, in batches of one line, and in batches cut by a random
 * count, a random heap bound ({@link EventHeap}) and on one or two connections, each into a table of
 * its own. Each must equal {@link ReferenceModel#inArrivalOrder} of the file's events (line order),
 * whole table, quarantine rows and the report's counts. No Kafka: the loader needs PostgreSQL only.
 */
class LoadArrivalPropertyTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final Instant LOAD_START = Instant.parse("2026-12-02T00:00:00Z");
    private static final String FILE = "feed.jsonl";

    enum Batching { ONE_BATCH, ONE_LINE_EACH, RANDOM }

    private static final Map<Batching, EntitySpec> SPECS = createTables();

    @Property(tries = 25)
    void aFileGivesTheModelsTableQuarantineAndCountsInAnyBatching(@ForAll("feeds") List<HorizonFeeds.Draft> drafts, @ForAll Random random)
            throws Exception {
        List<String> lines = HorizonFeeds.jsonLines(drafts);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            // as JsonLinesSource reads line i + 1
            events.add(NativeEventJson.parse(lines.get(i), ArrivalSeq.ofLoad(LOAD_START, i + 1).value(), Source.line(FILE, i + 1)).event());
        }
        for (Batching b : Batching.values()) {
            EntitySpec spec = SPECS.get(b);
            ReferenceModel.Outcome expected = new ReferenceModel(spec).inArrivalOrder(events);
            QuarantineReader.empty(DS, spec);
            EventFileLoader loader = switch (b) {
                case ONE_BATCH -> new EventFileLoader(DS, spec, 100_000, 1);
                case ONE_LINE_EACH -> new EventFileLoader(DS, spec, 1, 1);
                // a heap bound of one to six events' estimate (EventHeap) cuts where the count may not
                case RANDOM -> new EventFileLoader(DS, spec, 1 + random.nextInt(8), 1 + random.nextInt(2),
                        (1 + random.nextInt(6)) * EventHeap.estimate(events.get(0)), LoadFields.NONE, true);
            };
            LoadReport report = loader.load(new BufferedReader(new StringReader(String.join("\n", lines))), FILE, LOAD_START);

            assertThat(EntityTableReader.rows(DS, spec)).as("table, %s, of %s", b, lines).isEqualTo(expected.rows());
            assertThat(QuarantineReader.rows(DS, spec)).as("quarantine, %s, of %s", b, lines).isEqualTo(expected.quarantine());
            assertThat(ReferenceModel.Counts.of(report.result())).as("counts, %s, of %s", b, lines).isEqualTo(expected.counts());
        }
    }

    @Provide
    Arbitrary<List<HorizonFeeds.Draft>> feeds() {
        return HorizonFeeds.feeds(14, false);
    }

    private static Map<Batching, EntitySpec> createTables() {
        Map<Batching, EntitySpec> specs = new EnumMap<>(Batching.class);
        for (Batching b : Batching.values()) {
            String name = "load_arrival_" + b.name().toLowerCase();
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
}
