package io.dimstream.app.topology;

import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The partitioners of a snapshot entity's two keyed hops. Events go where Kafka's default
 * partitioner would put them ({@link ChangesPartitioner}, the same function the sink uses to tell
 * a partition's keys); end-of-slice markers are routed explicitly:
 * <ul>
 *   <li>{@link #repartition()}: a marker read from one source partition goes to EVERY partition of
 *       the repartition topic, after that source partition's slice records (one producer, in
 *       order), so each classify task learns when every source partition has finished the slice;</li>
 *   <li>{@link #changes()}: the marker a classify task emits goes to the changes partition it names,
 *       its own task's partition, where exactly that task's keys go (the changes topic has the
 *       repartition topic's partition count: {@code Pipeline} checks it).</li>
 * </ul>
 */
final class SlicePartitioners {

    private SlicePartitioners() {
    }

    static StreamPartitioner<byte[], byte[]> repartition() {
        return new StreamPartitioner<>() {
            @Override
            public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, int numPartitions) {
                return Optional.of(Set.of(ChangesPartitioner.partitionOf(key, numPartitions)));
            }

            @Override
            public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, Headers headers, int numPartitions) {
                if (SliceMarker.isControl(headers)) {
                    return Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toSet()));
                }
                return partitions(topic, key, value, numPartitions);
            }
        };
    }

    static StreamPartitioner<byte[], byte[]> changes() {
        return new StreamPartitioner<>() {
            @Override
            public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, int numPartitions) {
                return Optional.of(Set.of(ChangesPartitioner.partitionOf(key, numPartitions)));
            }

            @Override
            public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, Headers headers, int numPartitions) {
                if (SliceMarker.isControl(headers)) {
                    SliceMarker m = SliceMarker.decode(value);
                    if (m.partition() >= numPartitions || m.partitions() != numPartitions) {
                        throw new IllegalStateException("end-of-slice marker of " + m.entity() + " for partition " + m.partition()
                                + " of " + m.partitions() + ", but " + topic + " has " + numPartitions + " partitions: a snapshot "
                                + "entity's changes topic must have as many partitions as its source topic");
                    }
                    return Optional.of(Set.of(m.partition()));
                }
                return partitions(topic, key, value, numPartitions);
            }
        };
    }
}
