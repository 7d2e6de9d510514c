package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.replay.DlqMirror;
import io.dimstream.app.sink.ChangeSink;
import io.dimstream.app.sink.SinkMetrics;
import io.dimstream.app.sink.SinkSettings;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.topology.DimstreamTopology;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.app.topology.StreamsConfigFactory;
import io.dimstream.app.topology.TopicPlanner;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An existing deployment with an application id of its own upgrades to topics named per deployment
 * without losing its place. The release before wrote its changes to {@code dimstream.customer.changes}
 * and its dead letters to {@code <source topic>.dlq}; it is stopped with changes its sink had not
 * applied yet and dead letters its DLQ mirror had not mirrored yet (what a stop under load leaves:
 * the sink and the mirror stop before Kafka Streams). After the upgrade the topology goes on from its
 * committed source offsets into {@code upgrade-it.customer.changes}; the table must still end equal,
 * row by row, to the reference model of every event, and the DLQ mirror must hold every dead letter
 * once.
 */
class TopicsUpgradeIT {

    private static final String APP = "upgrade-it";
    private static final String TOPIC = "upgrade.customers";

    @Test
    void aDeploymentWhoseTopicsWereNamedBeforeUpgradesWithoutLosingItsPlace(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
            String url = TestPostgres.newDatabase();
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL(url);
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
                        tracked: [email, full_name, country, city, loyalty_tier]
                        type1: [last_login]
                        lateness-horizon: P30D
                        columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                                  loyalty_tier: text, last_login: bigint}
                    """.formatted(kafka.bootstrapServers(), url, TOPIC), "upgrade config", Map.of());
            EntitySpec spec = config.entity("customer").toEntitySpec();
            EntityTables.ensure(ds, spec);
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(404, 30, Instant.parse("2025-08-01T00:00:00Z")).next(900);
            List<CustomerFeed.FeedRecord> applied = feed.subList(0, 400);
            List<CustomerFeed.FeedRecord> left = feed.subList(400, 700);
            List<CustomerFeed.FeedRecord> after = feed.subList(700, 900);
            assertThat(FeedFixtures.split(spec, TOPIC, left).malformed()).as("dead letters left behind").isNotEmpty();

            // the release before: the same topology and sink, with the topic names it used
            EntityPipeline now = EntityPipeline.of(APP, config.entity("customer"));
            EntityPipeline before = EntityPipeline.builder().entity(spec).sourceTopic(TOPIC).decoder(now.decoder())
                    .changesTopic("dimstream.customer.changes").dlqTopic(TOPIC + ".dlq").build();
            kafka.createTopics(TopicPlanner.plan(List.of(before), 3, (short) 1));
            Path data = dir.resolve("data");
            SimpleMeterRegistry beforeRegistry = new SimpleMeterRegistry();
            KafkaStreams streams = new KafkaStreams(DimstreamTopology.build(List.of(before), beforeRegistry),
                    // the Kafka Streams client as the service runs it (one per entity): the upgrade is of the changes and DLQ topics
                    StreamsConfigFactory.create(DimstreamTopology.streamsApplicationId(APP, "customer"), kafka.bootstrapServers(), data.resolve("streams-state"), List.of(before), beforeRegistry,
                            Map.of(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1, StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100)));
            streams.start();
            Map<TopicPartition, Long> appliedEnds;
            try (ChangeSink sink = new ChangeSink(SinkSettingsFromConfig.defaults().withApplicationId("dimstream").withGroupId(APP + "-sink"),
                    kafka.bootstrapServers(), List.of(spec), ds, new SinkMetrics(new SimpleMeterRegistry())).start();
                 DlqMirror mirror = new DlqMirror(APP + "-dlq-mirror", List.of(before), ds, kafka.bootstrapServers()).start()) {
                FeedFixtures.produce(kafka.bootstrapServers(), TOPIC, applied, Map.of());
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                        .untilAsserted(() -> assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expected(spec, applied)));
                awaitMirrored(kafka, APP + "-dlq-mirror", TOPIC + ".dlq");
                appliedEnds = endOffsets(kafka, TOPIC);
            }
            // the sink and the mirror are stopped; the topology takes more before it stops too
            FeedFixtures.produce(kafka.bootstrapServers(), TOPIC, left, Map.of());
            await().atMost(Duration.ofMinutes(2)).until(() -> eventsSeen(beforeRegistry) == applied.size() + left.size());
            streams.close(Duration.ofSeconds(30));
            Map<TopicPartition, Long> leftEnds = endOffsets(kafka, TOPIC);

            // the upgrade: the same application id, data directory and database
            try (DimstreamService service = DimstreamService.start(config, new ServiceOptions(data, APP, 3, Duration.ofHours(1)),
                    new SimpleMeterRegistry())) {
                assertThat(service.pipelines().get(0).changesTopic()).isEqualTo(APP + ".customer.changes");
                FeedFixtures.produce(kafka.bootstrapServers(), TOPIC, after, Map.of());
                assertThat(service.awaitCaughtUp(after.size(), Duration.ofMinutes(2))).isTrue();
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                        .untilAsserted(() -> assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expected(spec, feed)));

                // one replay of the source, from the first record left on each partition it queued
                List<ReplayJob> jobs = new ReplayJobs(ds).list("customer", 10);
                assertThat(jobs).hasSize(1);
                ReplayJob job = jobs.get(0);
                assertThat(List.of(job.entity(), job.topic(), job.source().kind(), job.target(), job.state(), job.requestedBy()))
                        .isEqualTo(List.of("customer", TOPIC, ReplaySource.Kind.OFFSETS, ReplayTarget.LIVE, JobState.SUCCEEDED,
                                "dimstream-upgrade"));
                assertThat(job.source().offsets()).isNotEmpty().allSatisfy((p, o) -> assertThat(o)
                        .isBetween(appliedEnds.get(new TopicPartition(TOPIC, p)), leftEnds.get(new TopicPartition(TOPIC, p)) - 1));
                // the old topic's place is handed over: no offset of it is stored any more
                try (Connection c = ds.getConnection()) {
                    assertThat(SinkOffsets.ofTopics(c, APP + "-sink", List.of("dimstream.customer.changes"))).isEqualTo(Map.of());
                }

                // every dead letter once: those of before the upgrade in the former DLQ topic, the rest in the new one
                List<List<String>> dead = new ArrayList<>();
                deadLetters(spec, applied, TOPIC + ".dlq", dead);
                deadLetters(spec, left, TOPIC + ".dlq", dead);
                deadLetters(spec, after, APP + ".customer.dlq", dead);
                awaitMirrored(kafka, APP + "-dlq-mirror", APP + ".customer.dlq");
                await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(300)).untilAsserted(() ->
                        assertThat(mirrored(ds)).containsExactlyInAnyOrderElementsOf(dead));
                try (Admin admin = kafka.admin()) {
                    assertThat(admin.listConsumerGroupOffsets(APP + "-dlq-mirror").partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                            .keySet()).extracting(TopicPartition::topic).containsOnly(APP + ".customer.dlq");
                }
            }
        }
    }

    private static List<ExpectedRow> expected(EntitySpec spec, List<CustomerFeed.FeedRecord> feed) {
        return new ReferenceModel(spec).rows(FeedFixtures.split(spec, TOPIC, feed).valid());
    }

    private static void deadLetters(EntitySpec spec, List<CustomerFeed.FeedRecord> feed, String dlqTopic, List<List<String>> into) {
        for (String value : FeedFixtures.split(spec, TOPIC, feed).malformed()) {
            into.add(Arrays.asList("customer", TOPIC, dlqTopic, value));
        }
    }

    private static List<List<String>> mirrored(DataSource ds) throws Exception {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT entity, source_topic, dlq_topic, convert_from(value, 'UTF8') FROM dimstream.dlq_records");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                rows.add(Arrays.asList(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
            }
        }
        return rows;
    }

    private static long eventsSeen(MeterRegistry registry) {
        return (long) registry.find("dimstream.events").counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static Map<TopicPartition, Long> endOffsets(EmbeddedKafka kafka, String topic) throws Exception {
        try (Admin admin = kafka.admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size(); p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> out = new HashMap<>();
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS)
                    .forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }
    }

    /** Waits until the mirror's group has committed every partition of the DLQ topic up to its end. */
    private static void awaitMirrored(EmbeddedKafka kafka, String group, String topic) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() -> {
            Map<TopicPartition, Long> end = endOffsets(kafka, topic);
            try (Admin admin = kafka.admin()) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                return end.entrySet().stream().allMatch(e -> e.getValue() == 0
                        || committed.containsKey(e.getKey()) && committed.get(e.getKey()).offset() >= e.getValue());
            }
        });
    }
}
