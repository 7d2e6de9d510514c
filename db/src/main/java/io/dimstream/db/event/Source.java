package io.dimstream.db.event;

/**
 * Where an event came from: a Kafka record (topic, partition, offset) or a line of a file
 * ({@code topic} is {@code "file:NAME"}, partition null, offset the line number).
 * Stored as the lineage of each version and named in every rejection.
 */
public record Source(String topic, Integer partition, Long offset) {

    public static Source line(String file, long lineNo) {
        return new Source("file:" + file, null, lineNo);
    }

    public static Source kafka(String topic, int partition, long offset) {
        return new Source(topic, partition, offset);
    }

    @Override
    public String toString() {
        if (partition == null) {
            return topic + (offset == null ? "" : " line " + offset);
        }
        return topic + "-" + partition + "@" + offset;
    }
}
