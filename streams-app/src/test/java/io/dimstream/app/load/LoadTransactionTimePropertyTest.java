package io.dimstream.app.load;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.HorizonFeeds;
import io.dimstream.db.write.KnownAt;
import io.dimstream.db.write.QuarantineReader;
import io.dimstream.db.write.ReferenceModel;
import java.io.BufferedReader;
import java.io.StringReader;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.sql.DataSource;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Transaction time through {@code load} (docs/semantics.md, "Transaction time"): a random feed
 * ({@link HorizonFeeds}: late lines, lines beyond the horizon, same-time ties, deletes, resurrections,
 * repeats) cut into two to four files, loaded one after the other through {@link EventFileLoader} in
 * random batch sizes on one or two connections. After each file, the instant is read; at the end
 * {@code T_as_of(v, known_at)} at each of those instants equals {@link ReferenceModel#inArrivalOrder}
 * of the files loaded by then, at every version start of that model.
 */
class LoadTransactionTimePropertyTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final EntitySpec SPEC = create();

    @Property(tries = 15)
    void asOfAfterEachFileEqualsTheModelOfTheFilesLoadedByThen(@ForAll("feeds") List<HorizonFeeds.Draft> drafts, @ForAll Random random)
            throws Exception {
        QuarantineReader.empty(DS, SPEC);
        List<String> lines = HorizonFeeds.jsonLines(drafts);
        int files = Math.min(lines.size(), 2 + random.nextInt(3));
        List<Event> loaded = new ArrayList<>();
        List<List<Event>> prefixes = new ArrayList<>();
        List<OffsetDateTime> knownAt = new ArrayList<>();
        Instant start = Instant.parse("2026-12-02T00:00:00Z");
        for (int f = 0; f < files; f++) {
            List<String> file = lines.subList(lines.size() * f / files, lines.size() * (f + 1) / files);
            // each load starts a second after the one before: its lines win same-time ties (ArrivalSeq)
            Instant loadStart = start.plus(Duration.ofSeconds(f));
            String name = "part" + f + ".jsonl";
            for (int i = 0; i < file.size(); i++) {
                loaded.add(NativeEventJson.parse(file.get(i), ArrivalSeq.ofLoad(loadStart, i + 1).value(), Source.line(name, i + 1)).event());
            }
            new EventFileLoader(DS, SPEC, 1 + random.nextInt(6), 1 + random.nextInt(2))
                    .load(new BufferedReader(new StringReader(String.join("\n", file))), name, loadStart);
            prefixes.add(List.copyOf(loaded));
            knownAt.add(KnownAt.clock(DS));
        }
        for (int f = 0; f < files; f++) {
            KnownAt.assertAsOfEveryVersionStart(DS, SPEC, knownAt.get(f), new ReferenceModel(SPEC).inArrivalOrder(prefixes.get(f)).rows());
        }
    }

    @Provide
    Arbitrary<List<HorizonFeeds.Draft>> feeds() {
        return HorizonFeeds.feeds(14, false);
    }

    private static EntitySpec create() {
        EntitySpec spec = HorizonFeeds.spec("load_known_at", "load_known_at");
        try {
            EntityTables.ensure(DS, spec);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create " + spec.table() + ": " + e.getMessage(), e);
        }
        return spec;
    }
}
