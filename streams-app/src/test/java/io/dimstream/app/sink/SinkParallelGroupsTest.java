package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The sink's groups of one wave run at once on the apply executor's threads through ONE
 * {@link SinkTransaction} (as {@code ChangeSink.applyWave} runs them at {@code sink.parallelism} 2):
 * each group's counts (writer classes, class disagreements, records validated again) are its own,
 * round after round. They were once per-transaction fields of the shared {@code SinkTransaction},
 * which two groups overwrote and merged from two threads.
 */
class SinkParallelGroupsTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final int ROUNDS = 25;

    @Test
    void eachParallelGroupGetsItsOwnCountsEveryRound() throws Exception {
        EntitySpec e = SinkFixtures.customer("parallel_groups", DS);
        TopicPartition p0 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        TopicPartition p1 = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 1);
        SinkTransaction tx = SinkFixtures.tx("parallel-groups", e);
        try (ApplyExecutor executor = new ApplyExecutor(2)) {
            long next0 = 0;
            long next1 = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // partition 0: five new keys, classed NEW by the topology, as the writer judges them
                List<ChangeRecord> zero = new ArrayList<>();
                for (int k = 0; k < 5; k++) {
                    zero.add(change(e, ChangeClass.NEW, "A" + round + "-" + k, "a@x.io", 0));
                }
                // partition 1: two new keys, then a change of the first that the topology classed UNCHANGED
                List<ChangeRecord> one = List.of(change(e, ChangeClass.NEW, "B" + round, "b@x.io", 0),
                        change(e, ChangeClass.NEW, "C" + round, "c@x.io", 0), change(e, ChangeClass.UNCHANGED, "B" + round, "b2@x.io", 1));
                SinkTransaction.PartitionBatch b0 = new SinkTransaction.PartitionBatch(p0, round == 0 ? OptionalLong.empty()
                        : OptionalLong.of(next0), SinkFixtures.records(p0, next0, zero), next0 + zero.size(), null, 0);
                SinkTransaction.PartitionBatch b1 = new SinkTransaction.PartitionBatch(p1, round == 0 ? OptionalLong.empty()
                        : OptionalLong.of(next1), SinkFixtures.records(p1, next1, one), next1 + one.size(), null, 0);
                List<Callable<SinkTransaction.GroupOutcome>> groups = List.of(() -> tx.apply(e, List.of(b0)), () -> tx.apply(e, List.of(b1)));

                List<ApplyExecutor.Done<SinkTransaction.GroupOutcome>> done = executor.runAll(groups);

                assertThat(done.get(0).outcome()).as("partition 0, round %d", round).isEqualTo(new SinkTransaction.Committed(
                        ApplyResult.builder().received(5).newKeys(5).rowsInserted(5).build(), 0, Map.of(), Map.of("other-shape", 5)));
                assertThat(done.get(1).outcome()).as("partition 1, round %d", round).isEqualTo(new SinkTransaction.Committed(
                        ApplyResult.builder().received(3).newKeys(2).changed(1).rowsInserted(3).build(), 0,
                        Map.of(ChangeClass.CHANGED, 1, ChangeClass.UNCHANGED, 1), Map.of("other-shape", 3)));
                next0 += zero.size();
                next1 += one.size();
            }
        }
        assertThat(SinkFixtures.storedOffsets(DS, "parallel-groups", p0.topic())).isEqualTo(Map.of(0, 5L * ROUNDS, 1, 3L * ROUNDS));
    }

    private static ChangeRecord change(EntitySpec e, ChangeClass cls, String id, String email, int hour) {
        return new ChangeRecord(e.name(), cls, Op.UPSERT, Instant.parse("2025-08-01T09:00:00Z").plusSeconds(3600L * hour),
                Map.of("customer_id", id, "email", email, "city", "Oslo", "last_login", 1L), SinkFixtures.SOURCE_TOPIC, 0, hour);
    }
}
