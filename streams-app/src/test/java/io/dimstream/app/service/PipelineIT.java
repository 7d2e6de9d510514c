package io.dimstream.app.service;

import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.db.write.KnownAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole pipeline on a real broker and a real PostgreSQL: a generated customer feed (creates,
 * changes, type-1 changes, deletes, resurrections, duplicates, late and malformed records) goes
 * through decode, validate, re-key, classify, the changes topic and the sink, and the table ends
 * equal, row by row, to the reference model of DESIGN section 3 over the valid events; the
 * malformed records, and only they, are in the DLQ. The feed goes in two parts: after the second,
 * {@code T_as_of(v, known_at)} at the instant the first was applied still equals the model of the first
 * part, at 120 of its version starts (transaction time in the streaming service, docs/semantics.md).
 */
class PipelineIT {

    @Test
    void aGeneratedFeedEndsAsTheReferenceModelsTableAndBadRecordsInTheDlq(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            // the source topic is the user's: it exists before dimstream starts
            kafka.createTopics(List.of(new NewTopic("crm.customers", 3, (short) 1)));
            String table = "dim_customer_pipeline_it";
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
                    """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), table), "test config", Map.of());
            EntitySpec customer = config.entity("customer").toEntitySpec();
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(42, 40, Instant.parse("2025-08-01T00:00:00Z")).next(1500);

            // the model's arrival order is the order a key's records reach the sink: the produce order
            FeedFixtures.Split split = FeedFixtures.split(customer, "crm.customers", feed);
            List<String> malformed = split.malformed();
            List<ExpectedRow> expected = new ReferenceModel(customer).rows(split.valid());
            // in two parts: what the table said after the first must stay readable after the second
            // (its late records rewrite closed versions of the first part's keys)
            List<ExpectedRow> expectedFirst = new ReferenceModel(customer).rows(
                    FeedFixtures.split(customer, "crm.customers", feed.subList(0, 1000)).valid());

            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "pipeline-it", 3, Duration.ofHours(1));
            try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
                FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(0, 1000), Map.of());
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), customer)).isEqualTo(expectedFirst));
                OffsetDateTime knownAfterFirst = KnownAt.clock(TestPostgres.dataSource());
                FeedFixtures.produce(kafka.bootstrapServers(), "crm.customers", feed.subList(1000, feed.size()), Map.of());

                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), customer)).isEqualTo(expected));
                assertThat(dlqValues(kafka.bootstrapServers(), "pipeline-it.customer.dlq", malformed.size()))
                        .containsExactlyInAnyOrderElementsOf(malformed);
                assertThat(KnownAt.superseded(TestPostgres.dataSource(), customer)).as("beliefs the second part rewrote").isPositive();
                KnownAt.assertAsOfAtVersionStarts(TestPostgres.dataSource(), customer, knownAfterFirst, expectedFirst, 120);
                KnownAt.assertAsOfAtVersionStarts(TestPostgres.dataSource(), customer, KnownAt.clock(TestPostgres.dataSource()), expected, 120);
            }
        }
    }

    private static List<String> dlqValues(String bootstrap, String topic, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "pipeline-it-dlq-reader");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            // one more poll: nothing beyond the expected records
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofSeconds(2))) {
                values.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return values;
    }
}
