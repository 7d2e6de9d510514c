package io.dimstream.config.model;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code service:} section: how {@code dimstream run} runs (what were command-line flags
 * only). A flag given to {@code run} overrides the file's value ({@link io.dimstream.config.keys.ConfigKey#override}).
 *
 * <pre>
 * service:
 *   application-id: dimstream            # Kafka Streams application id, default dimstream
 *   partitions: 3                        # of the topics dimstream creates, default 3
 *   prune-interval: PT1H                 # how often the event memory is pruned, default 1 hour
 *   replay:
 *     batch-size: 5000                   # records per replay-job transaction
 *     pause: PT0S                        # between two replay-job batches (a throttle)
 *     lease: PT30S                       # a dead instance's job is resumed by another after this
 *     poll: PT2S                         # how often an idle worker looks for a job
 *     keep-replaced-tables: forever      # or a duration: retired shadow-replay tables older than it are dropped
 * </pre>
 *
 * @param applicationId the Kafka Streams application id; instances with the same id share the work
 * @param partitions    partitions of the topics dimstream creates
 * @param pruneInterval how often the event memory is pruned beyond each entity's horizon
 * @param replay        the replay worker's settings
 */
public record ServiceConfig(String applicationId, int partitions, Duration pruneInterval, Replay replay) {

    /**
     * {@code service.replay:}.
     *
     * @param batchSize records per replay transaction
     * @param pause     between two batches of a replay job
     * @param lease     how long a claimed job stays this instance's without a heartbeat
     * @param poll      how often an idle worker looks for a job
     * @param keepReplacedTables how long tables shadow replays leave behind are kept before the service drops them;
     *                  empty: until an admin drops them
     */
    public record Replay(int batchSize, Duration pause, Duration lease, Duration poll, java.util.Optional<Duration> keepReplacedTables) {

        public Replay {
            Objects.requireNonNull(pause);
            Objects.requireNonNull(lease);
            Objects.requireNonNull(poll);
            Objects.requireNonNull(keepReplacedTables);
        }

        /** Without a retention: retired tables are kept until an admin drops them. */
        public Replay(int batchSize, Duration pause, Duration lease, Duration poll) {
            this(batchSize, pause, lease, poll, java.util.Optional.empty());
        }
    }

    public ServiceConfig {
        Objects.requireNonNull(applicationId);
        Objects.requireNonNull(pruneInterval);
        Objects.requireNonNull(replay);
    }
}
