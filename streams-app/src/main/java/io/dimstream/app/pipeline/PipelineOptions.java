package io.dimstream.app.pipeline;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How one dimstream instance runs besides its config file.
 *
 * @param dataDir        where the Kafka Streams state (and, when embedded, the broker's log and
 *                       PostgreSQL's data) live
 * @param applicationId  the Kafka Streams application id; instances with the same id share the
 *                       work (partitions) the Kafka way
 * @param partitions     partitions of the topics dimstream creates (changes, DLQ; source topics
 *                       too when the broker is embedded)
 * @param pruneInterval  how often the event memory is pruned beyond each entity's horizon
 */
public record PipelineOptions(Path dataDir, String applicationId, int partitions, Duration pruneInterval) {

    public static PipelineOptions defaults(Path dataDir) {
        return new PipelineOptions(dataDir, "dimstream", 3, Duration.ofHours(1));
    }
}
