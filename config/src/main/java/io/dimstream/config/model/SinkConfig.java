package io.dimstream.config.model;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code sink:} section: how the PostgreSQL sink batches the changes topics, and what it does
 * when a partition cannot go on.
 *
 * @param groupId            consumer group (and key of its offsets in {@code dimstream.sink_offsets});
 *                           empty means {@code <application-id>-sink}
 * @param batchSize          most events per PostgreSQL transaction
 * @param batchMaxWait       longest a partial batch waits for more events
 * @param parallelism        PostgreSQL connections the sink applies the due batches of different
 *                           partitions on at once (each its own transaction)
 * @param onOffsetOutOfRange a partition whose stored offset left the changes topic's log: stop it
 *                           (default), or skip to the log's start with the gap recorded
 * @param stuckAfter         a partition with records left and no progress this long is reported stuck
 */
public record SinkConfig(Optional<String> groupId, int batchSize, Duration batchMaxWait, int parallelism,
                         OffsetOutOfRange onOffsetOutOfRange, Duration stuckAfter) {

    /** {@code sink.on-offset-out-of-range}. */
    public enum OffsetOutOfRange implements ConfigEnum {
        STOP, SKIP;

        @Override
        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** In any case ({@code STOP} too), as this key has always been read. */
        @Override
        public boolean isNamedBy(String text) {
            return configName().equalsIgnoreCase(text);
        }
    }
}
