package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.replay.ReplaySettings;
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
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debezium feeds through the running service (real broker, real PostgreSQL, the whole pipeline),
 * records shaped as the PostgreSQL connector writes them (JSON converter, with the schema wrapper):
 * <ul>
 *   <li>event time: a feed whose connector lags (an outage: ts_ms half an hour after the commits)
 *       into two entities, one with the default (valid_from = source.ts_ms, two changes of one
 *       transaction ordered by the topic), one with {@code event-time: ts_ms} (valid_from = ts_ms);</li>
 *   <li>truncates: one feed into three entities: {@code on-truncate: ignore} (the table untouched,
 *       the truncate counted), {@code delete-all} behind the repartition step (every live key, on 3
 *       changes partitions, deleted at the truncate's commit time, the rows of the truncate's own
 *       transaction kept), and {@code delete-all} with {@code partitioned-by-key: true} (the marker
 *       for every changes partition); a re-delivered truncate changes nothing (every column of every
 *       row compared); a message event is counted and dropped; none of them reaches the DLQ;</li>
 *   <li>replays of the truncated topic: into the live table, nothing changes; a shadow rebuild
 *       equals the live table;</li>
 *   <li>a delete-all entity whose changes topic has another partition count than its source topic
 *       is refused at start, naming both.</li>
 * </ul>
 * Tables are compared whole to the reference model of DESIGN section 3.
 */
class DebeziumFeedIT {

    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    /** the truncate's commit */
    private static final Instant TT = Instant.parse("2025-08-02T00:00:00Z");

    private final DataSource ds = TestPostgres.dataSource();

    /** One Debezium record to produce: key, value, the partition it goes to (null: by key), and the model's event. */
    private record Rec(String key, String value, Integer partition) {
    }

    private static String row(String keyColumn, String id, String column, String value) {
        return "{\"" + keyColumn + "\":\"" + id + "\",\"" + column + "\":\"" + value + "\"}";
    }

    /** A Debezium change event value with the JsonConverter's schema wrapper. */
    private static String debezium(String table, String op, String before, String after, Instant commit, Instant processed, String extra) {
        return "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"name\":\"pg." + table + ".Envelope\"},\"payload\":{"
                + "\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"version\":\"2.7.0.Final\",\"connector\":\"postgresql\","
                + "\"name\":\"pg\",\"ts_ms\":" + commit.toEpochMilli() + ",\"snapshot\":false,\"db\":\"shop\",\"schema\":\"public\","
                + "\"table\":\"" + table + "\",\"txId\":" + (commit.toEpochMilli() / 1000 % 100_000) + ",\"lsn\":" + commit.toEpochMilli()
                + "},\"op\":\"" + op + "\",\"ts_ms\":" + processed.toEpochMilli() + extra + "}}";
    }

    // ---- the accounts feed: event time

    /** Changes of accounts (account_id; tier tracked), commit time and the connector's processing time. */
    private record AccountChange(String op, String id, String tier, Instant commit, Instant processed) {
    }

    private static List<AccountChange> accountFeed() {
        List<AccountChange> f = new ArrayList<>();
        Instant lag = Instant.ofEpochMilli(500);
        for (int i = 0; i < 3; i++) {
            Instant c = T0.plusSeconds(60L * i);
            f.add(new AccountChange("r", "A" + (i + 1), "bronze", c, c.plusMillis(lag.toEpochMilli())));
        }
        // the connector was down: these were committed at minutes 4, 5, 6, processed at minute 30
        Instant back = T0.plusSeconds(1800);
        f.add(new AccountChange("u", "A1", "silver", T0.plusSeconds(240), back));
        f.add(new AccountChange("u", "A2", "silver", T0.plusSeconds(300), back.plusMillis(10)));
        f.add(new AccountChange("d", "A2", "silver", T0.plusSeconds(360), back.plusMillis(20)));
        f.add(new AccountChange("u", "A1", "gold", T0.plusSeconds(420), back.plusMillis(30)));
        // one transaction updating A3 twice: one commit time, the topic's order decides
        f.add(new AccountChange("u", "A3", "silver", T0.plusSeconds(480), back.plusMillis(40)));
        f.add(new AccountChange("u", "A3", "gold", T0.plusSeconds(480), back.plusMillis(41)));
        return f;
    }

    private static Rec account(String table, AccountChange a) {
        String image = row("account_id", a.id(), "tier", a.tier());
        boolean delete = a.op().equals("d");
        return new Rec("{\"account_id\":\"" + a.id() + "\"}",
                debezium(table, a.op(), delete ? image : "null", delete ? "null" : image, a.commit(), a.processed(), ""), 0);
    }

