package io.dimstream.db.write;

import io.dimstream.db.event.Rejection;
import java.util.ArrayList;
import java.util.List;

/**
 * What one {@link Scd2Writer#apply} did. Every input event is counted exactly once in one of:
 * newKeys, changed, deleted, unchanged, late, duplicates, quarantined, rejected, erased. Each is judged at
 * the event's arrival (against the events with a lower {@code seq}, in the batch too), so the
 * counts of an input are the same however it is cut into batches.
 *
 * <ul>
 *   <li>newKeys: an upsert for a key that had no earlier event;</li>
 *   <li>changed: an upsert whose tracked hash differs from the key's event before it (or that
 *       event was a delete: a resurrection);</li>
 *   <li>deleted: a delete after an upsert (or of a key with no earlier event);</li>
 *   <li>unchanged: the same state as the event before it (a re-assertion, or a repeated delete);</li>
 *   <li>late: older than the key's newest event at its arrival, placed exactly;</li>
 *   <li>duplicates: the same key and event time as a remembered event that wins by arrival or
 *       has the same content (an exact re-delivery, a repeat, or an older arrival), so nothing changes;</li>
 *   <li>quarantined: beyond the lateness horizon at its arrival (or at or before the key's prune
 *       point), kept in {@code dimstream.quarantine};</li>
 *   <li>rejected: not a valid event for the entity, with the reason;</li>
 *   <li>erased: an event of a key erased with a tombstone ({@code dimstream erase},
 *       {@link io.dimstream.db.write.ErasedKeys}), dropped before anything was remembered or written.</li>
 * </ul>
 * rowsInserted/Updated/Deleted count what the version table saw.
 *
 * <p>Built by name with {@link #builder()}: every count not set is zero, {@code rejected} empty.
 */
public record ApplyResult(
        int received,
        int newKeys,
        int changed,
        int deleted,
        int unchanged,
        int late,
        int duplicates,
        int quarantined,
        List<Rejection> rejected,
        int rowsInserted,
        int rowsUpdated,
        int rowsDeleted,
        int erased) {

    public ApplyResult {
        rejected = List.copyOf(rejected);
    }

    public static ApplyResult empty() {
        return builder().build();
    }

    /** A builder whose counts start at zero and whose rejections start empty. */
    public static Builder builder() {
        return new Builder();
    }

    /** Events that reached the table (everything but duplicates, quarantined and rejected). */
    public int applied() {
        return newKeys + changed + deleted + unchanged + late;
    }

    public ApplyResult plus(ApplyResult o) {
        List<Rejection> r = new ArrayList<>(rejected);
        r.addAll(o.rejected);
        return new ApplyResult(received + o.received, newKeys + o.newKeys, changed + o.changed, deleted + o.deleted,
                unchanged + o.unchanged, late + o.late, duplicates + o.duplicates, quarantined + o.quarantined, r,
                rowsInserted + o.rowsInserted, rowsUpdated + o.rowsUpdated, rowsDeleted + o.rowsDeleted, erased + o.erased);
    }

    /** Names each count of an {@link ApplyResult}; what is not set is zero (rejected: none). */
    public static final class Builder {
        private int received;
        private int newKeys;
        private int changed;
        private int deleted;
        private int unchanged;
        private int late;
        private int duplicates;
        private int quarantined;
        private List<Rejection> rejected = List.of();
        private int rowsInserted;
        private int rowsUpdated;
        private int rowsDeleted;
        private int erased;

        private Builder() {
        }

        public Builder received(int n) {
            received = n;
            return this;
        }

        public Builder newKeys(int n) {
            newKeys = n;
            return this;
        }

        public Builder changed(int n) {
            changed = n;
            return this;
        }

        public Builder deleted(int n) {
            deleted = n;
            return this;
        }

        public Builder unchanged(int n) {
            unchanged = n;
            return this;
        }

        public Builder late(int n) {
            late = n;
            return this;
        }

        public Builder duplicates(int n) {
            duplicates = n;
            return this;
        }

        public Builder quarantined(int n) {
            quarantined = n;
            return this;
        }

        public Builder rejected(List<Rejection> r) {
            rejected = r;
            return this;
        }

        public Builder rowsInserted(int n) {
            rowsInserted = n;
            return this;
        }

        public Builder rowsUpdated(int n) {
            rowsUpdated = n;
            return this;
        }

        public Builder rowsDeleted(int n) {
            rowsDeleted = n;
            return this;
        }

        public Builder erased(int n) {
            erased = n;
            return this;
        }

        public ApplyResult build() {
            return new ApplyResult(received, newKeys, changed, deleted, unchanged, late, duplicates, quarantined, rejected,
                    rowsInserted, rowsUpdated, rowsDeleted, erased);
        }
    }
}
