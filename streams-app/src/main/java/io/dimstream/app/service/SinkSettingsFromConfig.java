package io.dimstream.app.service;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.app.sink.SinkSettings;
import io.dimstream.config.model.ServiceConfig;
import io.dimstream.config.model.SinkConfig;
import java.util.Map;
import java.util.Optional;

/**
 * The sink's settings from the config's {@code sink:} section, where every key's default is declared
 * once ({@code ConfigKeys}, {@link SinkConfig#DEFAULTS}): the sink itself knows no config file.
 */
public final class SinkSettingsFromConfig {

    /** The default {@code service.application-id}: {@code dimstream}. */
    public static final String DEFAULT_APPLICATION_ID = ConfigDefaults.SERVICE.applicationId();
    /** The sink's group under the default {@code service.application-id}: {@code dimstream-sink}. */
    public static final String DEFAULT_GROUP_ID = DEFAULT_APPLICATION_ID + "-sink";

    private SinkSettingsFromConfig() {
    }

    /**
     * Application id {@code dimstream}, group {@code dimstream-sink} ({@link #DEFAULT_GROUP_ID}), the config's {@code sink:} defaults
     * ({@link SinkConfig#DEFAULTS}: batches of 20000 records or 200 ms, 2 connections, stop on a gap,
     * stuck after 5 minutes), backoff 100 ms to 10 s.
     */
    public static SinkSettings defaults() {
        return of(ConfigDefaults.SINK, DEFAULT_APPLICATION_ID);
    }

    /**
     * The settings of the config's {@code sink:} section (backoff and consumer settings at their defaults).
     *
     * @param applicationId the deployment's application id: it names the changes topics the sink reads,
     *                      and the group is {@code <application-id>-sink} when the section names none
     */
    public static SinkSettings of(SinkConfig sink, String applicationId) {
        return new SinkSettings(applicationId, sink.groupId().orElse(applicationId + "-sink"), sink.batchSize(), sink.batchMaxWait(),
                SinkSettings.DEFAULT_BACKOFF_INITIAL, SinkSettings.DEFAULT_BACKOFF_MAX, Map.of(), sink.parallelism(),
                sink.onOffsetOutOfRange() == SinkConfig.OffsetOutOfRange.SKIP ? SinkSettings.OnOffsetOutOfRange.SKIP
                        : SinkSettings.OnOffsetOutOfRange.STOP, sink.stuckAfter(), Optional.empty());
    }
}
