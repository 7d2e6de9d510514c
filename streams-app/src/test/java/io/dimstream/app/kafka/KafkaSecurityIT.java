package io.dimstream.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.testing.ServiceHarness;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka.client:} reaches every Kafka client dimstream makes. The broker has a PLAINTEXT
 * listener (the test's own admin client) and a SASL_PLAINTEXT listener (PLAIN mechanism, one user);
 * dimstream is given only the SASL listener, so a client that ignored the settings could not talk to
 * the broker at all. Through it: Kafka Streams and the sink (the table equals the reference model),
 * the topic creation, the DLQ mirror (the malformed records are mirrored with reasons), the re-drive
 * producer (a re-driven record comes back through the pipeline) and the replay worker (a live replay
 * of the topic succeeds and changes nothing). A wrong password is refused at startup, naming the cause
 * and the settings to check ({@link KafkaReachability}).
 */
class KafkaSecurityIT {

    static final String USER = "dimstream";
    static final String PASSWORD = "s3cret-\u00e4";
    private static final String TOPIC = "crm.customers_sasl";
    /** Its own entity name: the DLQ mirror and replay jobs of other ITs in this JVM's database are under theirs. */
    private static final String ENTITY = "customer_sasl";

    @Test
    void everyClientConnectsThroughSaslWithTheConfiguredSettings(@TempDir Path dir) throws Exception {
        int saslPort = freePort();
        try (EmbeddedKafka kafka = startWithSasl(dir.resolve("kafka"), saslPort)) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
            String sasl = "127.0.0.1:" + saslPort;
            String table = "dim_customer_sasl_it";
            DimstreamConfig config = config(sasl, PASSWORD, ENTITY, table);
            EntitySpec spec = config.entity(ENTITY).toEntitySpec();
            DataSource ds = TestPostgres.dataSource();
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(7, 25, Instant.parse("2025-08-01T00:00:00Z")).next(400);
            FeedFixtures.Split split = FeedFixtures.split(spec, TOPIC, feed);
            List<String> malformed = split.malformed();
            assertThat(malformed).isNotEmpty();
            List<ExpectedRow> expected = new ReferenceModel(spec).rows(split.valid());

            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "sasl-it", 3, Duration.ofHours(1));
            try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
                FeedFixtures.produce(sasl, TOPIC, feed, Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                        "sasl.jaas.config", jaas(USER, PASSWORD)));

                // Kafka Streams and the sink
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expected));

                // the DLQ mirror's consumer
                DlqRecords dlq = new DlqRecords(ds);
                await().atMost(Duration.ofMinutes(1)).until(() -> dlq.page(ENTITY, null, 1000).size() == malformed.size());
                List<DlqRecords.DlqRecord> mirrored = dlq.page(ENTITY, null, 1000);
                assertThat(mirrored.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList())
                        .containsExactlyInAnyOrderElementsOf(malformed);

                // the re-drive producer: the record goes back to the source topic and, still malformed, to the DLQ again
                DlqRecords.DlqRecord one = mirrored.get(0);
                assertThat(dlq.requestRedrive(List.of(one.id()), "carol")).containsExactly(one.id());
                await().atMost(Duration.ofMinutes(1)).until(() -> dlq.page(ENTITY, null, 1000).size() == malformed.size() + 1);
                List<DlqRecords.DlqRecord> after = dlq.page(ENTITY, null, 1000);
                assertThat(after.stream().filter(r -> r.id() == one.id()).findFirst().orElseThrow().redriveState()).isEqualTo("done");
                assertThat(new String(after.get(0).value(), StandardCharsets.UTF_8)).isEqualTo(new String(one.value(), StandardCharsets.UTF_8));

                // the replay worker's consumer: a live replay of the whole topic changes no row
                ReplayJobs jobs = new ReplayJobs(ds);
                long id = jobs.submit(ENTITY, TOPIC, ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                        .until(() -> jobs.find(id).orElseThrow().state().finished());
                ReplayJob job = jobs.find(id).orElseThrow();
                assertThat(List.of(job.state(), job.eventsRead(), job.rowsChanged()))
                        .isEqualTo(List.of(JobState.SUCCEEDED, (long) feed.size() + 1, 0L));
                assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expected);
            }

            // the same settings with a wrong password: refused at startup, saying why
            DimstreamConfig wrong = config(sasl, "not-the-password", ENTITY + "_wrong", table + "_wrong");
            assertThatThrownBy(() -> DimstreamService.start(wrong, new ServiceOptions(dir.resolve("data-wrong"), "sasl-it-wrong", 3,
                    Duration.ofHours(1)), new SimpleMeterRegistry()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("""
                            no Kafka broker answered at %1$s (kafka.bootstrap-servers); what was tried:
                              %1$s: accepts TCP connections, but Kafka refused the client: SaslAuthenticationException: \
                            Authentication failed: Invalid username or password.
                            Check: the security settings in kafka.client (security.protocol, sasl.mechanism, sasl.jaas.config, \
                            ssl.*) against the broker's listener at %1$s, and the credentials.""".formatted(sasl));
        }
    }

    private static DimstreamConfig config(String bootstrap, String password, String entity, String table) {
        return DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                  client:
                    security.protocol: SASL_PLAINTEXT
                    sasl.mechanism: PLAIN
                    sasl.jaas.config: ${SASL_JAAS}
                postgres:
                  url: %s
                entities:
                  - name: %s
                    topic: %s
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                """.formatted(bootstrap, TestPostgres.jdbcUrl(), entity, TOPIC, table), "test config", Map.of("SASL_JAAS", jaas(USER, password)));
    }

    static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\"" + password + "\";";
    }

    /**
     * An embedded broker with a SASL_PLAINTEXT listener on {@code saslPort} beside its PLAINTEXT one.
     * The listener list names the ports, so they are chosen here and written where
     * {@link EmbeddedKafka} looks for the ports of a log directory it ran before.
     */
    static EmbeddedKafka startWithSasl(Path logDir, int saslPort) throws Exception {
        int[] picked = ServiceHarness.freePorts(2, saslPort);
        int broker = picked[0];
        int controller = picked[1];
        Files.createDirectories(logDir);
        Properties ports = new Properties();
        ports.setProperty("broker", Integer.toString(broker));
        ports.setProperty("controller", Integer.toString(controller));
        try (OutputStream out = Files.newOutputStream(logDir.resolve(EmbeddedKafka.PORTS_FILE))) {
            ports.store(out, null);
        }
        return EmbeddedKafka.start(logDir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:" + broker + ",CONTROLLER://127.0.0.1:" + controller
                        + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort,
                "advertised.listeners", "PLAINTEXT://127.0.0.1:" + broker + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort,
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + USER + "=\"" + PASSWORD + "\";"));
    }

    static int freePort() throws Exception {
        return ServiceHarness.freePort();
    }
}
