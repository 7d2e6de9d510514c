package io.dimstream.db.sink;

import java.util.Comparator;
import java.util.Objects;

/**
 * A partition of a Kafka topic, as the sink's tables key it ({@code topic}, {@code partition}):
 * the db module knows nothing of Kafka's own types.
 */
public record PartitionRef(String topic, int partition) implements Comparable<PartitionRef> {

    /** Topic, then partition: the order in which a transaction locks offset rows (no lock cycles). */
    public static final Comparator<PartitionRef> ORDER = Comparator.comparing(PartitionRef::topic)
            .thenComparingInt(PartitionRef::partition);

    public PartitionRef {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public int compareTo(PartitionRef o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
