package io.dimstream.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code sink:} section: how the PostgreSQL sink batches the changes topics.
 *
 * @param groupId      consumer group (and key of its offsets in {@code dimstream.sink_offsets});
 *                     empty means {@code <application-id>-sink}
 * @param batchSize    most events per PostgreSQL transaction
 * @param batchMaxWait longest a partial batch waits for more events
 * @param parallelism  PostgreSQL connections the sink applies the due batches of different
 *                     partitions on at once (each its own transaction)
 */
public record SinkConfig(Optional<String> groupId, int batchSize, Duration batchMaxWait, int parallelism) {

    public static final SinkConfig DEFAULTS = new SinkConfig(Optional.empty(), 5000, Duration.ofMillis(200), 2);
}
