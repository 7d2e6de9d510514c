package io.dimstream.app.change;

import org.apache.kafka.common.utils.Utils;

/**
 * Where a business key's records go, on the changes topic and on the topology's repartition
 * topic: Kafka's own key partitioning ({@code toPositive(murmur2(key bytes)) % partitions}, what
 * the producer's default partitioner does for a keyed record), written once so that the topology
 * that places a key and the sink that asks which keys belong to a partition cannot disagree.
 */
public final class ChangesPartitioner {

    private ChangesPartitioner() {
    }

    /** The partition of {@code keyBytes} ({@link ChangeCodec#key}) among {@code partitions}. */
    public static int partitionOf(byte[] keyBytes, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
    }
}
