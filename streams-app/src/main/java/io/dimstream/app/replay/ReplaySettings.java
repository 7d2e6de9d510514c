package io.dimstream.app.replay;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.config.model.ServiceConfig;
import java.time.Duration;

/**
 * How the replay worker, the DLQ mirror and the re-drive executor run.
 *
 * @param pollInterval        how often an idle worker looks for a job (and the re-drive executor for requests)
 * @param lease               how long a claimed job stays this instance's without a heartbeat; a
 *                            job whose worker died is resumed by another instance after this
 * @param batchSize           records per replay transaction (max.poll.records)
 * @param pauseBetweenBatches a throttle, so a big replay leaves PostgreSQL time for the live sink
 */
public record ReplaySettings(Duration pollInterval, Duration lease, int batchSize, Duration pauseBetweenBatches) {

    public ReplaySettings {
        if (lease.compareTo(Duration.ofMillis(300)) < 0) {
            throw new IllegalArgumentException("replay lease: at least 300 ms, got " + lease);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("replay batch-size: at least 1, got " + batchSize);
        }
    }

    /** The defaults of the config's {@code service.replay.*} keys. */
    public static ReplaySettings defaults() {
        return from(ConfigDefaults.REPLAY);
    }

    /** The settings of the config's {@code service.replay:} section. */
    public static ReplaySettings from(ServiceConfig.Replay replay) {
        return new ReplaySettings(replay.poll(), replay.lease(), replay.batchSize(), replay.pause());
    }
}