    private static List<Event> accountEvents(List<AccountChange> feed, boolean commitTime) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < feed.size(); i++) {
            AccountChange a = feed.get(i);
            Instant t = commitTime ? a.commit() : a.processed();
            Source src = Source.kafka("model", 0, i);
            events.add(a.op().equals("d") ? Event.delete(t, Map.of("account_id", a.id()), i, src)
                    : Event.upsert(t, Map.of("account_id", a.id(), "tier", a.tier()), i, src));
        }
        return events;
    }

    // ---- the customers feed: truncates and messages

    private static Instant at(int s) {
        return T0.plusSeconds(s);
    }

    private static Rec change(String table, String op, String id, String city, Instant t) {
        String image = row("customer_id", id, "city", city);
        boolean delete = op.equals("d");
        return new Rec("{\"customer_id\":\"" + id + "\"}",
                debezium(table, op, delete ? image : "null", delete ? "null" : image, t, t.plusMillis(700), ""), null);
    }

    /** Before the truncate: 8 customers, changes, a delete and its tombstone, a message. */
    private static List<Rec> beforeTruncate(String table) {
        List<Rec> f = new ArrayList<>();
        String[] cities = {"Oslo", "Rome", "Lima", "Kyiv", "Bern", "Riga", "Oslo", "Rome"};
        for (int i = 1; i <= 8; i++) {
            f.add(change(table, "c", "C" + i, cities[i - 1], at(i)));
        }
        f.add(change(table, "u", "C3", "Paris", at(9)));
        f.add(change(table, "d", "C4", "Kyiv", at(10)));
        f.add(new Rec("{\"customer_id\":\"C4\"}", null, null));  // Debezium's tombstone after the delete
        f.add(change(table, "u", "C5", "Milan", at(11)));
        f.add(new Rec("{\"prefix\":\"audit\"}", debezium("", "m", "null", "null", at(12), at(12).plusMillis(700),
                ",\"message\":{\"prefix\":\"audit\",\"content\":\"eA==\"}"), null));
        f.add(change(table, "u", "C5", "Turin", at(13)));
        return f;
    }

    private static Rec truncate(String table) {
        return new Rec(null, debezium(table, "t", "null", "null", TT, TT.plusMillis(700), ""), null);
    }

    /** The truncate's transaction goes on: TRUNCATE; INSERT C1 (as it was); INSERT C9; then C2 again, later. */
    private static List<Rec> afterTruncate(String table) {
        return List.of(change(table, "c", "C1", "Oslo", TT), change(table, "c", "C9", "Sofia", TT),
                change(table, "c", "C2", "Athens", TT.plusSeconds(5)));
    }

    private static Event upsert(Instant t, String id, String city, long seq) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("city", city);
        return Event.upsert(t, data, seq, Source.kafka("model", 0, seq));
    }

    /** The model's events: the feed's changes, and (delete-all) a delete at TT for each key live then with no event then. */
    private static List<Event> customerEvents(boolean deleteAll) {
        List<Event> e = new ArrayList<>();
        String[] cities = {"Oslo", "Rome", "Lima", "Kyiv", "Bern", "Riga", "Oslo", "Rome"};
        long seq = 0;
        for (int i = 1; i <= 8; i++) {
            e.add(upsert(at(i), "C" + i, cities[i - 1], seq++));
        }
        e.add(upsert(at(9), "C3", "Paris", seq++));
        e.add(Event.delete(at(10), Map.of("customer_id", "C4"), seq++, Source.kafka("model", 0, seq)));
        e.add(upsert(at(11), "C5", "Milan", seq++));
        e.add(upsert(at(13), "C5", "Turin", seq++));
        if (deleteAll) {
            for (String id : List.of("C2", "C3", "C5", "C6", "C7", "C8")) { // C1 and C9 have events at TT; C4 is gone
                e.add(Event.delete(TT, Map.of("customer_id", id), seq++, Source.kafka("model", 0, seq)));
            }
        }
        e.add(upsert(TT, "C1", "Oslo", seq++));
        e.add(upsert(TT, "C9", "Sofia", seq++));
        e.add(upsert(TT.plusSeconds(5), "C2", "Athens", seq++));
        return e;
    }

    /** Every source record of a feed is counted once, under one class. */
    private static final Map<String, Double> CUSTOMER_COUNTS = new TreeMap<>(Map.of(
            "new", 9.0, "changed", 4.0, "deleted", 1.0, "unchanged", 1.0, "skipped", 1.0, "message", 1.0, "truncate", 2.0, "duplicate", 2.0));

    @Test
    void debeziumFeedsEventTimeTruncatesAndMessagesThroughTheService(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("pg.public.accounts", 1, (short) 1), new NewTopic("pg.public.accounts2", 1, (short) 1),
                    new NewTopic("pg.public.customers", 3, (short) 1), new NewTopic("pg.public.customers2", 3, (short) 1),
                    new NewTopic("pg.public.customers3", 3, (short) 1)));
            DimstreamConfig config = DimstreamConfig.parse("""
                    kafka:
                      bootstrap-servers: %s
                    postgres:
                      url: %s
                    entities:
                      - {name: account_commit, topic: pg.public.accounts, format: debezium-json, table: dim_dbz_account_commit,
                         key: [account_id], tracked: [tier], lateness-horizon: unlimited, columns: {account_id: text, tier: text}}
                      - {name: account_tsms, topic: pg.public.accounts2, format: debezium-json, event-time: ts_ms,
                         table: dim_dbz_account_tsms, key: [account_id], tracked: [tier], lateness-horizon: unlimited,
                         columns: {account_id: text, tier: text}}
                      - {name: customer_ignore, topic: pg.public.customers, format: debezium-json, table: dim_dbz_customer_ignore,
                         key: [customer_id], tracked: [city], lateness-horizon: unlimited, columns: {customer_id: text, city: text}}
                      - {name: customer_truncate, topic: pg.public.customers2, format: debezium-json, on-truncate: delete-all,
                         table: dim_dbz_customer_truncate, key: [customer_id], tracked: [city], lateness-horizon: unlimited,
                         columns: {customer_id: text, city: text}}
                      - {name: customer_bykey, topic: pg.public.customers3, format: debezium-json, on-truncate: delete-all,
                         partitioned-by-key: true, table: dim_dbz_customer_bykey, key: [customer_id], tracked: [city],
                         lateness-horizon: unlimited, columns: {customer_id: text, city: text}}
                    """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl()), "test config", Map.of());
            EntitySpec commit = config.entity("account_commit").toEntitySpec();
            EntitySpec tsMs = config.entity("account_tsms").toEntitySpec();
            EntitySpec ignore = config.entity("customer_ignore").toEntitySpec();
            EntitySpec truncate = config.entity("customer_truncate").toEntitySpec();
            EntitySpec byKey = config.entity("customer_bykey").toEntitySpec();
            // the keys of the feed are spread over the 3 changes partitions of customer_truncate
            assertThat(new TreeSet<>(List.of("C1", "C2", "C3", "C5", "C6", "C7", "C8", "C9").stream()
                    .map(id -> ChangesPartitioner.partitionOf(ChangeCodec.key(List.of(id)), 3)).toList())).containsExactly(0, 1, 2);

            // an entity with on-truncate: delete-all behind the repartition step needs as many changes partitions as
            // source partitions (each classify task writes its marker to the changes partition of its number)
            kafka.createTopics(List.of(new NewTopic("pg.public.orders", 3, (short) 1), new NewTopic("dimstream.purchase.changes", 2, (short) 1)));
            DimstreamConfig orders = DimstreamConfig.parse("""
                    kafka: {bootstrap-servers: %s}
                    postgres: {url: embedded}
                    entities:
                      - {name: purchase, topic: pg.public.orders, format: debezium-json, on-truncate: delete-all, table: dim_dbz_order,
                         key: [order_id], tracked: [state], columns: {order_id: text, state: text}}
                    """.formatted(kafka.bootstrapServers()), "test config", Map.of());
            // retried: the topics just created may not be in every broker's metadata yet (then the check sees none)
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThatThrownBy(() -> TopicSetup.createTopics(KafkaClients.of(kafka.bootstrapServers()), EntityPipeline.fromConfig(orders, "dimstream"), 2,
                            (short) 1, false))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("entity purchase is on-truncate: delete-all, so its changes topic dimstream.purchase.changes must have as "
                                    + "many partitions as its source topic pg.public.orders (3), but it has 2: recreate it or add partitions"));

            // dimstream's own topics get 2 partitions; customer_truncate's changes topic takes its source's 3
            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-it", 2, Duration.ofHours(1))
                    .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 300, Duration.ZERO));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (DimstreamService pipeline = DimstreamService.start(config, options, registry);
                 KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
                long sent = 0;
                List<AccountChange> accounts = accountFeed();
                for (AccountChange a : accounts) {
                    sent += send(producer, "pg.public.accounts", account("accounts", a));
                    sent += send(producer, "pg.public.accounts2", account("accounts", a));
                }
                // customer_ignore and customer_truncate: every record on source partition 0, in commit order,
                // as a connector writes one table to one partition; the repartition step spreads the keys
                for (String topic : List.of("pg.public.customers", "pg.public.customers2")) {
                    for (Rec r : beforeTruncate("customers")) {
                        sent += send(producer, topic, onPartition(r, 0));
                    }
                    sent += send(producer, topic, onPartition(truncate("customers"), 0));
                    for (Rec r : afterTruncate("customers")) {
                        sent += send(producer, topic, onPartition(r, 0));
                    }
                }
                // customer_bykey: records by key (3 partitions), the truncate on partition 1; Debezium orders
                // nothing across partitions, so each phase is through before the next is written
                for (Rec r : beforeTruncate("customers")) {
                    sent += send(producer, "pg.public.customers3", r);
                }
                assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
                sent += send(producer, "pg.public.customers3", onPartition(truncate("customers"), 1));
                assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
                for (Rec r : afterTruncate("customers")) {
                    sent += send(producer, "pg.public.customers3", r);
                }
                assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();

                // event time: valid_from is the commit time (source.ts_ms) by default, ts_ms with event-time: ts_ms
                assertThat(EntityTableReader.rows(ds, commit)).isEqualTo(new ReferenceModel(commit).rows(accountEvents(accounts, true)));
                assertThat(EntityTableReader.rows(ds, tsMs)).isEqualTo(new ReferenceModel(tsMs).rows(accountEvents(accounts, false)));
                assertThat(strings("SELECT account_id || ' ' || tier || ' ' || valid_from || ' ' || coalesce(valid_to::text, '-') || ' '"
                        + " || is_deleted FROM dim_dbz_account_commit ORDER BY account_id, valid_from")).containsExactly(
                        "A1 bronze 2025-08-01 00:00:00+00 2025-08-01 00:04:00+00 false",
                        "A1 silver 2025-08-01 00:04:00+00 2025-08-01 00:07:00+00 false",
                        "A1 gold 2025-08-01 00:07:00+00 - false",
                        "A2 bronze 2025-08-01 00:01:00+00 2025-08-01 00:05:00+00 false",
                        "A2 silver 2025-08-01 00:05:00+00 2025-08-01 00:06:00+00 false",
                        "A2 silver 2025-08-01 00:06:00+00 - true",
                        "A3 bronze 2025-08-01 00:02:00+00 2025-08-01 00:08:00+00 false",
                        // silver and gold share the commit: the later in the topic wins
                        "A3 gold 2025-08-01 00:08:00+00 - false");

                // truncates: ignored; applied behind the repartition step; applied without it
                List<Event> kept = customerEvents(false);
                List<Event> truncated = customerEvents(true);
                assertThat(EntityTableReader.rows(ds, ignore)).isEqualTo(new ReferenceModel(ignore).rows(kept));
                assertThat(EntityTableReader.rows(ds, truncate)).isEqualTo(new ReferenceModel(truncate).rows(truncated));
                assertThat(EntityTableReader.rows(ds, byKey)).isEqualTo(new ReferenceModel(byKey).rows(truncated));
                // the deletes carry the truncate's own record as their lineage (partition 0, offset 14 of pg.public.customers2)
                assertThat(strings("SELECT customer_id || ' ' || valid_from || ' ' || source_topic || '-' || source_partition || '@' || "
                        + "source_offset FROM dim_dbz_customer_truncate WHERE is_deleted ORDER BY customer_id")).containsExactly(
                        "C2 2025-08-02 00:00:00+00 pg.public.customers2-0@14",
                        "C3 2025-08-02 00:00:00+00 pg.public.customers2-0@14",
                        "C4 2025-08-01 00:00:10+00 pg.public.customers2-0@9",
                        "C5 2025-08-02 00:00:00+00 pg.public.customers2-0@14",
                        "C6 2025-08-02 00:00:00+00 pg.public.customers2-0@14",
                        "C7 2025-08-02 00:00:00+00 pg.public.customers2-0@14",
                        "C8 2025-08-02 00:00:00+00 pg.public.customers2-0@14");

                // Debezium re-delivers the truncate and the transaction's rows (a connector restart): nothing changes
                List<List<String>> before = new ArrayList<>();
                for (String t : List.of("dim_dbz_customer_ignore", "dim_dbz_customer_truncate", "dim_dbz_customer_bykey")) {
                    before.add(wholeRows(t));
                }
                List<Rec> again = new ArrayList<>();
                again.add(truncate("customers"));
                again.addAll(afterTruncate("customers").subList(0, 2));
                for (Rec r : again) {
                    sent += send(producer, "pg.public.customers", onPartition(r, 0));
                    sent += send(producer, "pg.public.customers2", onPartition(r, 0));
                    sent += send(producer, "pg.public.customers3", r.key() == null ? onPartition(r, 1) : r);
                }
                assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
                List<List<String>> after = new ArrayList<>();
                for (String t : List.of("dim_dbz_customer_ignore", "dim_dbz_customer_truncate", "dim_dbz_customer_bykey")) {
                    after.add(wholeRows(t));
                }
                assertThat(after).isEqualTo(before);

                // counted, none to the DLQ
                assertThat(counts(registry, "customer_ignore")).isEqualTo(CUSTOMER_COUNTS);
                assertThat(counts(registry, "customer_truncate")).isEqualTo(CUSTOMER_COUNTS);
                assertThat(counts(registry, "customer_bykey")).isEqualTo(CUSTOMER_COUNTS);
                assertThat(counts(registry, "account_commit")).isEqualTo(Map.of("new", 3.0, "changed", 5.0, "deleted", 1.0));
                assertThat(counts(registry, "account_tsms")).isEqualTo(Map.of("new", 3.0, "changed", 5.0, "deleted", 1.0));

                // replays of the truncated topic: into the live table nothing changes; a shadow rebuild equals it
                ReplayJobs jobs = new ReplayJobs(ds);
                List<String> live = wholeRows("dim_dbz_customer_truncate");
                ReplayJob liveJob = awaitFinished(jobs, jobs.submit("customer_truncate", "pg.public.customers2", ReplaySource.earliest(),
                        ReplayTarget.LIVE, "it"));
                assertThat(List.of(liveJob.state(), liveJob.eventsRead(), liveJob.eventsRejected(), liveJob.rowsChanged()))
                        .isEqualTo(List.of(JobState.SUCCEEDED, 21L, 0L, 0L));
                assertThat(wholeRows("dim_dbz_customer_truncate")).isEqualTo(live);
                var withKeys = EntityTableReader.withSurrogateKeys(ds, truncate);
                ReplayJob shadowJob = awaitFinished(jobs, jobs.submit("customer_truncate", "pg.public.customers2", ReplaySource.earliest(),
                        ReplayTarget.SHADOW, "it"));
                assertThat(shadowJob.state()).isEqualTo(JobState.SUCCEEDED);
                assertThat(EntityTableReader.withSurrogateKeys(ds, truncate)).isEqualTo(withKeys);
                assertThat(EntityTableReader.rows(ds, truncate)).isEqualTo(new ReferenceModel(truncate).rows(truncated));
            }
        }
    }

    private static Rec onPartition(Rec r, int partition) {
        return new Rec(r.key(), r.value(), partition);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends one record and waits for it (the order of a partition is the order sent); returns 1. */
    private static long send(KafkaProducer<byte[], byte[]> producer, String topic, Rec r) throws Exception {
        byte[] key = r.key() == null ? null : r.key().getBytes(StandardCharsets.UTF_8);
        byte[] value = r.value() == null ? null : r.value().getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, r.partition(), key, value)).get();
        return 1;
    }

    private static Map<String, Double> counts(MeterRegistry registry, String entity) {
        Map<String, Double> m = new TreeMap<>();
        for (Counter c : registry.find("dimstream.events").tag("entity", entity).counters()) {
            m.put(c.getId().getTag("class"), c.count());
        }
        return m;
    }

    private ReplayJob awaitFinished(ReplayJobs jobs, long id) throws java.sql.SQLException {
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> jobs.find(id).orElseThrow().state().finished());
        return jobs.find(id).orElseThrow();
    }

    /** Every column of every row (lineage, surrogate key and loaded_at included) as JSON, by key and valid_from. */
    private List<String> wholeRows(String table) throws Exception {
        return strings("SELECT to_jsonb(t)::text FROM " + table + " t ORDER BY customer_id, valid_from");
    }

    private List<String> strings(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
