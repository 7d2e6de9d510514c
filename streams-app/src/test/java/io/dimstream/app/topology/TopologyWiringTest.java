package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.ORDER_LINE_PIPELINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.decode.DebeziumJsonDecoder;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.decode.SeedJsonDecoder;
import io.dimstream.config.DimstreamConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/** The streams config, the topics dimstream creates, and the way from the config file to pipelines. */
class TopologyWiringTest {

    @Test
    void streamsConfigIsExactlyOnceWithBytesSerdesAndAppendTimeInternalTopicsAndOverridesWin() {
        Properties p = StreamsConfigFactory.create("dimstream", "localhost:9092", Path.of("/var/lib/dimstream"),
                List.of(CUSTOMER_PIPELINE), new SimpleMeterRegistry(), Map.of("replication.factor", 1, "num.stream.threads", 2));

        Properties expected = new Properties();
        expected.putAll(Map.of(
                "application.id", "dimstream",
                "bootstrap.servers", "localhost:9092",
                "state.dir", "/var/lib/dimstream",
                "processing.guarantee", "exactly_once_v2",
                "default.key.serde", "org.apache.kafka.common.serialization.Serdes$ByteArraySerde",
                "default.value.serde", "org.apache.kafka.common.serialization.Serdes$ByteArraySerde",
                "commit.interval.ms", 1000,
                "replication.factor", 1,
                "topic.message.timestamp.type", "LogAppendTime",
                "num.stream.threads", 2));
        expected.put("rocksdb.config.setter", BoundedRocksDbConfig.class.getName());
        expected.put("statestore.cache.max.bytes", 0L);
        // a stream thread learns of a rebalance within a second
        expected.put("consumer.heartbeat.interval.ms", 1000);
        // the exception handlers that dead-letter a failing record, and where they send it
        expected.put("processing.exception.handler", DeadLetterProcessingHandler.class.getName());
        expected.put("production.exception.handler", DeadLetterProductionHandler.class.getName());
        expected.put(DeadLetterRoutes.CONFIG, p.get(DeadLetterRoutes.CONFIG));
        // record size limits: Kafka's defaults, explicit, so producer and internal topics agree
        expected.put("producer.max.request.size", 1_048_576);
        expected.put("topic.max.message.bytes", "1048588");
        assertThat(p).isEqualTo(expected);
        DeadLetterRoutes routes = (DeadLetterRoutes) p.get(DeadLetterRoutes.CONFIG);
        for (String topic : List.of("crm.customers", "dimstream-customer-by-key-repartition", "dimstream.customer.changes",
                "crm.customers.dlq")) {
            assertThat(routes.forTopic(topic)).as(topic).map(r -> r.entity() + " -> " + r.dlqTopic())
                    .contains("customer -> crm.customers.dlq");
        }
        assertThat(routes.forTopic("shop.order_lines")).isEmpty();
        assertThat(StreamsConfigFactory.create("a", "b:1", Path.of("s"), List.of(), new SimpleMeterRegistry(), Map.of())
                .get("replication.factor")).isEqualTo(-1);
        // the record cache is off by default; a feed with hot keys turns it back on
        assertThat(StreamsConfigFactory.create("a", "b:1", Path.of("s"), List.of(), new SimpleMeterRegistry(),
                Map.of("statestore.cache.max.bytes", "10485760")).get("statestore.cache.max.bytes")).isEqualTo("10485760");
    }

    @Test
    void topicPlanHasAChangesAndADlqTopicPerEntityStampedWithAppendTime() {
        List<NewTopic> topics = TopicPlanner.plan(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), 6, (short) 1);

