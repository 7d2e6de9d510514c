package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.ORDER_LINE_PIPELINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.decode.NativeJsonDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** {@link TopicPlanner}'s plan against what a broker has, given as values (no broker). */
class TopicPlannerTest {

    /** mode: snapshot, behind the repartition step: its changes topic follows its source's partition count. */
    static final EntityPipeline SNAPSHOT = EntityPipeline.builder()
            .entity(TopologyFixtures.CUSTOMER)
            .sourceTopic("crm.snapshots")
            .decoder(new NativeJsonDecoder(TopologyFixtures.CUSTOMER.key()))
            .changesTopic("dimstream.customer.changes")
            .dlqTopic("crm.snapshots.dlq")
            .snapshot(true)
            .build();
    /** on-truncate: delete-all, behind the repartition step: follows its source too. */
    static final EntityPipeline DELETE_ALL = EntityPipeline.builder()
            .entity(TopologyFixtures.ORDER_LINE)
            .sourceTopic("shop.order_lines")
            .decoder(new NativeJsonDecoder(TopologyFixtures.ORDER_LINE.key()))
            .changesTopic("dimstream.order_line.changes")
            .dlqTopic("shop.order_lines.dlq")
            .deletesOnTruncate(true)
            .build();
    /** on-truncate: delete-all on a source partitioned by key: no repartition step, so it does not follow. */
    static final EntityPipeline DELETE_ALL_BY_KEY = EntityPipeline.builder()
            .entity(TopologyFixtures.ORDER_LINE)
            .sourceTopic("shop.order_lines")
            .decoder(new NativeJsonDecoder(TopologyFixtures.ORDER_LINE.key()))
            .changesTopic("dimstream.order_line.changes")
            .dlqTopic("shop.order_lines.dlq")
            .partitionedByKey(true)
            .deletesOnTruncate(true)
            .build();

    @Test
    void onAnEmptyEmbeddedBrokerEverySourceComesFirstThenEachEntitysChangesAndDlqTopics() {
        List<NewTopic> expected = new ArrayList<>(List.of(new NewTopic("crm.customers", 3, (short) 1),
                new NewTopic("shop.order_lines", 3, (short) 1)));
        expected.addAll(TopicPlanner.plan(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), 3, (short) 1));

        assertThat(TopicPlanner.missing(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), 3, (short) 1, true, Set.of(), Map.of()))
                .isEqualTo(expected);
        assertThat(TopicPlanner.sourcesToCount(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), Set.of())).isEmpty();
    }

    @Test
    void existingTopicsAreLeftOutAndSourcesAreNotCreatedOnAnExternalBroker() {
        Set<String> existing = Set.of("crm.customers", "shop.order_lines", "dimstream.customer.changes", "crm.customers.dlq");

        assertThat(TopicPlanner.missing(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), 6, (short) -1, false, existing, Map.of()))
                .isEqualTo(TopicPlanner.plan(List.of(ORDER_LINE_PIPELINE), 6, (short) -1));
        assertThat(TopicPlanner.missing(List.of(CUSTOMER_PIPELINE), 6, (short) -1, false,
                Set.of("dimstream.customer.changes", "crm.customers.dlq"), Map.of())).isEmpty();
    }

    @Test
    void changesTopicsOfEntitiesWithControlRecordsTakeTheirExistingSourcesPartitionCount() {
        Set<String> existing = Set.of("crm.snapshots", "shop.order_lines", "crm.customers");
        List<EntityPipeline> pipelines = List.of(CUSTOMER_PIPELINE, SNAPSHOT, DELETE_ALL);

        assertThat(TopicPlanner.sourcesToCount(pipelines, existing)).containsExactly("crm.snapshots", "shop.order_lines");
        List<NewTopic> expected = new ArrayList<>(TopicPlanner.plan(List.of(CUSTOMER_PIPELINE), 2, (short) 1));
        expected.addAll(TopicPlanner.plan(List.of(SNAPSHOT), 5, (short) 1));
        expected.addAll(TopicPlanner.plan(List.of(DELETE_ALL), 7, (short) 1));
        assertThat(TopicPlanner.missing(pipelines, 2, (short) 1, false, existing,
                Map.of("crm.snapshots", 5, "shop.order_lines", 7))).isEqualTo(expected);
    }

    @Test
    void aSourceNotThereYetOrPartitionedByKeyLeavesTheChangesTopicTheConfiguredCount() {
        assertThat(TopicPlanner.sourcesToCount(List.of(SNAPSHOT, DELETE_ALL_BY_KEY), Set.of("shop.order_lines"))).isEmpty();
        List<NewTopic> expected = new ArrayList<>(TopicPlanner.plan(List.of(SNAPSHOT), 2, (short) 1));
        expected.addAll(TopicPlanner.plan(List.of(DELETE_ALL_BY_KEY), 2, (short) 1));
        assertThat(TopicPlanner.missing(List.of(SNAPSHOT, DELETE_ALL_BY_KEY), 2, (short) 1, false, Set.of("shop.order_lines"),
                Map.of())).isEqualTo(expected);
    }

    @Test
    void aChangesTopicWithAnotherPartitionCountThanItsSourceRefusesToStartNamingBoth() {
        Set<String> now = Set.of("crm.snapshots", "dimstream.customer.changes", "shop.order_lines", "dimstream.order_line.changes");
        List<EntityPipeline> pipelines = List.of(CUSTOMER_PIPELINE, SNAPSHOT, DELETE_ALL);
        assertThat(TopicPlanner.topicsToCompare(pipelines, now)).containsExactly("crm.snapshots", "dimstream.customer.changes",
                "shop.order_lines", "dimstream.order_line.changes");

        assertThatCode(() -> TopicPlanner.checkPartitionCounts(pipelines, now, Map.of("crm.snapshots", 3,
                "dimstream.customer.changes", 3, "shop.order_lines", 4, "dimstream.order_line.changes", 4))).doesNotThrowAnyException();
        assertThatThrownBy(() -> TopicPlanner.checkPartitionCounts(pipelines, now, Map.of("crm.snapshots", 3,
                "dimstream.customer.changes", 2, "shop.order_lines", 4, "dimstream.order_line.changes", 4)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("entity customer is mode: snapshot, so its changes topic dimstream.customer.changes must have as many "
                        + "partitions as its source topic crm.snapshots (3), but it has 2: recreate it or add partitions");
        assertThatThrownBy(() -> TopicPlanner.checkPartitionCounts(pipelines, now, Map.of("crm.snapshots", 3,
                "dimstream.customer.changes", 3, "shop.order_lines", 4, "dimstream.order_line.changes", 6)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("entity order_line is on-truncate: delete-all, so its changes topic dimstream.order_line.changes must have "
                        + "as many partitions as its source topic shop.order_lines (4), but it has 6: recreate it or add partitions");
    }

    @Test
    void aMissingSourceTopicIsLeftToKafkaStreamsToReport() {
        Set<String> now = Set.of("dimstream.customer.changes");
        assertThat(TopicPlanner.topicsToCompare(List.of(SNAPSHOT), now)).isEmpty();
        assertThatCode(() -> TopicPlanner.checkPartitionCounts(List.of(SNAPSHOT), now, Map.of())).doesNotThrowAnyException();
    }
}
