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
    /**
     * One look whose reads straddle a commit of the decode step: its last transaction (the source's
     * last offset, and two records for the repartition topic: a truncate's copy and a row) commits
     * right after the look's first read of the Streams group's offsets or of the inputs' ends,
     * whichever comes first; the classify task has not read those records. Before the commit the
     * group had committed source offset 160 and everything of the repartition topic so far; after,
     * source offset 164, the repartition topic three entries longer. The sink is caught up with the
     * changes so far. The look must not pass: the changes the classify task will make are not there.
     */
    @Test
    void aLookWhoseReadsStraddleACommitOfTheDecodeStepDoesNotPass() throws Exception {
        PartitionRef p0 = new PartitionRef("dimstream.customer.changes", 0);
        CatchUp.Look look = new CatchUp.Look() {
            private int reads;

            /** True from the second of the two reads on: the decode step's transaction has committed. */
            private boolean committedYet() {
                return reads++ > 0;
            }

            @Override
            public long eventsSeen() {
                return 164;
            }

            @Override
            public Map<TopicPartition, Long> streamsCommitted() {
                return Map.of(SOURCE_0, committedYet() ? 164L : 160L, REPARTITION_0, 40L);
            }

            @Override
            public Map<TopicPartition, Long> inputEnds() {
                return Map.of(SOURCE_0, 164L, REPARTITION_0, committedYet() ? 44L : 41L);
            }

            @Override
            public Map<TopicPartition, Long> changesEnds() {
                return Map.of(CHANGES_0, 20L);
            }

            @Override
            public Map<PartitionRef, Long> sinkStored() {
                return Map.of(p0, 20L);
            }
        };

        assertThat(CatchUp.caughtUp(look, 164, TRANSACTIONAL)).isFalse();
    }
}
