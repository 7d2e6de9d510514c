package io.dimstream.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What an entity's topic carries ({@code mode:} in config): {@code changes} (the default), events
 * that each say what changed; or {@code snapshot}, periodic full slices of the table, each record a
 * row stamped with its slice's instant, each slice ended per partition by an end-of-slice control
 * record. A key missing from a complete slice is deleted at the slice's instant.
 */
public enum FeedMode {
    CHANGES, SNAPSHOT;

    /** The name written in config. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<FeedMode> fromConfig(String name) {
        return Arrays.stream(values()).filter(m -> m.configName().equals(name)).findFirst();
    }

    public static String supportedNames() {
        return Arrays.stream(values()).map(FeedMode::configName).collect(Collectors.joining(", "));
    }
}
