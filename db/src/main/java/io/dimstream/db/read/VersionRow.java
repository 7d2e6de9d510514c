package io.dimstream.db.read;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One row of an entity's SCD2 table, as the read side returns it.
 *
 * <p>Values are typed the way {@link io.dimstream.db.entity.ColumnType#coerce} types them:
 * String, Long (smallint, integer, bigint), BigDecimal, Double, Boolean, LocalDate, Instant, UUID,
 * LocalDateTime (timestamp), LocalTime (time), the canonical JSON text (jsonb, a String), byte[]
 * (bytea: compare with {@code Arrays.equals}); SQL NULL is {@code null}.
 *
 * @param key            the key columns in key order
 * @param attributes     the tracked columns, then the type-1 columns, in configured order
 * @param surrogateKey   the version's deterministic surrogate key
 * @param validFrom      start of the validity range (inclusive)
 * @param validTo        end of the validity range (exclusive); null while the version is open
 * @param current        {@code is_current}
 * @param deleted        {@code is_deleted}: the key was deleted at {@code validFrom}
 * @param recordHash     {@code record_hash} as lower-case hex
 * @param sourceTopic    lineage: the topic of the event that produced the row (null for file loads)
 * @param sourcePartition lineage: its partition, or null
 * @param sourceOffset   lineage: its offset, or null
 * @param loadedAt       when dimstream wrote the row
 */
public record VersionRow(
        Map<String, Object> key,
        Map<String, Object> attributes,
        long surrogateKey,
        Instant validFrom,
        Instant validTo,
        boolean current,
        boolean deleted,
        String recordHash,
        String sourceTopic,
        Integer sourcePartition,
        Long sourceOffset,
        Instant loadedAt) {

    public VersionRow {
        key = frozen(Objects.requireNonNull(key, "key"));
        attributes = frozen(Objects.requireNonNull(attributes, "attributes"));
        Objects.requireNonNull(validFrom, "validFrom");
    }

    /** The key values in key order, as {@link HistoryQueries#history} takes them. */
    public List<Object> keyValues() {
        return List.copyOf(key.values());
    }

    /** An unmodifiable copy that keeps insertion order and allows null values. */
    static Map<String, Object> frozen(Map<String, Object> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
}
