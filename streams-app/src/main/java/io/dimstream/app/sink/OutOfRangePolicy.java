package io.dimstream.app.sink;

import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkGaps;
import io.dimstream.db.sink.SinkOffsets;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sink does with a partition whose stored offset Kafka no longer has
 * ({@code sink.on-offset-out-of-range}): stop it, reported, or skip to the log's start with the gap
 * recorded in {@code dimstream.sink_gaps} in a transaction of its own (fenced like a batch: another
 * instance that moved the partition meanwhile wins). Called from the sink's poll loop, on its thread.
 */
final class OutOfRangePolicy {

    private static final Logger LOG = LoggerFactory.getLogger(OutOfRangePolicy.class);

    /** The sink's reaction to a partition another instance applied meanwhile. */
    @FunctionalInterface
    interface FencedOff {
        void fencedOff(KafkaConsumer<byte[], byte[]> c, PartitionBuffer b, OptionalLong stored, String rolledBack);
    }

    private final SinkSettings settings;
    private final DataSource ds;
    private final SinkMetrics metrics;
    private final DatabaseBackoff backoff;
    private final PartitionBuffers buffers;

    OutOfRangePolicy(SinkSettings settings, DataSource ds, SinkMetrics metrics, DatabaseBackoff backoff, PartitionBuffers buffers) {
        this.settings = settings;
        this.ds = ds;
        this.metrics = metrics;
        this.backoff = backoff;
        this.buffers = buffers;
    }

    /**
     * Positions Kafka no longer has: records were deleted by retention before the sink applied them,
     * or the topic was recreated. Never a silent jump: the partition stops (default), or with
     * {@code on-offset-out-of-range: skip} moves to the log's start with the gap recorded.
     */
    void handle(KafkaConsumer<byte[], byte[]> c, OffsetOutOfRangeException e, FencedOff fencedOff) {
        for (Map.Entry<TopicPartition, Long> o : e.offsetOutOfRangePartitions().entrySet()) {
            TopicPartition tp = o.getKey();
            PartitionBuffer b = buffers.get(tp);
            if (b == null) {
                continue;
            }
            b.records.clear();
            long start = c.beginningOffsets(List.of(tp)).get(tp);
            long from = b.committed.orElse(o.getValue());
            if (settings.onOffsetOutOfRange() == SinkSettings.OnOffsetOutOfRange.STOP) {
                b.stopped = "stored offset " + from + " is outside the partition's log (it starts at " + start + "): records were "
                        + "deleted by retention before the sink applied them, or the topic was recreated";
                c.pause(List.of(tp));
                metrics.partitionStopped(b.entity.name());
                LOG.error("{}: {}. The partition is STOPPED on this instance (sink.on-offset-out-of-range: stop). Replay the "
                        + "source topic for the missing changes, then restart with sink.on-offset-out-of-range: skip to record the "
                        + "gap in dimstream.sink_gaps and go on", tp, b.stopped);
                continue;
            }
            try {
                boolean moved = Transactions.inTransaction(ds, conn ->
                        SinkGaps.skip(conn, settings.groupId(), b.entity.name(), ref(tp), from, start));
                if (!moved) {
                    Map<PartitionRef, Long> now;
                    try (Connection conn = ds.getConnection()) {
                        now = SinkOffsets.read(conn, settings.groupId(), List.of(ref(tp)));
                    }
                    Long stored = now.get(ref(tp));
                    fencedOff.fencedOff(c, b, stored == null ? OptionalLong.empty() : OptionalLong.of(stored), "the skip of a gap");
                    continue;
                }
            } catch (SQLException | RuntimeException ex) {
                // the position stays out of range: the next poll meets it again, after the backoff
                backoff.failed("recording the gap [" + from + ", " + start + ") of " + tp, ex);
                continue;
            }
            b.committed = OptionalLong.of(start);
            c.seek(tp, start);
            metrics.gap(b.entity.name(), Math.abs(start - from));
            LOG.warn("{}: stored offset {} was outside the partition's log (it starts at {}): skipped, gap recorded in "
                    + "dimstream.sink_gaps (sink.on-offset-out-of-range: skip). Replay the source topic for the missing changes",
                    tp, from, start);
        }
    }

    private static PartitionRef ref(TopicPartition tp) {
        return new PartitionRef(tp.topic(), tp.partition());
    }
}
