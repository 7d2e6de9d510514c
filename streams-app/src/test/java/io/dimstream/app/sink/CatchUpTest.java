package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.sink.PartitionRef;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** {@link CatchUp}'s comparisons of end offsets with committed and stored ones (no broker). */
class CatchUpTest {

    static final TopicPartition SOURCE_0 = new TopicPartition("crm.customers", 0);
    static final TopicPartition SOURCE_1 = new TopicPartition("crm.customers", 1);
    static final TopicPartition REPARTITION_0 = new TopicPartition("app-customer-repartition", 0);
    static final TopicPartition CHANGES_0 = new TopicPartition("dimstream.customer.changes", 0);
    static final TopicPartition CHANGES_1 = new TopicPartition("dimstream.customer.changes", 1);
    static final Set<String> TRANSACTIONAL = Set.of("app-customer-repartition");

    @Test
    void streamsHaveCommittedWhenEverySourcePartitionsCommittedOffsetReachesItsEnd() {
        Map<TopicPartition, Long> ends = Map.of(SOURCE_0, 10L, SOURCE_1, 4L);

        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L, SOURCE_1, 4L), TRANSACTIONAL)).isTrue();
        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L, SOURCE_1, 3L), TRANSACTIONAL)).isFalse();
        // a partition with records but no committed offset yet
        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L), TRANSACTIONAL)).isFalse();
    }

    @Test
    void anEmptyPartitionNeedsNoCommittedOffset() {
        assertThat(CatchUp.streamsCommitted(Map.of(SOURCE_0, 0L, SOURCE_1, 2L), Map.of(SOURCE_1, 2L), TRANSACTIONAL)).isTrue();
    }

    @Test
    void aTransactionalInputMayEndInAMarkerThePositionHasNotPassed() {
        Map<TopicPartition, Long> ends = Map.of(SOURCE_0, 10L, REPARTITION_0, 8L);

        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L, REPARTITION_0, 8L), TRANSACTIONAL)).isTrue();
        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L, REPARTITION_0, 7L), TRANSACTIONAL)).isTrue();
        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 10L, REPARTITION_0, 6L), TRANSACTIONAL)).isFalse();
        // a source topic is not transactional: one short is not enough there
        assertThat(CatchUp.streamsCommitted(ends, Map.of(SOURCE_0, 9L, REPARTITION_0, 8L), TRANSACTIONAL)).isFalse();
    }

    @Test
    void theSinkHasCaughtUpWhenItsStoredOffsetsReachEveryChangesPartitionsEndOrTheMarkerBeforeIt() {
        Map<TopicPartition, Long> ends = Map.of(CHANGES_0, 12L, CHANGES_1, 1L);
        PartitionRef p0 = new PartitionRef("dimstream.customer.changes", 0);
        PartitionRef p1 = new PartitionRef("dimstream.customer.changes", 1);

        assertThat(CatchUp.sinkCaughtUp(ends, Map.of(p0, 12L, p1, 1L))).isTrue();
        // the stored offset before a trailing transaction marker
        assertThat(CatchUp.sinkCaughtUp(ends, Map.of(p0, 11L, p1, 0L))).isTrue();
        // a partition whose only record is a marker needs no stored offset
        assertThat(CatchUp.sinkCaughtUp(ends, Map.of(p0, 11L))).isTrue();
        assertThat(CatchUp.sinkCaughtUp(ends, Map.of(p0, 10L, p1, 1L))).isFalse();
        assertThat(CatchUp.sinkCaughtUp(Map.of(CHANGES_0, 3L), Map.of())).isFalse();
    }
}
