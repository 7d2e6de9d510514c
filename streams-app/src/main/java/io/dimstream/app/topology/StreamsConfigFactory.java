package io.dimstream.app.topology;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;

/** The Kafka Streams settings of the dimstream topology. */
public final class StreamsConfigFactory {

    /**
     * With exactly-once every commit ends a transaction; 1 s instead of the EOS default of 100 ms
     * carried ~27% more events on this machine (PERFORMANCE.md), at up to 1 s more latency.
     */
    public static final int DEFAULT_COMMIT_INTERVAL_MS = 1000;

    private StreamsConfigFactory() {
    }

    /**
     * @param overrides any Streams, consumer or producer setting, applied last; e.g.
     *                  {@code replication.factor=1} for a single broker (the default -1 takes the
     *                  broker's default), {@code num.stream.threads}, {@code commit.interval.ms}
     */
    public static Properties create(String applicationId, String bootstrapServers, Path stateDir, Map<String, ?> overrides) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, DEFAULT_COMMIT_INTERVAL_MS);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1);
        // Records keep their source record's timestamp through the topology; the event time is never
        // made a record timestamp. A source timestamp can still be old (a backfill topic written with
        // 2025 CreateTimes), and Kafka deletes by record timestamp: a repartition or changelog record
        // stamped that way could be deleted by retention minutes after it was written (DESIGN section 6).
        // So every internal topic stamps records with the broker's append time. LogAppendTime also
        // exempts them from log.message.timestamp.after.max.ms, which refuses CreateTimes more than
        // an hour ahead. Streams relies on record timestamps only for windows and joins; this
        // topology has neither. The changes and DLQ topics get the same setting (TopicPlanner).
        p.put(StreamsConfig.topicPrefix(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG), "LogAppendTime");
        p.putAll(overrides);
        return p;
    }
}
