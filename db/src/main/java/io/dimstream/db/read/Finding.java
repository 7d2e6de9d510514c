package io.dimstream.db.read;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One integrity problem of one key, found by {@link IntegrityChecker}.
 *
 * @param kind      what is wrong
 * @param key       the key columns in key order
 * @param validFrom the {@code valid_from} of the row the finding is about
 * @param detail    what was seen, with the values involved
 */
public record Finding(Kind kind, Map<String, Object> key, Instant validFrom, String detail) {

    public Finding {
        Objects.requireNonNull(kind, "kind");
        key = VersionRow.frozen(Objects.requireNonNull(key, "key"));
        Objects.requireNonNull(detail, "detail");
    }

    /** Kinds of finding, in the order reports list them. Each defect is reported as exactly one kind. */
    public enum Kind {
        /** More than one row of the key has {@code is_current}; reported once per key, at the first such row. */
        DUPLICATE_CURRENT,
        /** A version starts before the previous version of the key ends (or the previous one is still open). */
        OVERLAP,
        /** A closed version ends before the next version of the key starts. */
        GAP,
        /** {@code is_current} differs from {@code valid_to IS NULL AND NOT is_deleted}. */
        CURRENT_FLAG_INCONSISTENT,
        /**
         * The key's last version is closed ({@code valid_to} not NULL): per DESIGN section 3 the last
         * row is always open, current or (after a delete) an open {@code is_deleted} row.
         */
        NO_CURRENT,
        /**
         * Two or more versions share a {@code surrogate_key} (a collision of its 63-bit hash, or a
         * table edited by hand); reported once per surrogate key, at its first version in key order.
         * A table created with {@code surrogate-key-index: true} prevents it.
         */
        DUPLICATE_SURROGATE_KEY,
        /**
         * Transaction time out of order on a row written with it ({@code known_from} set): an open version
         * with an {@code end_known_from}, a closed one without, or an end known before the row was.
         */
        TRANSACTION_TIME
    }

    /** {@code OVERLAP customer_id=C1 valid_from=2025-01-01T00:00:00Z : detail} */
    public String render() {
        StringBuilder b = new StringBuilder(kind.name());
        key.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        if (validFrom != null) {
            b.append(" valid_from=").append(validFrom);
        }
        return b.append(" : ").append(detail).toString();
    }
}
