package io.dimstream.db.read;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What changed in an entity's as-of table between two instants. Each list is ordered by key.
 *
 * @param from      the earlier instant (the "before" side)
 * @param to        the later instant (the "after" side)
 * @param added     rows valid at {@code to} whose key had no row valid at {@code from}
 * @param removed   rows valid at {@code from} whose key has no row valid at {@code to}
 *                  (deleted, or not yet known at {@code to} when {@code to} is earlier)
 * @param changed   keys valid at both instants, but with a different version
 * @param truncated true when the diff had more entries than the limit asked for
 */
public record Diff(Instant from, Instant to, List<VersionRow> added, List<VersionRow> removed, List<Change> changed,
                   boolean truncated) {

    public Diff {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        changed = List.copyOf(changed);
    }

    public boolean isEmpty() {
        return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    /**
     * One key whose version differs between the two instants.
     *
     * @param key            the key columns in key order
     * @param changedColumns the attribute columns (tracked, then type-1, in configured order) whose
     *                       values differ; empty when a key was deleted and re-created unchanged
     * @param before         the version valid at {@code from}
     * @param after          the version valid at {@code to}
     */
    public record Change(Map<String, Object> key, List<String> changedColumns, VersionRow before, VersionRow after) {

        public Change {
            key = VersionRow.frozen(Objects.requireNonNull(key, "key"));
            changedColumns = List.copyOf(changedColumns);
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }
    }
}
