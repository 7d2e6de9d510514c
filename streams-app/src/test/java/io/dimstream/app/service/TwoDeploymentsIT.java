package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two deployments of dimstream on one Kafka cluster (issue 30): each has its own
 * {@code service.application-id} and its own PostgreSQL database, and both have an entity named
 * {@code customer}. Each is fed its own events; each table must end equal, row by row, to the
 * reference model of ITS events only, neither sink may set anything aside in
 * {@code dimstream.sink_rejects}, and each DLQ mirror holds exactly the bad records its own
 * topology refused, once. Before the topics dimstream owns were named per deployment both sinks
 * read {@code dimstream.customer.changes}: with the same columns each table took in the other's
 * events silently, with other columns one sink refused the other's changes into its rejects, and
 * on a shared source topic both topologies wrote one {@code <source topic>.dlq} that both mirrors copied.
 */
class TwoDeploymentsIT {

    private static final String COLUMNS = """
                key: [customer_id]
                tracked: [email, full_name, country, city, loyalty_tier]
                type1: [last_login]
                lateness-horizon: P30D
                columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                          loyalty_tier: text, last_login: bigint}
            """;

    /**
     * Another entity of the same name: fewer columns, no type-1 column, and the feed's other fields
     * refused ({@code undeclared-columns: reject}; by default they would be dropped and counted), so
     * each deployment's DLQ differs and must hold only its own refusals.
     */
    private static final String OTHER_COLUMNS = """
                key: [customer_id]
                tracked: [email, country]
                undeclared-columns: reject
                lateness-horizon: P30D
                columns: {customer_id: text, email: text, country: text}
            """;

    @Test
    void twoDeploymentsWithTheSameEntityAndColumnsOnOneClusterEachKeepTheirOwnEvents(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("prod.customers", 3, (short) 1), new NewTopic("staging.customers", 3, (short) 1)));
            Deployment prod = Deployment.of(kafka, "prod", "prod.customers", COLUMNS, feed(301), true);
            Deployment staging = Deployment.of(kafka, "staging", "staging.customers", COLUMNS, feed(302), true);
            runAndCompare(dir, kafka, prod, staging);
        }
    }

    @Test
    void twoDeploymentsWithAnEntityOfTheSameNameAndOtherColumnsOnOneSourceTopicKeepApart(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("crm.customers", 3, (short) 1)));
            List<CustomerFeed.FeedRecord> feed = feed(303);
            // one source topic, read by both: each topology dead-letters its bad records, each mirror
            // must hold them once, not the other's copies too
            Deployment wide = Deployment.of(kafka, "wide", "crm.customers", COLUMNS, feed, true);
            Deployment narrow = Deployment.of(kafka, "narrow", "crm.customers", OTHER_COLUMNS, feed, false);
            runAndCompare(dir, kafka, wide, narrow);
        }
    }

    private static void runAndCompare(Path dir, EmbeddedKafka kafka, Deployment a, Deployment b) throws Exception {
        try (DimstreamService sa = a.start(dir); DimstreamService sb = b.start(dir)) {
            a.produce(kafka);
            b.produce(kafka);
            assertThat(sa.awaitCaughtUp(a.feed.size(), Duration.ofMinutes(3))).as(a.applicationId + " caught up").isTrue();
            assertThat(sb.awaitCaughtUp(b.feed.size(), Duration.ofMinutes(3))).as(b.applicationId + " caught up").isTrue();
            // both caught up: whatever one sink could take from the other's changes, it has taken
            for (Deployment d : List.of(a, b)) {
                assertThat(EntityTableReader.rows(d.ds, d.spec)).as(d.applicationId + "'s table").isEqualTo(d.expected());
                assertThat(query(d.ds, "SELECT consumer_group, topic, partition, \"offset\", reason FROM dimstream.sink_rejects ORDER BY id"))
                        .as(d.applicationId + "'s sink rejects").isEqualTo(List.of());
            }
            for (Deployment d : List.of(a, b)) {
                DimstreamService s = d == a ? sa : sb;
                String dlqTopic = s.pipelines().get(0).dlqTopic();
                awaitMirrored(kafka, d.applicationId + "-dlq-mirror", dlqTopic);
                assertThat(query(d.ds, "SELECT entity, source_topic, dlq_topic, convert_from(value, 'UTF8') FROM dimstream.dlq_records"))
                        .as(d.applicationId + "'s DLQ mirror").containsExactlyInAnyOrderElementsOf(d.deadLetters());
            }
        }
    }

    private static List<CustomerFeed.FeedRecord> feed(long seed) {
        return new CustomerFeed(seed, 30, Instant.parse("2025-08-01T00:00:00Z")).next(600);
    }

    /**
     * One deployment: its application id, its database, its config with one entity {@code customer},
     * and the feed its source topic carries ({@code producesFeed}: this deployment's test produces it;
     * false when another deployment's produces it into the same topic).
     */
    private record Deployment(String applicationId, String topic, DimstreamConfig config, EntitySpec spec, DataSource ds,
                              List<CustomerFeed.FeedRecord> feed, boolean producesFeed) {

        static Deployment of(EmbeddedKafka kafka, String applicationId, String topic, String columns, List<CustomerFeed.FeedRecord> feed,
                             boolean producesFeed) {
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
                    """.formatted(kafka.bootstrapServers(), url, topic) + columns, applicationId + " config", Map.of());
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL(url);
            return new Deployment(applicationId, topic, config, config.entity("customer").toEntitySpec(), ds, feed, producesFeed);
        }

        DimstreamService start(Path dir) {
            return DimstreamService.start(config, new ServiceOptions(dir.resolve(applicationId), applicationId, 3, Duration.ofHours(1)),
                    new SimpleMeterRegistry());
        }

        void produce(EmbeddedKafka kafka) {
            if (producesFeed) {
                FeedFixtures.produce(kafka.bootstrapServers(), topic, feed, Map.of());
            }
        }

        /** The reference model's rows of this deployment's valid events, in produce order. */
        List<ExpectedRow> expected() {
            return new ReferenceModel(spec).rows(FeedFixtures.split(spec, topic, feed).valid());
        }

        /** What the DLQ mirror must hold: each value this deployment's validator refuses, once, from its own DLQ topic. */
        List<List<String>> deadLetters() {
            List<List<String>> rows = new ArrayList<>();
            for (String value : FeedFixtures.split(spec, topic, feed).malformed()) {
                rows.add(Arrays.asList("customer", topic, applicationId + ".customer.dlq", value));
            }
            return rows;
        }
    }

    /** Waits until the mirror's group has committed every partition of the DLQ topic up to its end. */
    private static void awaitMirrored(EmbeddedKafka kafka, String group, String topic) {
        try (Admin admin = kafka.admin()) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() -> {
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size(); p++) {
                    latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                return admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS)
                        .entrySet().stream().allMatch(e -> e.getValue().offset() == 0
                                || committed.containsKey(e.getKey()) && committed.get(e.getKey()).offset() >= e.getValue().offset());
            });
        }
    }

    private static List<List<String>> query(DataSource ds, String sql) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
