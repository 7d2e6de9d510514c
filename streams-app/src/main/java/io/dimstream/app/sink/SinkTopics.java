package io.dimstream.app.sink;

import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/** Names and settings of the changes topics the sink reads (DESIGN section 2). */
public final class SinkTopics {

    private SinkTopics() {
    }

    /** {@code dimstream.<entity>.changes}. */
    public static String changesTopic(String entity) {
        return "dimstream." + entity + ".changes";
    }

    /**
     * A changes topic to create. Its records carry the source's event time, which may be years
     * old (a backfill), so the topic is stamped with the append time: Kafka's time-based retention
     * then counts from when the change was written, not from the event (DESIGN section 6).
     */
    public static NewTopic newChangesTopic(String entity, int partitions, short replicationFactor) {
        return new NewTopic(changesTopic(entity), partitions, replicationFactor)
                .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime"));
    }
}
