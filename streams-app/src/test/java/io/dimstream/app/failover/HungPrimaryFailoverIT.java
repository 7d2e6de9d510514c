package io.dimstream.app.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.sink.SinkMetrics;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.testing.PgClusters;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL primary that hangs mid-stream (SIGSTOP of all its processes: TCP open, nothing
 * answered, as a hung VM or stuck storage) while an asynchronous streaming standby is promoted,
 * with {@code postgres.url} a multi-host URL ({@code targetServerType=primary}) and the default
 * settings: the service writes to the promoted node within 30 s of the promotion, and the table ends
 * equal, row by row, to the reference model of the whole feed. Replication is held just before the
 * hang, so the old primary has commits the standby never received: the sink finds its stored offsets
 * behind what it committed, says PostgreSQL lost commits ({@code dimstream_sink_offsets_regressed_total})
 * and applies them again from Kafka. Before the pool had its login bounds and its watch on
 * hung servers, nothing reached the promoted node for 90 s.
 */
class HungPrimaryFailoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(HungPrimaryFailoverIT.class);

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
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

    @Test
    void aHungPrimaryWithItsStandbyPromotedLosesNothingAndWritesAgainWithin30Seconds(@TempDir Path dir) throws Exception {
        String why = PgClusters.unavailable();
        assumeTrue(why == null, () -> "two PostgreSQL clusters cannot be made here: " + why);
        try (PgClusters pg = PgClusters.start(freePort(), freePort()); EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("crm.customers", 3, (short) 1)));
            String table = "dim_customer_failover_it";
            DimstreamConfig config = DimstreamConfig.parse("""
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
            EntitySpec customer = config.entity("customer").toEntitySpec();
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(34, 40, Instant.parse("2025-08-01T00:00:00Z")).next(1200);
            List<ExpectedRow> expected = new ReferenceModel(customer).rows(FeedFixtures.split(customer, "crm.customers", feed).valid());
            PGSimpleDataSource promoted = new PGSimpleDataSource();
            promoted.setURL(pg.standbyUrl());

            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "failover-it", 3, Duration.ofHours(1));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (DimstreamService service = DimstreamService.start(config, options, registry)) {
                FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(0, 600), Map.of());
                // mid-stream: the first part landing on the primary (and streamed to the standby), more on its way
                await().atMost(Duration.ofMinutes(2)).until(() -> rows(promoted, table) > 0);
                Thread producer = new Thread(() -> {
                    for (int i = 600; i < feed.size(); i += 50) {
                        FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(i, Math.min(i + 50, feed.size())), Map.of());
                        try {
                            Thread.sleep(250);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "failover-it-producer");
                producer.start();
                // asynchronous replication losing commits: the primary's WAL senders held, the sink commits on
                // the primary what the standby never receives, then the primary hangs
                pg.holdReplication();
                PGSimpleDataSource primary = new PGSimpleDataSource();
                primary.setURL(pg.primaryUrl());
                long standbyOffsets = storedOffsets(promoted);
                await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                        .until(() -> storedOffsets(primary) > standbyOffsets);
                pg.freezePrimary();
                pg.promoteStandby();
                long promotedAt = System.nanoTime();
                long before = rows(promoted, table);
                // writes again on the promoted node: a row it did not have at the promotion
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> rows(promoted, table) > before);
                Duration writingAgain = Duration.ofNanos(System.nanoTime() - promotedAt);
                LOG.info("hung primary: rows written on the promoted node {} ms after the promotion", writingAgain.toMillis());
                producer.join();
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(promoted, customer)).isEqualTo(expected));
                // what the primary committed and the standby never had was found and applied again, and said so
                assertThat(registry.find(SinkMetrics.REGRESSED).counters().stream().mapToDouble(Counter::count).sum())
                        .as("dimstream_sink_offsets_regressed_total").isPositive();
                assertThat(writingAgain).as("from the promotion to the first row written on the promoted node")
                        .isLessThan(Duration.ofSeconds(30));
            }
        }
    }
}
