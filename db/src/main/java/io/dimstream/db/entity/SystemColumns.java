package io.dimstream.db.entity;

import java.util.List;

/**
 * Names of the columns dimstream maintains beside the entity's own. Fixed by default,
 * renameable per entity in config ({@code system-columns:}).
 *
 * <p>{@code eventSeq}: the arrival order ({@code seq}, {@link io.dimstream.db.event.ArrivalSeq})
 * of the event that started the version. The writer keeps no row in the event memory for an
 * in-order event that starts a version (the version row shows it), so this is where that event's
 * arrival order is kept; NULL on versions older than their key's prune point, whose events the memory holds or no longer needs.
 *
 * <p>{@code knownFrom}, {@code endKnownFrom}: transaction time (entities with {@code transaction-time}, the
 * default): when this row image became believed, and when its {@code valid_to} became known (NULL while
 * open); NULL on rows written before the table kept transaction time, read as "since ever".
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
        String loadedAt,
        String eventSeq,
        String knownFrom,
        String endKnownFrom) {

    public static final SystemColumns DEFAULTS = new SystemColumns(
            "surrogate_key", "valid_from", "valid_to", "is_current", "is_deleted", "record_hash",
            "source_topic", "source_partition", "source_offset", "loaded_at", "event_seq", "known_from", "end_known_from");

    /** The ten names a test renames most; {@code event_seq}, {@code known_from} and {@code end_known_from} keep their default names. */
    public SystemColumns(String surrogateKey, String validFrom, String validTo, String isCurrent, String isDeleted, String recordHash,
                         String sourceTopic, String sourcePartition, String sourceOffset, String loadedAt) {
        this(surrogateKey, validFrom, validTo, isCurrent, isDeleted, recordHash, sourceTopic, sourcePartition, sourceOffset, loadedAt,
                "event_seq", "known_from", "end_known_from");
    }

    public List<String> all() {
        return List.of(surrogateKey, validFrom, validTo, isCurrent, isDeleted, recordHash,
                sourceTopic, sourcePartition, sourceOffset, loadedAt, eventSeq, knownFrom, endKnownFrom);
    }
}
