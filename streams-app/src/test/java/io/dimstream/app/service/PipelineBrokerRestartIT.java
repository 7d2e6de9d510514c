package io.dimstream.app.service;

import io.dimstream.app.testing.FeedFixtures;
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
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service (Kafka Streams with exactly-once, the sink, the admin workers) while its broker
 * is stopped and started again on the same log directory: the first half of a generated feed is
 * applied, the broker goes away for a few seconds and comes back, the second half is produced, and
 * the table ends equal, row by row, to the reference model of all valid events: nothing lost,
 * nothing applied twice, and Kafka Streams running again without a restart of the service.
 */
class PipelineBrokerRestartIT {

    private static final String TOPIC = "crm.customers_restart";

    @Test
    void thePipelineRidesOutABrokerRestartWithoutLossOrDoubles(@TempDir Path dir) throws Exception {
        Path kafkaDir = dir.resolve("kafka");
        EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir);
        try {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
            String bootstrap = kafka.bootstrapServers();
            DimstreamConfig config = DimstreamConfig.parse("""
                    kafka:
                      bootstrap-servers: %s
                      streams: {commit.interval.ms: 200}
                    postgres:
                      url: %s
                    entities:
                      - name: customer
                        topic: %s
                        table: dim_customer_broker_restart_it
                        key: [customer_id]
                        tracked: [email, full_name, country, city, loyalty_tier]
                        type1: [last_login]
                        columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                                  loyalty_tier: text, last_login: bigint}
                    """.formatted(bootstrap, TestPostgres.jdbcUrl(), TOPIC), "test config", Map.of());
            EntitySpec spec = config.entity("customer").toEntitySpec();
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(11, 30, Instant.parse("2025-08-01T00:00:00Z")).next(1200);
            List<CustomerFeed.FeedRecord> first = feed.subList(0, 600);
            List<CustomerFeed.FeedRecord> second = feed.subList(600, feed.size());

            try (DimstreamService pipeline = DimstreamService.start(config, new ServiceOptions(dir.resolve("data"), "broker-restart-it", 3,
                    Duration.ofHours(1)), new SimpleMeterRegistry())) {
                produce(bootstrap, first);
                List<ExpectedRow> afterFirst = model(spec, first);
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), spec)).isEqualTo(afterFirst));

                kafka.stop();
                Thread.sleep(5_000);
                kafka = EmbeddedKafka.start(kafkaDir);
                assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);

                produce(bootstrap, second);
                List<ExpectedRow> all = model(spec, feed);
                await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), spec)).isEqualTo(all));
                assertThat(pipeline.streamsStates()).isEqualTo(Map.of("customer", KafkaStreams.State.RUNNING));
            }
        } finally {
            kafka.close();
        }
    }

    private static List<ExpectedRow> model(EntitySpec spec, List<CustomerFeed.FeedRecord> records) {
        return new ReferenceModel(spec).rows(FeedFixtures.split(spec, TOPIC, records).valid());
    }

    private static void produce(String bootstrap, List<CustomerFeed.FeedRecord> records) {
        FeedFixtures.produce(bootstrap, TOPIC, records, Map.of());
    }
}
