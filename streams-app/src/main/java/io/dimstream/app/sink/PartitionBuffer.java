package io.dimstream.app.sink;

import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.entity.EntitySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the sink knows of one partition it owns: the records read and not yet applied, where the
 * partition stands in PostgreSQL, and whether it is held back. Touched only by the sink's thread
 * (through {@link PartitionBuffers}); {@link SinkStatus} is the copy other threads read.
 */
final class PartitionBuffer {

    final TopicPartition tp;
    final EntitySpec entity;
    final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    /** When the first record now buffered arrived (clock of {@link PartitionBuffers}). */
    long firstBufferedNanos;
    /** The stored offset has been read and the consumer seeked to it. */
    boolean resolved;
    /** The next offset stored in PostgreSQL as this instance knows it; empty: no row. */
    OptionalLong committed = OptionalLong.empty();
    /** The changes topic's partition count, looked up when a batch first holds a control record; 0 until then. */
    int partitionCount;
    /** Last committed batch, or when the partition was assigned, or last seen with nothing to apply. */
    long lastProgressNanos;
    /** Records left in the partition after what is stored, as the consumer last knew it; -1 unknown. */
    long lag = -1;
    /** Set while the partition's batches fail for a reason neither transient nor a record's (see SqlFailures). */
    String failure;
    int failures;
    long retryAtNanos;
    /** Set when the partition is stopped for good on this instance (its stored offset left the log). */
    String stopped;

    PartitionBuffer(TopicPartition tp, EntitySpec entity, long now) {
        this.tp = tp;
        this.entity = entity;
        this.lastProgressNanos = now;
    }

    boolean hasControlRecord(int batchSize) {
        return firstBatch(batchSize).stream().anyMatch(r -> SliceMarker.isControl(r.headers()));
    }

    List<ConsumerRecord<byte[], byte[]>> firstBatch(int batchSize) {
        return records.subList(0, Math.min(batchSize, records.size()));
    }
}
