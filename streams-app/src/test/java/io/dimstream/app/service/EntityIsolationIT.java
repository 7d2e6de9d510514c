package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.health.HealthReport;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.AvroWire;
import io.dimstream.app.testing.OutageRegistry;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.schemas.DemoSchemas;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 34's isolation bar, on the real service with its default settings: a schema registry outage
 * of one entity ({@code account}, Avro) does not delay another ({@code customer}, JSON). The
 * customer's end-to-end latency (a record sent until its row is in the table) is measured at a
 * steady rate for {@value #BASELINE_SECONDS} s, then during an outage of the registry of
 * {@code dimstream.isolation.outage-seconds} (default 60) s: answering 500 for its first half, then
 * accepting requests and never answering. The accounts produced meanwhile carry a schema id the
 * service has not fetched yet, so their decode needs the registry. Must hold: the customer's p99
 * during the outage at most twice its p99 before; no account produced in the outage lands before
 * the registry is back (the outage did bite); readiness names the account's client, and only it;
 * after the registry is back both tables equal their reference models. On one Kafka Streams client
 * for all entities, a customer record took 66 s to land in such an outage.
 */
class EntityIsolationIT {

    private static final Logger LOG = LoggerFactory.getLogger(EntityIsolationIT.class);
    private static final int BASELINE_SECONDS = 30;
    private static final int CUSTOMERS_PER_SECOND = 20;
    private static final int ACCOUNTS_PER_SECOND = 5;
    private static final String CUSTOMERS = "crm.customers";
    private static final String ACCOUNTS = "crm.accounts.avro";
    private static final Instant T0 = Instant.parse("2025-08-22T17:00:00Z");

    @Test
    void aRegistryOutageOfOneEntityLeavesAnotherEntitysLatencyAsItWas(@TempDir Path dir) throws Exception {
        int outageSeconds = Integer.getInteger("dimstream.isolation.outage-seconds", 60);
        Schema change = DemoSchemas.customerChange();
        try (OutageRegistry registry = new OutageRegistry(Map.of(1, change, 2, change));
             EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(CUSTOMERS, 3, (short) 1), new NewTopic(ACCOUNTS, 3, (short) 1)));
            String url = TestPostgres.newDatabase();
            DimstreamConfig config = DimstreamConfig.parse("""
                    kafka:
                      bootstrap-servers: %s
                    postgres:
                      url: %s
                    entities:
                      - name: customer
                        topic: %s
                        format: json
                        table: dim_customer
                        key: [customer_id]
                        tracked: [email]
                        columns: {customer_id: text, email: text}
                      - name: account
                        topic: %s
                        format: avro
                        deserializer-config: {schema.registry.url: "%s"}
                        table: dim_account
                        key: [customer_id]
                        tracked: [email, full_name, country, city, loyalty_tier]
                        type1: [last_login]
                        columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                                  loyalty_tier: text, last_login: bigint}
                    """.formatted(kafka.bootstrapServers(), url, CUSTOMERS, ACCOUNTS, registry.url()), "isolation config", Map.of());
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL(url);
            Feeds feeds = new Feeds(kafka.bootstrapServers(), change, ds);
            try (DimstreamService service = DimstreamService.start(config,
                    new ServiceOptions(dir.resolve("data"), "isolation-it", 3, Duration.ofHours(1)), new SimpleMeterRegistry());
                 feeds) {
                // warm: both entities flowing, schema id 1 fetched
                feeds.run(15, 1);
                await().atMost(Duration.ofMinutes(2)).until(() -> feeds.pendingCustomers() == 0 && feeds.accountsLanded() == feeds.accountsSent());
                feeds.latencies.clear();

                feeds.run(BASELINE_SECONDS, 1);
                List<Long> before = feeds.settledLatencies();
                int accountsBefore = feeds.accountsSent();
                await().atMost(Duration.ofMinutes(1)).until(() -> feeds.accountsLanded() == accountsBefore);

                List<HealthReport.Check> streamsChecks = new CopyOnWriteArrayList<>();
                Thread watch = new Thread(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        streamsChecks.add(service.health().ready().checks().get("streams"));
                        try {
                            Thread.sleep(500);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "readiness-watch");
                registry.fail(500);
                watch.start();
                feeds.run(outageSeconds / 2, 2);
                registry.hang();
                feeds.run(outageSeconds - outageSeconds / 2, 2);
                int landedInOutage = feeds.accountsLanded() - accountsBefore;
                registry.recover();
                watch.interrupt();
                watch.join();
                List<Long> during = feeds.settledLatencies();

                long p99Before = percentile(before, 99);
                long p99During = percentile(during, 99);
                LOG.info(String.format(Locale.ROOT, "ISOLATION: customer latency before the outage p50 %d ms p99 %d ms max %d ms (%d events);"
                                + " during a %d s registry outage of account p50 %d ms p99 %d ms max %d ms (%d events): %.2fx",
                        percentile(before, 50), p99Before, percentile(before, 100), before.size(), outageSeconds,
                        percentile(during, 50), p99During, percentile(during, 100), during.size(), (double) p99During / p99Before));

                assertThat(landedInOutage).as("accounts of the unfetched schema id that landed while the registry was down").isZero();
                assertThat(p99During).as("the customer's p99 during the outage (before: %d ms)", p99Before).isLessThanOrEqualTo(2 * p99Before);
                assertThat(streamsChecks).as("readiness during the outage names the account's client down, the customer's running")
                        .anySatisfy(c -> {
                            assertThat(c.up()).isFalse();
                            assertThat(c.detail()).startsWith("account: a stream thread died of a transient cause").endsWith("; customer: RUNNING");
                        });

                // the registry back: every account lands, none dead-lettered; both tables as the reference model says
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                        .untilAsserted(() -> assertThat(EntityTableReader.rows(ds, feeds.accountSpec(config)))
                                .isEqualTo(new ReferenceModel(feeds.accountSpec(config)).rows(feeds.accountEvents)));
                assertThat(EntityTableReader.rows(ds, config.entity("customer").toEntitySpec()))
                        .isEqualTo(new ReferenceModel(config.entity("customer").toEntitySpec()).rows(feeds.customerEvents));
            }
        }
    }

    /** The {@code p}th percentile (nearest rank) of the latencies, in ms; 100 is the maximum. */
    private static long percentile(List<Long> latencies, int p) {
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    /**
     * The two feeds at a steady rate: customers (JSON, each a new key, its landing polled every
     * 20 ms) and accounts (Avro, each a new key, with the schema id the caller names).
     */
    private static final class Feeds implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final Schema change;
        private final DataSource ds;
        /** Sent and not yet seen in the table: key -> send time (ns). */
        private final Map<String, Long> pending = new ConcurrentHashMap<>();
        private final List<Long> latencies = new CopyOnWriteArrayList<>();
        private final List<Event> customerEvents = new ArrayList<>();
        private final List<Event> accountEvents = new ArrayList<>();
        private final Thread poller;
        private int customers;
        private int accounts;

        Feeds(String bootstrap, Schema change, DataSource ds) {
            this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
                    new ByteArraySerializer(), new ByteArraySerializer());
            this.change = change;
            this.ds = ds;
            this.poller = new Thread(this::poll, "landing-poller");
            poller.start();
        }

        /** Sends for {@code seconds} at the steady rates; accounts with {@code schemaId}. */
        void run(int seconds, int schemaId) throws InterruptedException {
            long start = System.nanoTime();
            long ticks = (long) seconds * CUSTOMERS_PER_SECOND;
            for (long i = 0; i < ticks; i++) {
                long due = start + i * 1_000_000_000L / CUSTOMERS_PER_SECOND;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                sendCustomer();
                if (i % (CUSTOMERS_PER_SECOND / ACCOUNTS_PER_SECOND) == 0) {
                    sendAccount(schemaId);
                }
            }
        }

        private void sendCustomer() {
            String id = String.format(Locale.ROOT, "K%06d", customers);
            Instant t = T0.plusSeconds(customers);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("customer_id", id);
            data.put("email", id + "@example.com");
            customerEvents.add(Event.upsert(t, data, customers, Source.kafka(CUSTOMERS, 0, customers)));
            String json = "{\"op\":\"upsert\",\"event_time\":\"" + t + "\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\"" + id
                    + "@example.com\"}}";
            pending.put(id, System.nanoTime());
            producer.send(new ProducerRecord<>(CUSTOMERS, id.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8)));
            customers++;
        }

        private void sendAccount(int schemaId) {
            String id = String.format(Locale.ROOT, "A%06d", accounts);
            Instant t = T0.plusSeconds(accounts);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("customer_id", id);
            data.put("email", id + "@example.com");
            for (String c : List.of("full_name", "country", "city", "loyalty_tier", "last_login")) {
                data.put(c, null);
            }
            accountEvents.add(Event.upsert(t, data, accounts, Source.kafka(ACCOUNTS, 0, accounts)));
            producer.send(new ProducerRecord<>(ACCOUNTS, id.getBytes(StandardCharsets.UTF_8),
                    AvroWire.wire(schemaId, AvroWire.customerUpsert(change, id, id + "@example.com", t))));
            accounts++;
        }

        /** Every 20 ms: which pending customers are in the table; each found gives one latency. */
        private void poll() {
            while (!Thread.currentThread().isInterrupted()) {
                try (Connection c = ds.getConnection();
                     PreparedStatement s = c.prepareStatement("SELECT customer_id FROM dim_customer WHERE customer_id = ANY(?)")) {
                    while (true) {
                        if (!pending.isEmpty()) {
                            s.setArray(1, c.createArrayOf("text", pending.keySet().toArray()));
                            long now = System.nanoTime();
                            try (ResultSet rs = s.executeQuery()) {
                                while (rs.next()) {
                                    Long sent = pending.remove(rs.getString(1));
                                    if (sent != null) {
                                        latencies.add((now - sent) / 1_000_000);
                                    }
                                }
                            }
                        }
                        Thread.sleep(20);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (SQLException e) {
                    // the table does not exist yet in the first moments: ask again
                    LOG.debug("landing poll: {}", e.getMessage());
                }
            }
        }

        /** Waits (up to a minute) for every customer sent so far to land, then returns and clears the latencies. */
        List<Long> settledLatencies() {
            await().atMost(Duration.ofMinutes(1)).until(() -> pending.isEmpty());
            List<Long> all = List.copyOf(latencies);
            latencies.clear();
            return all;
        }

        int pendingCustomers() {
            return pending.size();
        }

        int accountsSent() {
            return accounts;
        }

        int accountsLanded() throws SQLException {
            try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement("SELECT count(*) FROM dim_account");
                 ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }

        EntitySpec accountSpec(DimstreamConfig config) {
            return config.entity("account").toEntitySpec();
        }

        @Override
        public void close() throws InterruptedException {
            poller.interrupt();
            poller.join();
            producer.close();
        }
    }
}
