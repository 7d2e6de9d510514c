package io.dimstream.config.keys;

import io.dimstream.config.keys.ConfigKeys.ServiceReplayKeys;
import io.dimstream.config.model.ServiceConfig;
import io.dimstream.config.model.SinkConfig;
import java.util.Optional;

/**
 * The config's sections as they are when a file says nothing of them: each value the default of
 * its key, declared once in {@link ConfigKeys}. Whoever needs a section's defaults (the sink's and
 * the replay worker's settings, the command line's help) takes them from here.
 */
public final class ConfigDefaults {

    /** The {@code service.replay.*} keys' defaults. */
    public static final ServiceConfig.Replay REPLAY = new ServiceConfig.Replay(ServiceReplayKeys.BATCH_SIZE.defaultValue(),
            ServiceReplayKeys.PAUSE.defaultValue(), ServiceReplayKeys.LEASE.defaultValue(), ServiceReplayKeys.POLL.defaultValue(),
            ServiceReplayKeys.KEEP_REPLACED_TABLES.defaultValue());

    /** The {@code service.*} keys' defaults. */
    public static final ServiceConfig SERVICE = new ServiceConfig(ConfigKeys.SERVICE_APPLICATION_ID.defaultValue(),
            ConfigKeys.SERVICE_PARTITIONS.defaultValue(), ConfigKeys.SERVICE_PRUNE_INTERVAL.defaultValue(), REPLAY);

    /** The {@code sink.*} keys' defaults. */
    public static final SinkConfig SINK = new SinkConfig(Optional.ofNullable(ConfigKeys.SINK_GROUP_ID.defaultValue()),
            ConfigKeys.SINK_BATCH_SIZE.defaultValue(), ConfigKeys.SINK_BATCH_MAX_WAIT.defaultValue(),
            ConfigKeys.SINK_PARALLELISM.defaultValue(), ConfigKeys.SINK_ON_OFFSET_OUT_OF_RANGE.defaultValue(),
            ConfigKeys.SINK_STUCK_AFTER.defaultValue());

    private ConfigDefaults() {
    }
}
