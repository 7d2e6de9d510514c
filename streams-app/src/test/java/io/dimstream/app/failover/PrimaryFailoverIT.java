package io.dimstream.app.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.health.HealthReport;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.sink.SinkMetrics;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.testing.PgClusters;
import io.dimstream.app.testing.PgClusters.Replication;
import io.dimstream.app.testing.ServiceHarness;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL primary that fails mid-stream while its streaming standby is promoted, with
 * {@code postgres.url} a multi-host URL ({@code targetServerType=primary}) and the default settings,
 * for each of {killed, frozen} x {synchronous, asynchronous replication}. Killed: SIGKILL of the
 * postmaster and every child (the port closed, every connection reset, as a crashed host). Frozen:
 * SIGSTOP of them all (TCP open, nothing answered, as a hung VM or stuck storage). Each case: the
 * service writes to the promoted node within 30 s of the promotion, {@code /health/ready} is DOWN
 * meanwhile naming the sink or PostgreSQL (a frozen primary: the sink's own check, though no error
 * reached it, as it writes nothing), UP again after, and the table ends equal, row by row, to the
 * reference model of the whole feed.
 *
 * <p>Asynchronous: replication is held just before the failure, so the old primary has commits the
 * standby never received: the sink finds its stored offsets behind what it committed, says PostgreSQL
 * lost commits (a WARN, {@code dimstream_sink_offsets_regressed_total}) and applies them again from
 * Kafka. Synchronous ({@code synchronous_standby_names} naming the standby, {@code synchronous_commit
 * = on}): every acknowledged commit is on the standby, so nothing is said lost and the counter stays 0.
 * Before the pool had its login bounds and its watch on hung servers, nothing reached the promoted
 * node for 90 s after a freeze.
 */
class PrimaryFailoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(PrimaryFailoverIT.class);

    /** What happens to the primary. */
    enum Failure {
        KILLED, FROZEN;

        void apply(PgClusters pg) throws Exception {
            if (this == KILLED) {
                pg.killPrimary();
            } else {
                pg.freezePrimary();
            }
        }
    }

    private static long rows(PGSimpleDataSource ds, String table) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }

    /** The sum of the sink's stored next offsets on one node, -1 when it does not answer. */
    private static long storedOffsets(PGSimpleDataSource ds) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(sum(next_offset), 0) FROM dimstream.sink_offsets")) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }

    private static DimstreamConfig config(EmbeddedKafka kafka, PgClusters pg, String table) {
        return DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: customer
                    topic: crm.customers
                    format: json
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: P30D
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                """.formatted(kafka.bootstrapServers(), pg.multiHostUrl(), table), "test config", Map.of());
    }

    /** The rest of the feed, 50 records every 250 ms, so that the failure comes while it flows. */
    private static Thread producer(EmbeddedKafka kafka, List<CustomerFeed.FeedRecord> feed, int from) {
        Thread producer = new Thread(() -> {
            for (int i = from; i < feed.size(); i += 50) {
                FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(i, Math.min(i + 50, feed.size())), Map.of());
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "failover-it-producer");
        producer.start();
        return producer;
    }

    @ParameterizedTest(name = "{0} primary, {1} replication")
    @CsvSource({"FROZEN, ASYNCHRONOUS", "KILLED, SYNCHRONOUS", "KILLED, ASYNCHRONOUS", "FROZEN, SYNCHRONOUS"})
    void theStandbyPromotedTheServiceWritesAgainWithin30SecondsAndLosesNothing(Failure failure, Replication replication,
                                                                                @TempDir Path dir) throws Exception {
        String why = PgClusters.unavailable();
        assumeTrue(why == null, () -> "two PostgreSQL clusters cannot be made here: " + why);
        long began = System.nanoTime();
        int[] ports = ServiceHarness.freePorts(2);
        try (PgClusters pg = PgClusters.start(ports[0], ports[1], replication);
             EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
             StderrTee log = StderrTee.start()) {
            kafka.createTopics(List.of(new NewTopic("crm.customers", 3, (short) 1)));
            String table = "dim_customer_failover_it";
            DimstreamConfig config = config(kafka, pg, table);
            EntitySpec customer = config.entity("customer").toEntitySpec();
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(34, 40, Instant.parse("2025-08-01T00:00:00Z")).next(1200);
            List<ExpectedRow> expected = new ReferenceModel(customer).rows(FeedFixtures.split(customer, "crm.customers", feed).valid());
            PGSimpleDataSource promoted = new PGSimpleDataSource();
            promoted.setURL(pg.standbyUrl());
            PGSimpleDataSource primary = new PGSimpleDataSource();
            primary.setURL(pg.primaryUrl());

            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "failover-it", 3, Duration.ofHours(1));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (DimstreamService service = DimstreamService.start(config, options, registry)) {
                FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(0, 600), Map.of());
                // mid-stream: the first part landing on the primary (and streamed to the standby), more on its way
                await().atMost(Duration.ofMinutes(2)).until(() -> rows(promoted, table) > 0);
                Thread producer = producer(kafka, feed, 600);
                if (replication == Replication.ASYNCHRONOUS) {
                    // losing commits: the primary's WAL senders held, the sink commits on the primary what
                    // the standby never receives
                    pg.holdReplication();
                }
                // the failure comes once the sink has committed more than the standby has now (asynchronous:
                // on the primary alone; synchronous: on both)
                long standbyOffsets = storedOffsets(promoted);
                PGSimpleDataSource committing = replication == Replication.ASYNCHRONOUS ? primary : promoted;
                await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                        .until(() -> storedOffsets(committing) > standbyOffsets);

                Duration writingAgain = failOver(pg, service, failure, failure + " primary, " + replication + " replication", promoted, table);
                producer.join();
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(promoted, customer)).isEqualTo(expected));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    HealthReport ready = service.health().ready();
                    assertThat(ready.up()).as("/health/ready after the failover: %s", ready.toJson()).isTrue();
                });
                assertLostCommitsSaid(replication, registry, log.text());
                assertThat(writingAgain).as("from the promotion to the first write on the promoted node").isLessThan(Duration.ofSeconds(30));
            }
        } finally {
            LOG.info("{} primary, {} replication: case took {} s", failure, replication, (System.nanoTime() - began) / 1_000_000_000);
        }
    }

    /**
     * The failure, the promotion, and the time from the promotion to the first write on the promoted
     * node; {@code /health/ready} DOWN in between, naming the sink or PostgreSQL. A killed primary is
     * promoted once readiness says so, as a failover manager takes seconds to decide: promoted at once,
     * the outage (about a second) falls between two of the health probes, 5 s apart, and the sink,
     * idle at that moment, may never meet it. A frozen one is promoted at once: its hang, not the
     * promotion, is what the service must get past (about 20 s).
     */
    private static Duration failOver(PgClusters pg, DimstreamService service, Failure failure, String label,
                                     PGSimpleDataSource promoted, String table) throws Exception {
        // ready before the failure, so that what the watch sees DOWN is the failure's
        await().alias("/health/ready UP before the failure").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> service.health().ready().up());
        try (ReadinessWatch readiness = ReadinessWatch.start(service)) {
            long failedAt = System.nanoTime();
            failure.apply(pg);
            long rowsBefore = rows(promoted, table);
            long offsetsBefore = storedOffsets(promoted);
            if (failure == Failure.KILLED) {
                await().alias("/health/ready DOWN naming the sink or postgres after the primary was killed")
                        .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> readiness.down() != null);
            }
            pg.promoteStandby();
            long promotedAt = System.nanoTime();
            // writes again on the promoted node: a row or an offset it did not have at the promotion
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> rows(promoted, table) > rowsBefore || storedOffsets(promoted) > offsetsBefore);
            Duration writingAgain = Duration.ofNanos(System.nanoTime() - promotedAt);
            LOG.info("{}: promoted {} ms after the failure, written on the promoted node {} ms after the promotion; /health/ready "
                    + "meanwhile, first with the sink DOWN: {}; first with postgres DOWN: {}", label, (promotedAt - failedAt) / 1_000_000,
                    writingAgain.toMillis(), readiness.seen("sink", failedAt), readiness.seen("postgres", failedAt));
            // a hung primary holds the sink's commit without an error: the sink itself must say it writes nothing
            assertThat(failure == Failure.FROZEN ? readiness.down("sink") : readiness.down())
                    .as("/health/ready between the failure and the first write on the promoted node").isNotNull();
            return writingAgain;
        }
    }

    /**
     * Asynchronous: what the primary committed and the standby never had was found and applied again,
     * and said so (a WARN per partition, the counter). Synchronous: nothing was lost, nothing said lost.
     */
    private static void assertLostCommitsSaid(Replication replication, SimpleMeterRegistry registry, String log) {
        double regressed = registry.find(SinkMetrics.REGRESSED).counters().stream().mapToDouble(Counter::count).sum();
        List<String> lostLines = log.lines().filter(l -> l.contains("WARN") && l.contains("PostgreSQL lost commits")).toList();
        if (replication == Replication.ASYNCHRONOUS) {
            assertThat(regressed).as("dimstream_sink_offsets_regressed_total").isPositive();
            assertThat(lostLines).as("WARN lines saying PostgreSQL lost commits").hasSize((int) regressed);
        } else {
            assertThat(regressed).as("dimstream_sink_offsets_regressed_total").isZero();
            assertThat(lostLines).as("WARN lines saying PostgreSQL lost commits").isEmpty();
        }
    }

    /**
     * Asks {@code /health/ready}'s report every 50 ms from its start to its close, and keeps the first
     * DOWN report with the sink's check DOWN, and the first with PostgreSQL's: what an operator saw meanwhile.
     */
    private static final class ReadinessWatch implements AutoCloseable {
        private record Seen(HealthReport report, long nanos) {
        }

        private final Map<String, AtomicReference<Seen>> firstDown = Map.of("sink", new AtomicReference<>(),
                "postgres", new AtomicReference<>());
        private final Thread thread;

        private ReadinessWatch(DimstreamService service) {
            thread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    HealthReport r = service.health().ready();
                    long now = System.nanoTime();
                    firstDown.forEach((check, first) -> {
                        HealthReport.Check c = r.checks().get(check);
                        if (!r.up() && c != null && !c.up() && !c.detail().isBlank()) {
                            first.compareAndSet(null, new Seen(r, now));
                        }
                    });
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "failover-it-readiness");
            thread.setDaemon(true);
        }

        static ReadinessWatch start(DimstreamService service) {
            ReadinessWatch w = new ReadinessWatch(service);
            w.thread.start();
            return w;
        }

        /** The first DOWN report with {@code check} ("sink" or "postgres") DOWN, or null. */
        HealthReport down(String check) {
            Seen seen = firstDown.get(check).get();
            return seen == null ? null : seen.report();
        }

        /** The first DOWN report with the sink's or PostgreSQL's check DOWN, or null. */
        HealthReport down() {
            HealthReport sink = down("sink");
            return sink != null ? sink : down("postgres");
        }

        /** For the log: when, after {@code since}, the check was first seen DOWN, and the report. */
        String seen(String check, long since) {
            Seen seen = firstDown.get(check).get();
            return seen == null ? "never" : (seen.nanos() - since) / 1_000_000 + " ms after the failure " + seen.report().toJson();
        }

        @Override
        public void close() throws InterruptedException {
            thread.interrupt();
            thread.join();
        }
    }

    /**
     * What the service logs while it is open: slf4j-simple writes each line to the {@code System.err}
     * of the moment, so {@code System.err} is replaced by a stream that writes to the original and keeps
     * a copy; closing puts the original back.
     */
    private static final class StderrTee implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        static StderrTee start() {
            StderrTee t = new StderrTee();
            System.setErr(new PrintStream(new OutputStream() {
                @Override
                public synchronized void write(int b) {
                    t.original.write(b);
                    t.copy.write(b);
                }

                @Override
                public synchronized void write(byte[] b, int off, int len) {
                    t.original.write(b, off, len);
                    t.copy.write(b, off, len);
                }
            }, true, StandardCharsets.UTF_8));
            return t;
        }

        String text() {
            return copy.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }
}
