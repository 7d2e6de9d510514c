package io.dimstream.app.compose;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.load.EventFileLoader;
import io.dimstream.app.load.LoadReport;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load} into an entity while the service streams into it: the whole pipeline (topology and
 * sink, on a real broker and PostgreSQL) takes a generated customer feed while a file of events of
 * the same keys is loaded beside it in small batches on two connections, so that sink transactions
 * and load transactions interleave on the same keys. The file's events fall between, before and
 * after the feed's (late ones either way), some at exactly the time of a feed event (a tie the
 * load must win: {@link ArrivalSeq}) and some at the time of an earlier line of the file (the later
 * line wins). At the end the table equals, every column but {@code loaded_at}, the reference model
 * of both inputs with their arrival orders: the changes-topic offset of each feed event, the load's
 * line seq of each file event. Nothing is refused, quarantined or kept in the sink's rejects.
 */
class LoadWhileStreamingIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APPLICATION = "compose-load-it";
    private static final String FILE = "customers-beside.jsonl";
    /** Few keys, so that sink and load transactions meet on the same keys often. */
    private static final int CUSTOMERS = 8;
    private final DataSource ds = TestPostgres.dataSource();

    @Test
    void aFileLoadedInParallelSmallBatchesBesideTheStreamingSinkEndsAsTheModelOfBothInputs(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_lws";
        String topic = "crm.compose-load-it";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, "dim_customer_lws", "P30D");
        EntitySpec spec = config.entity(entity).toEntitySpec();
        // without the feed's exact repeats: with this many events per key some would pass the topology's
        // bounded dedup, and a repeat the writer takes moves the seq a version start is remembered with
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(29, CUSTOMERS, Instant.parse("2025-08-01T00:00:00Z")).next(1200).stream()
                .filter(r -> !r.kind().equals("duplicate")).toList();
        List<String> lines = fileBeside(FeedFixtures.split(spec, topic, feed).valid(), new Random(7), 800);

        ServiceOptions options = new ServiceOptions(dir.resolve("data"), APPLICATION, 3, Duration.ofHours(1));
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            // the feed arrives in chunks while the file is loaded
            Future<List<FeedFixtures.Located>> streamed = producer.submit(() -> {
                List<FeedFixtures.Located> all = new ArrayList<>();
                for (int from = 0; from < feed.size(); from += 40) {
                    all.addAll(FeedFixtures.produceLocated(kafka.bootstrapServers(), topic, spec, feed.subList(from, Math.min(from + 40, feed.size()))));
                    Thread.sleep(100);
                }
                return all;
            });
            EventFileLoader loader = new EventFileLoader(ds, spec, 8, 2);
            loader.prepare();
            Instant loadStart = Instant.now();
            LoadReport report = loader.load(new BufferedReader(new StringReader(String.join("\n", lines))), FILE, loadStart);
            Instant loadEnd = Instant.now();
            List<FeedFixtures.Located> produced = streamed.get();
            assertThat(pipeline.awaitCaughtUp(feed.size(), Duration.ofMinutes(3))).isTrue();

            // the two really ran at once: sink transactions committed between the load's first and last batch
            assertThat(ComposeFixtures.strings(ds, "SELECT count(*)::text FROM dimstream.sink_batches WHERE entity = ? "
                    + "AND finished_at > ? AND finished_at < ?", entity, loadStart.atOffset(ZoneOffset.UTC),
                    loadEnd.atOffset(ZoneOffset.UTC))).isNotEqualTo(List.of("0"));

            List<Event> arrivals = new ArrayList<>(ChangesLog.read(kafka.bootstrapServers(), ChangeTopics.name(APPLICATION, entity))
                    .arrivals(produced.stream().map(FeedFixtures.Located::event).filter(Objects::nonNull).toList(), spec.key()));
            for (int i = 0; i < lines.size(); i++) {
                arrivals.add(NativeEventJson.parse(lines.get(i), loadSeq(loadStart, i + 1), Source.line(FILE, i + 1)).event());
            }
            assertThat(List.of(report.lines(), (long) report.rejections().size(), (long) report.result().quarantined()))
                    .isEqualTo(List.of((long) lines.size(), 0L, 0L));
            assertThat(WholeRows.differences(WholeRows.table(ds, spec), WholeRows.expected(spec, arrivals))).isEmpty();
            assertThat(ComposeFixtures.sinkRejects(ds, entity)).isEmpty();
            assertThat(ComposeFixtures.quarantine(ds, entity)).isEmpty();
        } finally {
            producer.shutdownNow();
        }
    }

    /**
     * The seq of line {@code line} of a load started at {@code start}, as {@link ArrivalSeq} documents it
     * (written out here, so that the model does not take the scheme it checks from the code under test):
     * the whole seconds since 2020-01-01T00:00:00Z in the high 32 bits, the line number in the low 32;
     * above every changes-topic offset this test makes, so the load wins every same-time tie.
     */
    private static long loadSeq(Instant start, long line) {
        return ((start.getEpochSecond() - Instant.parse("2020-01-01T00:00:00Z").getEpochSecond()) << 32) | line;
    }

    /**
     * {@code n} native JSON lines of the feed's keys: upserts and deletes at times of their own
     * (milliseconds the feed's whole seconds never have) from an hour before the feed's first event
     * to an hour after its last; one in five at exactly the time of a feed upsert of its key, one in
     * ten at the time of an earlier line of its key. Every upsert has a city of its own, so no two
     * events at one key and time have the same content (whose lineage would depend on which arrived first).
     */
    private static List<String> fileBeside(List<Event> feed, Random rnd, int n) {
        List<Event> upserts = feed.stream().filter(e -> e.op() == Op.UPSERT).toList();
        Instant from = feed.stream().map(Event::eventTime).min(Comparator.naturalOrder()).orElseThrow().minusSeconds(3600);
        long span = Duration.between(from, feed.stream().map(Event::eventTime).max(Comparator.naturalOrder()).orElseThrow()).toMillis() + 3_600_000;
        String[] tiers = {"bronze", "silver", "gold", "platinum"};
        List<String> lines = new ArrayList<>();
        List<String[]> earlier = new ArrayList<>();
        Set<String> ownTimes = new HashSet<>();
        for (int line = 1; line <= n; line++) {
            int roll = rnd.nextInt(100);
            String id;
            Instant t;
            boolean delete = false;
            if (roll < 20) {
                Event tie = upserts.get(rnd.nextInt(upserts.size()));
                id = (String) tie.data().get("customer_id");
                t = tie.eventTime();
            } else if (roll < 30 && !earlier.isEmpty()) {
                String[] tie = earlier.get(rnd.nextInt(earlier.size()));
                id = tie[0];
                t = Instant.parse(tie[1]);
            } else {
                id = String.format("C%04d", 1 + rnd.nextInt(CUSTOMERS));
                do {
                    t = from.plusMillis(rnd.nextLong(span / 1000) * 1000 + 1 + rnd.nextInt(999));
                } while (!ownTimes.add(id + t));
                delete = roll >= 88;
            }
            String time = ColumnType.CANONICAL_TIMESTAMP.format(t);
            earlier.add(new String[] {id, time});
            lines.add(delete ? "{\"op\":\"delete\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\"}}"
                    : "{\"op\":\"upsert\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\"l" + line
                    + "@load.example\",\"full_name\":\"Loaded " + id + "\",\"country\":\"NO\",\"city\":\"Loaded-" + line
                    + "\",\"loyalty_tier\":\"" + tiers[rnd.nextInt(tiers.length)] + "\",\"last_login\":" + t.getEpochSecond() + "}}");
        }
        return lines;
    }
}
