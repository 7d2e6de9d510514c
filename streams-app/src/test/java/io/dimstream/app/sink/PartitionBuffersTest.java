package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The sink's batching policy and planning, on a clock the test moves: no consumer, no database. */
class PartitionBuffersTest {

    private static final EntitySpec CUSTOMER = entity("customer");
    private static final EntitySpec ORDER = entity("order");
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final PartitionBuffers buffers = new PartitionBuffers(3, Duration.ofMillis(200), Duration.ofMillis(100),
            Duration.ofSeconds(1), clock::get);

    private static EntitySpec entity(String name) {
        return EntitySpec.builder()
                .name(name)
                .table("dim_" + name)
                .key(List.of("id"))
                .tracked(List.of("v"))
                .columns(Map.of("id", ColumnType.TEXT, "v", ColumnType.TEXT))
                .latenessHorizon(Optional.empty())
                .build();
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long first, int n) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), first + i, ChangeCodec.key(List.of("k" + i)), new byte[] {1}));
        }
        return out;
    }

    private static ConsumerRecord<byte[], byte[]> marker(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, 0L, org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                0, 0, new byte[0], new byte[0], SliceMarker.mark(new RecordHeaders()), Optional.empty());
    }

    private void advance(long millis) {
        clock.addAndGet(Duration.ofMillis(millis).toNanos());
    }

    private PartitionBuffer positioned(TopicPartition tp, EntitySpec e) {
        PartitionBuffer b = buffers.assign(tp, e);
        buffers.positioned(b, OptionalLong.of(0));
        return b;
    }

    @Test
    void aBatchIsDueWhenFullOrWhenItsFirstRecordWaitedTheMaximum() {
        TopicPartition t0 = new TopicPartition("c", 0);
        TopicPartition t1 = new TopicPartition("c", 1);
        PartitionBuffer full = positioned(t0, CUSTOMER);
        PartitionBuffer partial = positioned(t1, CUSTOMER);
        buffers.buffer(t0, records(t0, 0, 4));
        buffers.buffer(t1, records(t1, 0, 1));

        assertThat(buffers.dueNow(b -> false)).containsExactly(full);
        assertThat(full.firstBatch(3)).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L);
        assertThat(buffers.pollTimeout()).isZero();
        advance(100);
        buffers.applied(full, 3, 3);
        // the backlog's remaining record starts a batch of its own now; the partial one waits 100 ms more
        assertThat(buffers.pollTimeout()).isEqualTo(Duration.ofMillis(100));
        advance(50);
        assertThat(buffers.dueNow(b -> false)).isEmpty();
        assertThat(buffers.pollTimeout()).isEqualTo(Duration.ofMillis(50));
        advance(50);
        assertThat(buffers.dueNow(b -> false)).containsExactly(partial);
        advance(100);
        assertThat(buffers.dueNow(b -> false)).containsExactly(full, partial);
        assertThat(full.committed).isEqualTo(OptionalLong.of(3));
    }

    @Test
    void recordsOfAPartitionNotPositionedYetAreDroppedAndAnEmptyPartitionIsDueOnlyPastMarkers() {
        TopicPartition tp = new TopicPartition("c", 0);
        PartitionBuffer b = buffers.assign(tp, CUSTOMER);
        buffers.buffer(tp, records(tp, 0, 2));
        assertThat(b.records).isEmpty();
        assertThat(buffers.hold(b, false)).isTrue();
        buffers.positioned(b, OptionalLong.empty());
        assertThat(buffers.hold(b, false)).isFalse();
        assertThat(buffers.hold(b, true)).isTrue();
        assertThat(buffers.dueNow(x -> false)).isEmpty();
        assertThat(buffers.dueNow(x -> true)).containsExactly(b);
    }

    @Test
    void aFailingPartitionHoldsItsRecordsRetriesWithDoublingBackoffAndIsStuckAfterTheLimit() {
        TopicPartition tp = new TopicPartition("c", 0);
        PartitionBuffer b = positioned(tp, CUSTOMER);
        buffers.buffer(tp, records(tp, 0, 3));
        buffers.lag(b, 3);

        assertThat(buffers.failed(b, "relation does not exist (SQL state 42P01)")).isEqualTo(Duration.ofMillis(100));
        assertThat(buffers.hold(b, false)).isTrue();
        assertThat(buffers.dueNow(x -> false)).isEmpty();
        assertThat(buffers.pollTimeout()).isEqualTo(Duration.ofMillis(100));
        advance(100);
        assertThat(buffers.dueNow(x -> false)).containsExactly(b);
        assertThat(buffers.failed(b, "relation does not exist (SQL state 42P01)")).isEqualTo(Duration.ofMillis(200));
        assertThat(buffers.failed(b, "relation does not exist (SQL state 42P01)")).isEqualTo(Duration.ofMillis(400));
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isFalse();
        advance(5_000);
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isTrue();

        buffers.applied(b, 3, 3);
        buffers.lag(b, 0);
        assertThat(b.failure).isNull();
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isFalse();
        assertThat(buffers.hold(b, false)).isFalse();
    }

    @Test
    void aFailingPartitionThatIsFencedReadsAgainFromTheStoredOffsetInsteadOfStayingHeld() {
        // seen in ServicePostgresRestartIT: a batch failed, its retry committed though PostgreSQL's answer
        // was lost (the connection terminated), the next try was fenced; the partition stayed held for good
        TopicPartition tp = new TopicPartition("c", 1);
        PartitionBuffer b = positioned(tp, CUSTOMER);
        buffers.buffer(tp, records(tp, 57, 3));
        buffers.failed(b, "Connection is not available");
        assertThat(buffers.hold(b, false)).isTrue();

        buffers.fenced(b, OptionalLong.of(196));

        assertThat(List.of(b.records.isEmpty(), b.committed, b.failure == null, buffers.hold(b, false)))
                .isEqualTo(List.of(true, OptionalLong.of(196), true, false));
        buffers.buffer(tp, records(tp, 196, 2));
        advance(200);
        assertThat(buffers.dueNow(x -> false)).containsExactly(b);
    }

    @Test
    void anIdlePartitionIsNeverStuckAndABehindOneIsStuckOnlyWithoutProgress() {
        TopicPartition tp = new TopicPartition("c", 0);
        PartitionBuffer b = positioned(tp, CUSTOMER);
        buffers.lag(b, 0);
        advance(60_000);
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isFalse();
        buffers.lag(b, 0);
        buffers.lag(b, 10);
        advance(4_000);
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isFalse();
        advance(1_000);
        assertThat(buffers.stuck(b, Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void partitionsWithNothingBufferedButTheirPositionToStoreGetAGroupEachAndNoGroupIsEmpty() {
        // seen in ServiceCrashIT: two due partitions with empty batches (positions past transaction
        // markers) both went to the first group, the second group was empty and the sink's thread died
        PartitionBuffer p0 = positioned(new TopicPartition("c", 0), CUSTOMER);
        PartitionBuffer p1 = positioned(new TopicPartition("c", 1), CUSTOMER);
        PartitionBuffer p2 = positioned(new TopicPartition("c", 2), CUSTOMER);

        assertThat(BatchPlanner.plan(List.of(p0, p1, p2), 3, 2)).containsExactly(List.of(List.of(p0, p2), List.of(p1)));
        assertThat(BatchPlanner.plan(List.of(p0, p1), 3, 2)).containsExactly(List.of(List.of(p0), List.of(p1)));
    }

    @Test
    void thePlannerBalancesAnEntitysPartitionsOverTheConnectionsAndSendsMarkersAndFailingPartitionsAlone() {
        TopicPartition c0 = new TopicPartition("c", 0);
        TopicPartition c1 = new TopicPartition("c", 1);
        TopicPartition c2 = new TopicPartition("c", 2);
        TopicPartition c3 = new TopicPartition("c", 3);
        TopicPartition o0 = new TopicPartition("o", 0);
        TopicPartition o1 = new TopicPartition("o", 1);
        PartitionBuffer b0 = positioned(c0, CUSTOMER);
        PartitionBuffer b1 = positioned(c1, CUSTOMER);
        PartitionBuffer b2 = positioned(c2, CUSTOMER);
        PartitionBuffer b3 = positioned(c3, CUSTOMER);
        PartitionBuffer p0 = positioned(o0, ORDER);
        PartitionBuffer p1 = positioned(o1, ORDER);
        buffers.buffer(c0, records(c0, 0, 3));
        buffers.buffer(c1, records(c1, 0, 1));
        buffers.buffer(c2, records(c2, 0, 2));
        buffers.buffer(c3, List.of(records(c3, 0, 1).get(0), marker(c3, 1)));
        buffers.buffer(o0, records(o0, 0, 2));
        buffers.buffer(o1, records(o1, 0, 2));
        buffers.failed(p1, "permission denied");

        List<List<List<PartitionBuffer>>> waves = BatchPlanner.plan(List.of(b0, b1, b2, b3, p0, p1), 3, 2);

        assertThat(waves).containsExactly(
                // customer: 3 records to one connection, 2 + 1 to the other
                List.of(List.of(b0), List.of(b2, b1)),
                List.of(List.of(p0)),
                List.of(List.of(b3)),
                List.of(List.of(p1)));
    }
}