        Map<String, String> changes = Map.of("message.timestamp.type", "LogAppendTime", "cleanup.policy", "delete",
                "retention.ms", "604800000", "max.message.bytes", "1048588");
        Map<String, String> dlq = Map.of("message.timestamp.type", "LogAppendTime", "cleanup.policy", "delete",
                "retention.ms", "2592000000", "max.message.bytes", "1048588");
        assertThat(topics).isEqualTo(List.of(
                new NewTopic("dimstream.customer.changes", 6, (short) 1).configs(changes),
                new NewTopic("crm.customers.dlq", 6, (short) 1).configs(dlq),
                new NewTopic("dimstream.order_line.changes", 6, (short) 1).configs(changes),
                new NewTopic("shop.order_lines.dlq", 6, (short) 1).configs(dlq)));
        assertThat(TopicPlanner.plan(List.of(CUSTOMER_PIPELINE), -1, (short) -1).get(0))
                .isEqualTo(new NewTopic("dimstream.customer.changes", Optional.empty(), Optional.empty()).configs(changes));
    }

    @Test
    void pipelinesFromConfigNameTheirTopicsAfterTheApplicationIdAndTakeTheFormatsDecoder() {
        DimstreamConfig config = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [a], columns: {id: text, a: text}}
                  - {name: account, topic: pg.accounts, format: debezium-json, table: dim_account, key: [id], tracked: [a],
                     columns: {id: text, a: text}}
                  - {name: seeded, topic: ydb.changes, format: seed-json, table: dim_seeded, key: [id], tracked: [a],
                     columns: {id: text, a: text}}
                """, "config test.yml", Map.of());

        List<EntityPipeline> pipelines = EntityPipeline.fromConfig(config, "staging");

        assertThat(pipelines).extracting(p -> List.of(p.entity().name(), p.sourceTopic(), p.changesTopic(), p.dlqTopic(),
                p.decoder().format().getClass().getSimpleName())).isEqualTo(List.of(
                List.of("customer", "crm.customers", "staging.customer.changes", "staging.customer.dlq", NativeJsonDecoder.class.getSimpleName()),
                List.of("account", "pg.accounts", "staging.account.changes", "staging.account.dlq", DebeziumJsonDecoder.class.getSimpleName()),
                List.of("seeded", "ydb.changes", "staging.seeded.changes", "staging.seeded.dlq", SeedJsonDecoder.class.getSimpleName())));
        assertThat(pipelines.get(0).entity()).isEqualTo(config.entity("customer").toEntitySpec());
        // the default application id keeps the changes topic's name from before it was named per deployment
        assertThat(EntityPipeline.fromConfig(config, "dimstream")).extracting(p -> List.of(p.changesTopic(), p.dlqTopic()))
                .first().isEqualTo(List.of("dimstream.customer.changes", "dimstream.customer.dlq"));
    }

    @Test
    void topologyRepartitionsByKeyIntoANamedTopicAndKeepsTheStoreNamed() {
        TopologyDescription d = DimstreamTopology.build(List.of(CUSTOMER_PIPELINE), new SimpleMeterRegistry()).describe();

        assertThat(d.subtopologies()).hasSize(2);
        assertThat(d.toString())
                .contains("Sink: customer-by-key-repartition-sink (topic: customer-by-key-repartition)")
                .contains("Source: customer-by-key-repartition-source (topics: [customer-by-key-repartition])")
                .contains("Processor: customer-classify (stores: [customer-key-state])")
                .contains("Sink: customer-dlq (topic: crm.customers.dlq)")
                .contains("Sink: customer-changes (topic: dimstream.customer.changes)");
    }

    @Test
    void partitionedByKeyTopologyIsOneSubtopologyWithoutARepartitionTopic() {
        EntityPipeline partitioned = EntityPipeline.builder()
                .entity(TopologyFixtures.CUSTOMER)
                .sourceTopic(CUSTOMER_PIPELINE.sourceTopic())
                .decoder(CUSTOMER_PIPELINE.decoder())
                .changesTopic("dimstream.customer.changes")
                .dlqTopic("crm.customers.dlq")
                .partitionedByKey(true)
                .build();

        TopologyDescription d = DimstreamTopology.build(List.of(partitioned), new SimpleMeterRegistry()).describe();

        assertThat(d.subtopologies()).hasSize(1);
        assertThat(d.toString()).doesNotContain("repartition")
                .contains("Processor: customer-classify (stores: [customer-key-state])")
                .contains("Sink: customer-changes (topic: dimstream.customer.changes)");
    }

    @Test
    void userStreamsPropertiesAreCheckedByName() {
        assertThat(StreamsConfigFactory.problems(Map.of("commit.interval.ms", "100", "num.stream.threads", "2",
                "producer.linger.ms", "5", "main.consumer.max.poll.records", "500", "topic.retention.ms", "1",
                "security.protocol", "SASL_SSL", "sasl.jaas.config", "x"))).isEmpty();
        String setByDimstream = ": set by dimstream (exactly_once_v2, byte-array serdes, the exception handlers that dead-letter "
                + "bad records, --application-id, --data-dir, kafka.bootstrap-servers); remove it";
        assertThat(StreamsConfigFactory.problems(new java.util.TreeMap<>(Map.of("processing.guarantee", "at_least_once",
                "comit.interval.ms", "100", "producer.lingr.ms", "5", "processing.exception.handler", "x.Y",
                "production.exception.handler", "x.Z"))))
                .isEqualTo(List.of(
                        "kafka.streams.comit.interval.ms: not a Kafka Streams setting (nor consumer./producer./admin./topic. + a client setting)",
                        "kafka.streams.processing.exception.handler" + setByDimstream,
                        "kafka.streams.processing.guarantee" + setByDimstream,
                        "kafka.streams.producer.lingr.ms: not a Kafka Streams setting (nor consumer./producer./admin./topic. + a client setting)",
                        "kafka.streams.production.exception.handler" + setByDimstream));
    }

    @Test
    void partitionedByKeyAndStreamsPropertiesComeFromTheConfig() {
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: "k:9092"
                  streams: {commit.interval.ms: 100, sasl.jaas.config: "secret stuff"}
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [a], columns: {id: text, a: text},
                     partitioned-by-key: true}
                """, "config test.yml", Map.of());

        assertThat(config.kafka().orElseThrow().streams()).isEqualTo(Map.of("commit.interval.ms", "100", "sasl.jaas.config", "secret stuff"));
        assertThat(EntityPipeline.fromConfig(config, "dimstream").get(0).partitionedByKey()).isTrue();
        assertThat(config.describeMasked()).startsWith("""
                kafka:
                  bootstrap-servers: k:9092
                  streams:
                    commit.interval.ms: 100
                    sasl.jaas.config: '****'
                """).contains("    partitioned-by-key: true\n");
        assertThatThrownBy(() -> DimstreamConfig.parse("""
                kafka: {bootstrap-servers: "k:9092", streams: {consumer: {x: 1}}}
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [a], columns: {id: text, a: text},
                     mode: snapshot, partitioned-by-key: true}
                """, "config test.yml", Map.of()))
                .hasMessage("config test.yml: 2 problems: kafka.streams.consumer: expected a single value (a Kafka Streams property), got a mapping; "
                        + "entities[0].partitioned-by-key: not with mode: snapshot (its end-of-slice markers need the repartition step)");
    }

    @Test
    void twoEntitiesOnOneSourceTopicAreRefused() {
        EntityPipeline other = EntityPipeline.builder()
                .entity(TopologyFixtures.ORDER_LINE)
                .sourceTopic(CUSTOMER_PIPELINE.sourceTopic())
                .decoder(new NativeJsonDecoder(List.of("order_id", "line_no")))
                .changesTopic("dimstream.order_line.changes")
                .dlqTopic("crm.customers.dlq")
                .build();

        assertThatThrownBy(() -> DimstreamTopology.build(List.of(CUSTOMER_PIPELINE, other), new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity \"order_line\": topic \"crm.customers\" is already the source of another entity (one entity per source topic)");
    }
}
