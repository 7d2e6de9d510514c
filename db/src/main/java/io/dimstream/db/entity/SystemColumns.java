package io.dimstream.db.entity;

import java.util.List;

/**
 * Names of the columns dimstream maintains beside the entity's own. Fixed by default,
 * renameable per entity in config ({@code system-columns:}).
 */
public record SystemColumns(
        String surrogateKey,
        String validFrom,
        String validTo,
        String isCurrent,
        String isDeleted,
        String recordHash,
        String sourceTopic,
        String sourcePartition,
        String sourceOffset,
        String loadedAt) {

    public static final SystemColumns DEFAULTS = new SystemColumns(
            "surrogate_key", "valid_from", "valid_to", "is_current", "is_deleted", "record_hash",
            "source_topic", "source_partition", "source_offset", "loaded_at");

    public List<String> all() {
        return List.of(surrogateKey, validFrom, validTo, isCurrent, isDeleted, recordHash,
                sourceTopic, sourcePartition, sourceOffset, loadedAt);
    }
}
