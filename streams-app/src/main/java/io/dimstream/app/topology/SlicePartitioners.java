package io.dimstream.app.topology;

import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The partitioners of the two keyed hops of an entity that carries control records: a snapshot
 * entity (end-of-slice markers) or one with {@code on-truncate: delete-all} (truncate markers).
 * Events go where Kafka's default partitioner would put them ({@link ChangesPartitioner}, the same
 * function the sink uses to tell a partition's keys); control records are routed explicitly:
 * <ul>
 *   <li>{@link #repartition()}: a marker read from one source partition goes to EVERY partition of
 *       the repartition topic, after that source partition's records (one producer, in order), so
 *       each classify task learns when every source partition has finished the slice, or sees the
 *       truncate after the events before it;</li>
 *   <li>{@link #changes()}: the marker a classify task emits goes to the changes partition it names,
 *       its own task's partition, where exactly that task's keys go (the changes topic has the
 *       repartition topic's partition count: {@code DimstreamService} checks it); a truncate marker naming
 *       no partition (written without the repartition step) goes to every changes partition.</li>
 * </ul>
 */
final class SlicePartitioners {

    private SlicePartitioners() {
    }

    static StreamPartitioner<byte[], byte[]> repartition() {
        return new KeyOrMarkerPartitioner((topic, headers, value, numPartitions) -> all(numPartitions));
    }

    static StreamPartitioner<byte[], byte[]> changes() {
        return new KeyOrMarkerPartitioner((topic, headers, value, numPartitions) -> {
            if (TruncateMarker.is(headers)) {
                TruncateMarker t = TruncateMarker.fromBytes(value);
                if (t.partition().isEmpty()) {
                    return all(numPartitions);
                }
                if (t.partition().getAsInt() >= numPartitions) {
                    throw new IllegalStateException("truncate marker of " + t.entity() + " for partition " + t.partition().getAsInt()
                            + ", but " + topic + " has " + numPartitions + " partitions: the changes topic of an entity with "
                            + "on-truncate: delete-all must have as many partitions as its source topic");
                }
                return Set.of(t.partition().getAsInt());
            }
            SliceMarker m = SliceMarker.fromBytes(value);
            if (m.partition() >= numPartitions || m.partitions() != numPartitions) {
                throw new IllegalStateException("end-of-slice marker of " + m.entity() + " for partition " + m.partition()
                        + " of " + m.partitions() + ", but " + topic + " has " + numPartitions + " partitions: a snapshot "
                        + "entity's changes topic must have as many partitions as its source topic");
            }
            return Set.of(m.partition());
        });
    }

    private static Set<Integer> all(int numPartitions) {
        return IntStream.range(0, numPartitions).boxed().collect(Collectors.toSet());
    }

    /** Where a control record goes, given its topic, headers, value and the topic's partition count. */
    @FunctionalInterface
    private interface MarkerRoute {
        Set<Integer> partitions(String topic, Headers headers, byte[] value, int numPartitions);
    }

    /** Records by key, as Kafka's default partitioner would; control records by their {@link MarkerRoute}. */
    private static final class KeyOrMarkerPartitioner implements StreamPartitioner<byte[], byte[]> {
        private final MarkerRoute markers;

        KeyOrMarkerPartitioner(MarkerRoute markers) {
            this.markers = markers;
        }

        @Override
        public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, int numPartitions) {
            return Optional.of(Set.of(ChangesPartitioner.partitionOf(key, numPartitions)));
        }

        @Override
        public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, Headers headers, int numPartitions) {
            if (SliceMarker.isControl(headers)) {
                return Optional.of(markers.partitions(topic, headers, value, numPartitions));
            }
            return partitions(topic, key, value, numPartitions);
        }
    }
}
