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
                Map.of("replication.factor", 1, "num.stream.threads", 2));

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
        assertThat(p).isEqualTo(expected);
        assertThat(StreamsConfigFactory.create("a", "b:1", Path.of("s"), Map.of()).get("replication.factor")).isEqualTo(-1);
    }

    @Test
    void topicPlanHasAChangesAndADlqTopicPerEntityStampedWithAppendTime() {
        List<NewTopic> topics = TopicPlanner.plan(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), 6, (short) 1);

        Map<String, String> changes = Map.of("message.timestamp.type", "LogAppendTime", "cleanup.policy", "delete",
                "retention.ms", "604800000");
        Map<String, String> dlq = Map.of("message.timestamp.type", "LogAppendTime", "cleanup.policy", "delete",
                "retention.ms", "2592000000");
        assertThat(topics).isEqualTo(List.of(
                new NewTopic("dimstream.customer.changes", 6, (short) 1).configs(changes),
                new NewTopic("crm.customers.dlq", 6, (short) 1).configs(dlq),
                new NewTopic("dimstream.order_line.changes", 6, (short) 1).configs(changes),
                new NewTopic("shop.order_lines.dlq", 6, (short) 1).configs(dlq)));
        assertThat(TopicPlanner.plan(List.of(CUSTOMER_PIPELINE), -1, (short) -1).get(0))
                .isEqualTo(new NewTopic("dimstream.customer.changes", Optional.empty(), Optional.empty()).configs(changes));
    }

    @Test
    void pipelinesFromConfigTakeTheDefaultTopicNamesAndTheFormatsDecoder() {
        DimstreamConfig config = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [a], columns: {id: text, a: text}}
                  - {name: account, topic: pg.accounts, format: debezium-json, table: dim_account, key: [id], tracked: [a],
                     columns: {id: text, a: text}}
                  - {name: seeded, topic: ydb.changes, format: seed-json, table: dim_seeded, key: [id], tracked: [a],
                     columns: {id: text, a: text}}
                """, "config test.yml", Map.of());

        List<EntityPipeline> pipelines = EntityPipeline.fromConfig(config);

        assertThat(pipelines).extracting(p -> List.of(p.entity().name(), p.sourceTopic(), p.changesTopic(), p.dlqTopic(),
                p.decoder().getClass().getSimpleName())).isEqualTo(List.of(
                List.of("customer", "crm.customers", "dimstream.customer.changes", "crm.customers.dlq", NativeJsonDecoder.class.getSimpleName()),
                List.of("account", "pg.accounts", "dimstream.account.changes", "pg.accounts.dlq", DebeziumJsonDecoder.class.getSimpleName()),
                List.of("seeded", "ydb.changes", "dimstream.seeded.changes", "ydb.changes.dlq", SeedJsonDecoder.class.getSimpleName())));
        assertThat(pipelines.get(0).entity()).isEqualTo(config.entity("customer").toEntitySpec());
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
    void twoEntitiesOnOneSourceTopicAreRefused() {
        EntityPipeline other = new EntityPipeline(TopologyFixtures.ORDER_LINE, CUSTOMER_PIPELINE.sourceTopic(),
                new NativeJsonDecoder(List.of("order_id", "line_no")), "dimstream.order_line.changes", "crm.customers.dlq");

        assertThatThrownBy(() -> DimstreamTopology.build(List.of(CUSTOMER_PIPELINE, other), new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity \"order_line\": topic \"crm.customers\" is already the source of another entity (one entity per source topic)");
    }
}
