package io.dimstream.db.read;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The counts of a {@link Diff} between the as-of tables at two instants, over every key (never
 * truncated): keys added, keys removed, keys whose version changed, and per attribute column how
 * many of the changed keys hold a different value in it.
 *
 * @param added           keys with a row valid at {@code to} and none at {@code from}
 * @param removed         keys with a row valid at {@code from} and none at {@code to}
 * @param changed         keys valid at both instants with a different version
 * @param changedByColumn per attribute column (tracked, then type-1, in configured order): keys
 *                        among {@code changed} whose value differs ({@code IS DISTINCT FROM})
 */
public record DiffSummary(Instant from, Instant to, long added, long removed, long changed, Map<String, Long> changedByColumn) {

    public DiffSummary {
        changedByColumn = Collections.unmodifiableMap(new LinkedHashMap<>(changedByColumn));
    }
}
