package io.dimstream.app.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.replay.ReplaySettings;
import io.dimstream.app.replay.ReplayWorker;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A truncate read by a replay while the pipeline streams: a Debezium feed ({@code debezium-json},
 * {@code on-truncate: delete-all}; one source partition, as a connector writes one table, spread over
 * three changes partitions by the repartition step) with a {@code TRUNCATE} in the middle of the
 * topic, rows written in the truncate's own transaction, and changes after it. A live replay of the
 * whole topic runs while the changes after the truncate stream in, so the replay judges the truncate
 * again against a table that already holds them (keys created after it, keys deleted by it and
 * created again, keys written at its instant). At the end the table equals, every column but
 * {@code loaded_at}, the reference model of every change plus the truncate: a delete at its instant
 * for every key live then with no event there (arrival order: the truncate marker's offset on the
 * key's changes partition; lineage: the truncate's own record); the replay changed no row, and a
 * second replay changes no column of any row.
 */
class TruncateDuringReplayIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APPLICATION = "compose-truncate-it";
    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    private static final String[] CITIES = {"Oslo", "Rome", "Lima", "Kyiv", "Bern", "Riga", "Sofia", "Quito"};
    private static final String[] TIERS = {"bronze", "silver", "gold"};
    private final DataSource ds = TestPostgres.dataSource();

    /** One change of the source table: op c, u, d (a delete, followed by its tombstone) or t (the truncate). */
    private record Change(String op, String id, String city, String tier, Instant commit) {
    }

    @Test
    void aLiveReplayJudgingATruncateBesideTheStreamingSinkChangesNothingAndTheTableIsTheModel(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_tdr";
        String topic = "pg.public.customers_tdr";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka: {bootstrap-servers: %s}
                postgres: {url: "%s"}
                entities:
                  - {name: %s, topic: %s, format: debezium-json, on-truncate: delete-all, table: dim_customer_tdr,
                     key: [customer_id], tracked: [city, tier], lateness-horizon: P30D,
                     columns: {customer_id: text, city: text, tier: text}}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), entity, topic), "test config", Map.of());
        EntitySpec spec = config.entity(entity).toEntitySpec();
        Random rnd = new Random(5);
        Map<String, String[]> live = new LinkedHashMap<>();
        List<Change> before = changes(rnd, live, 20, T0, 140);
        Instant tt = before.get(before.size() - 1).commit().plusSeconds(60);
        List<Change> truncate = truncateTransaction(live, tt);
        List<Change> after = changes(rnd, live, 30, tt.plusSeconds(30), 120);

        ServiceOptions options = new ServiceOptions(dir.resolve("data"), APPLICATION, 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(10), 5, Duration.ofMillis(250)));
        ReplayJobs jobs = new ReplayJobs(ds);
        long sent;
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<Event> events = new ArrayList<>();
            List<Change> head = new ArrayList<>(before);
            head.addAll(truncate);
            sent = produce(topic, head, events);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();

            // a live replay of the whole topic; once it has taken its range (the truncate inside it), the changes after the truncate stream in
            long replay = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(20)).until(() -> !jobs.progress(replay).isEmpty());
            for (int from = 0; from < after.size(); from += 40) {
                sent += produce(topic, after.subList(from, Math.min(from + 40, after.size())), events);
            }
            // ... and are in the table before the replay reaches the truncate, which it then judges beside them
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
            Source truncated = truncateSource(topic, head);
            assertThat(jobs.progress(replay).stream().filter(p -> p.partition() == 0).findFirst().orElseThrow().position())
                    .as("the replay's position when the changes after the truncate were in").isLessThanOrEqualTo(truncated.offset());
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> jobs.find(replay).orElseThrow().state().finished());
            ReplayJob job = jobs.find(replay).orElseThrow();
            assertThat(List.of(job.state(), job.eventsRead(), job.eventsRejected(), job.rowsChanged())).as(String.valueOf(job.error()))
                    .isEqualTo(List.of(JobState.SUCCEEDED, (long) countRecords(head), 0L, 0L));
            // the sink committed the changes after the truncate while the replay ran
            assertThat(ComposeFixtures.strings(ds, "SELECT count(*)::text FROM dimstream.sink_batches WHERE entity = ? "
                    + "AND finished_at > ? AND finished_at < ?", entity, job.startedAt().atOffset(ZoneOffset.UTC),
                    job.finishedAt().atOffset(ZoneOffset.UTC))).isNotEqualTo(List.of("0"));

            List<Event> model = withTruncate(spec, ChangesLog.read(kafka.bootstrapServers(), ChangeTopics.name(APPLICATION, entity)), events,
                    truncated, tt);
            assertThat(WholeRows.differences(WholeRows.table(ds, spec), WholeRows.expected(spec, model))).isEmpty();
            assertThat(ComposeFixtures.sinkRejects(ds, entity)).isEmpty();
            assertThat(ComposeFixtures.quarantine(ds, entity)).isEmpty();
        }
        // a second replay, nothing streaming (the service stopped; a worker of its own, without the throttle):
        // no column of any row changes, loaded_at and event_seq included
        List<String> rows = ComposeFixtures.jsonRows(ds, "dim_customer_tdr");
        ReplaySettings fast = new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(10), 500, Duration.ZERO);
        try (ReplayWorker worker = new ReplayWorker("compose-truncate-it-again", EntityPipeline.fromConfig(config, APPLICATION), ds,
                kafka.bootstrapServers(), fast).start()) {
            long again = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "bob");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> jobs.find(again).orElseThrow().state().finished());
            ReplayJob second = jobs.find(again).orElseThrow();
            assertThat(List.of(second.state(), second.eventsRead(), second.rowsChanged())).isEqualTo(List.of(JobState.SUCCEEDED, sent, 0L));
        }
        assertThat(ComposeFixtures.jsonRows(ds, "dim_customer_tdr")).isEqualTo(rows);
    }

    /**
     * A change committed before a truncate that reaches the sink after it (it travelled on another
     * source partition: Debezium orders nothing across partitions) is placed in history and not
     * deleted by the truncate, which docs/formats.md says is judged once, when it arrives; the same
     * page says a live replay of a truncated topic changes nothing. Fails: the replay judges the
     * truncate again against the whole table, finds the key live at the truncate's instant and
     * deletes it there (2 rows changed: N1's version closed, a deleted version at the truncate's instant).
     */
    @Test
    @Disabled("a live replay judges a truncate again and deletes a key whose earlier change reached the sink after the truncate")
    void aLiveReplayDoesNotJudgeAgainATruncateTheSinkJudgedBeforeAnEarlierChangeArrived(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_tdr_late";
        String topic = "pg.public.customers_tdr_late";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka: {bootstrap-servers: %s}
                postgres: {url: "%s"}
                entities:
                  - {name: %s, topic: %s, format: debezium-json, on-truncate: delete-all, table: dim_customer_tdr_late,
                     key: [customer_id], tracked: [city, tier], lateness-horizon: P30D,
                     columns: {customer_id: text, city: text, tier: text}}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), entity, topic), "test config", Map.of());
        Instant tt = T0.plusSeconds(7200);
        ReplayJobs jobs = new ReplayJobs(ds);
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "compose-truncate-late-it", 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(10), 500, Duration.ZERO));
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<Event> events = new ArrayList<>();
            long sent = produce(topic, 0, List.of(new Change("c", "K1", "Oslo", "gold", T0), new Change("c", "K2", "Rome", "silver",
                    T0.plusSeconds(60)), new Change("t", null, null, null, tt)), events);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
            // committed an hour before the truncate, read after it
            sent += produce(topic, 1, List.of(new Change("c", "N1", "Lima", "bronze", tt.minusSeconds(3600))), events);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
            List<String> judgedOnce = ComposeFixtures.jsonRows(ds, "dim_customer_tdr_late");
            assertThat(ComposeFixtures.strings(ds, "SELECT customer_id || ' ' || valid_from || ' ' || is_deleted FROM dim_customer_tdr_late "
                    + "ORDER BY customer_id, valid_from")).containsExactly("K1 2025-08-01 00:00:00+00 false", "K1 2025-08-01 02:00:00+00 true",
                    "K2 2025-08-01 00:01:00+00 false", "K2 2025-08-01 02:00:00+00 true", "N1 2025-08-01 01:00:00+00 false");

            long replay = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> jobs.find(replay).orElseThrow().state().finished());
            ReplayJob job = jobs.find(replay).orElseThrow();
            assertThat(List.of(job.state(), job.rowsChanged())).isEqualTo(List.of(JobState.SUCCEEDED, 0L));
            assertThat(ComposeFixtures.jsonRows(ds, "dim_customer_tdr_late")).isEqualTo(judgedOnce);
        }
    }

    /**
     * {@code n} changes of keys C01..C{@code keys} from {@code start}, commits 20-80 s apart: a key not
     * live is created; a live one is deleted (one in seven) or changes its city or tier. {@code live}
     * holds each live key's values and is kept up to date.
     */
    private static List<Change> changes(Random rnd, Map<String, String[]> live, int keys, Instant start, int n) {
        List<Change> out = new ArrayList<>();
        Instant t = start;
        for (int i = 0; i < n; i++) {
            String id = String.format("C%02d", 1 + rnd.nextInt(keys));
            String[] now = live.get(id);
            Change c;
            if (now == null) {
                c = new Change("c", id, CITIES[rnd.nextInt(CITIES.length)], TIERS[rnd.nextInt(TIERS.length)], t);
            } else if (rnd.nextInt(7) == 0) {
                c = new Change("d", id, now[0], now[1], t);
            } else if (rnd.nextBoolean()) {
                c = new Change("u", id, CITIES[rnd.nextInt(CITIES.length)], now[1], t);
            } else {
                c = new Change("u", id, now[0], TIERS[rnd.nextInt(TIERS.length)], t);
            }
            if (c.op().equals("d")) {
                live.remove(id);
            } else {
                live.put(id, new String[] {c.city(), c.tier()});
            }
            out.add(c);
            t = t.plusSeconds(20 + rnd.nextInt(61));
        }
        return out;
    }

    /**
     * {@code BEGIN; TRUNCATE; INSERT ...; COMMIT} at {@code tt}: the first live key written again as it
     * was (its version goes on unbroken), the second with another city, and a key never seen before.
     */
    private static List<Change> truncateTransaction(Map<String, String[]> live, Instant tt) {
        List<String> ids = new ArrayList<>(new TreeSet<>(live.keySet()));
        String[] first = live.get(ids.get(0));
        String[] second = live.get(ids.get(1));
        List<Change> tx = List.of(new Change("t", null, null, null, tt), new Change("c", ids.get(0), first[0], first[1], tt),
                new Change("c", ids.get(1), second[0].equals("Oslo") ? "Rome" : "Oslo", second[1], tt), new Change("c", "C99", "Lima", "gold", tt));
        live.clear();
        for (Change c : tx.subList(1, tx.size())) {
            live.put(c.id(), new String[] {c.city(), c.tier()});
        }
        return tx;
    }

    /**
     * Produces the changes on source partition 0 in order (a delete followed by its tombstone), adding
     * each change's event, its source record as lineage, to {@code events}; returns the records sent.
     */
    private static long produce(String topic, List<Change> changes, List<Event> events) {
        return produce(topic, 0, changes, events);
    }

    /** {@link #produce(String, List, List)} on source partition {@code partition}. */
    private static long produce(String topic, int partition, List<Change> changes, List<Event> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Change c : changes) {
            records.add(record(topic, partition, c.id(), debezium(c)));
            if (c.op().equals("d")) {
                records.add(record(topic, partition, c.id(), null));
            }
        }
        List<RecordMetadata> sent = FeedFixtures.send(KAFKA.get().bootstrapServers(), records, Map.of());
        int i = 0;
        for (Change c : changes) {
            Source src = Source.kafka(topic, partition, sent.get(i).offset());
            if (c.op().equals("d")) {
                events.add(Event.delete(c.commit(), Map.of("customer_id", c.id()), 0, src));
                i++;
            } else if (!c.op().equals("t")) {
                events.add(Event.upsert(c.commit(), Map.of("customer_id", c.id(), "city", c.city(), "tier", c.tier()), 0, src));
            }
            i++;
        }
        return records.size();
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String id, String value) {
        return new ProducerRecord<>(topic, partition, id == null ? null : ("{\"customer_id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** A Debezium change event value as the JSON converter writes it (with the schema wrapper). */
    private static String debezium(Change c) {
        String image = c.id() == null ? "null"
                : "{\"customer_id\":\"" + c.id() + "\",\"city\":\"" + c.city() + "\",\"tier\":\"" + c.tier() + "\"}";
        boolean delete = c.op().equals("d");
        long ms = c.commit().toEpochMilli();
        return "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"name\":\"pg.customers.Envelope\"},\"payload\":{\"before\":"
                + (delete ? image : "null") + ",\"after\":" + (delete || c.op().equals("t") ? "null" : image)
                + ",\"source\":{\"version\":\"2.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"pg\",\"ts_ms\":" + ms
                + ",\"snapshot\":false,\"db\":\"shop\",\"schema\":\"public\",\"table\":\"customers\",\"txId\":" + (ms / 1000 % 100_000)
                + ",\"lsn\":" + ms + "},\"op\":\"" + c.op() + "\",\"ts_ms\":" + (ms + 700) + "}}";
    }

    private static int countRecords(List<Change> changes) {
        return changes.size() + (int) changes.stream().filter(c -> c.op().equals("d")).count();
    }

    /** The truncate's own record: the one record of {@code head} that is no event and no tombstone. */
    private static Source truncateSource(String topic, List<Change> head) {
        long offset = 0;
        for (Change c : head) {
            if (c.op().equals("t")) {
                return Source.kafka(topic, 0, offset);
            }
            offset += c.op().equals("d") ? 2 : 1;
        }
        throw new IllegalStateException("no truncate in the feed");
    }

    /**
     * The model's events: the changes as the sink applied them (seq: their changes offsets), and the
     * truncate: a delete at {@code tt} for every key live at {@code tt} by the changes before it and
     * with no change at exactly {@code tt}, with the truncate's record as lineage and, as seq, the
     * offset of the truncate's marker on the key's changes partition.
     */
    private static List<Event> withTruncate(EntitySpec spec, ChangesLog log, List<Event> events, Source truncate, Instant tt) {
        List<Event> arrivals = log.arrivals(events, spec.key());
        Map<Integer, Long> markers = log.truncates().stream()
                .peek(m -> assertThat(m.marker().source()).isEqualTo(truncate))
                .collect(Collectors.toMap(ChangesLog.Truncate::partition, ChangesLog.Truncate::offset));
        assertThat(markers.keySet()).containsExactlyInAnyOrder(0, 1, 2);
        Set<Object> atTt = events.stream().filter(e -> e.eventTime().equals(tt)).map(e -> e.data().get("customer_id")).collect(Collectors.toSet());
        List<Event> model = new ArrayList<>(arrivals);
        for (ExpectedRow r : new ReferenceModel(spec).rows(events.stream().filter(e -> e.eventTime().isBefore(tt)).toList())) {
            String id = (String) r.key().get("customer_id");
            if (r.validTo() == null && !r.deleted() && !atTt.contains(id)) {
                int partition = log.partitionOf(arrivals.stream().filter(e -> e.data().get("customer_id").equals(id)).findFirst().orElseThrow()
                        .source());
                model.add(Event.delete(tt, Map.of("customer_id", id), markers.get(partition), truncate));
            }
        }
        return model;
    }
}
