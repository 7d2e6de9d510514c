package io.dimstream.config.model;

import java.util.Locale;

/**
 * What an entity's topic carries ({@code mode:} in config): {@code changes} (the default), events
 * that each say what changed; or {@code snapshot}, periodic full slices of the table, each record a
 * row stamped with its slice's instant, each slice ended per partition by an end-of-slice control
 * record. A key missing from a complete slice is deleted at the slice's instant.
 */
public enum FeedMode implements ConfigEnum {
    CHANGES, SNAPSHOT;

    @Override
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
