package io.dimstream.db.read;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One page of an as-of table.
 *
 * @param rows    the rows of this page, in the requested key order
 * @param hasMore true when at least one more row follows this page in that order
 */
public record Page(List<VersionRow> rows, boolean hasMore) {

    public Page {
        rows = List.copyOf(rows);
    }

    /** The key of the last row, to pass to {@link HistoryQueries#asOfAfter} for the next page. */
    public Optional<Map<String, Object>> lastKey() {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(rows.size() - 1).key());
    }
}
