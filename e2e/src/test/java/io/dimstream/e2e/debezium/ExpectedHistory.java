package io.dimstream.e2e.debezium;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history a table must have, built from the source's audit trail ({@link SourcePostgres}) by
 * the rules of docs/semantics.md, independently of dimstream's code: each change's time is its
 * transaction's commit time in whole milliseconds (what Debezium sends as {@code source.ts_ms});
 * of a key's changes in one millisecond the last counts; an insert or update whose tracked values
 * equal the open version's makes no version (a no-op update, an update of type-1 columns only: those
 * overwrite the open version's type-1 values); a delete of an open version adds a deleted row
 * carrying its attributes; an insert after a delete opens a new version; each row is valid until the
 * next row of its key. A column added while running is NULL in the changes before it, so a change
 * that leaves it NULL makes no version.
 */
final class ExpectedHistory {

    private ExpectedHistory() {
    }

    private record Change(List<String> key, String op, long commitMs, Map<String, String> values) {
    }

    /** The rows {@code table}'s history must hold after every change the audit trail has for it. */
    static List<Version> of(Connection source, SourceTable table) throws SQLException {
        Map<List<String>, List<Change>> byKey = new LinkedHashMap<>();
        for (Change c : changes(source, table)) {
            byKey.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c);
        }
        List<Version> out = new ArrayList<>();
        byKey.values().forEach(changes -> out.addAll(versions(table, changes)));
        out.sort(Version.ORDER);
        return out;
    }

    /** The audit trail's changes of the table, in commit order, each row image typed by the table's final shape. */
    private static List<Change> changes(Connection source, SourceTable table) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT a.op, floor(extract(epoch FROM pg_xact_commit_timestamp("
                + "(a.txid % 4294967296)::text::xid)) * 1000)::bigint");
        for (SourceTable.Column c : table.columns()) {
            sql.append(", r.").append(c.name()).append("::text");
        }
        sql.append(" FROM audit.changes a, jsonb_populate_record(NULL::public.").append(table.name())
                .append(", a.row_image) r WHERE a.tbl = '").append(table.name()).append("' ORDER BY a.seq");
        List<Change> out = new ArrayList<>();
        try (Statement st = source.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                Map<String, String> values = new LinkedHashMap<>();
                for (int i = 0; i < table.columns().size(); i++) {
                    SourceTable.Column c = table.columns().get(i);
                    values.put(c.name(), Version.normalize(c, rs.getString(3 + i)));
                }
                List<String> key = table.key().stream().map(values::get).toList();
                out.add(new Change(key, rs.getString(1), rs.getLong(2), values));
            }
        }
        // serial transactions: audit order is commit order; sorted by time all the same (stable)
        out.sort(Comparator.comparingLong(Change::commitMs));
        return out;
    }

    /** One key's rows from its changes in commit order. */
    private static List<Version> versions(SourceTable table, List<Change> changes) {
        List<Change> instants = new ArrayList<>();
        for (Change c : changes) {
            if (!instants.isEmpty() && instants.get(instants.size() - 1).commitMs() == c.commitMs()) {
                instants.set(instants.size() - 1, c); // same millisecond: the later change wins
            } else {
                instants.add(c);
            }
        }
        List<Map<String, String>> attrs = new ArrayList<>();
        List<Long> from = new ArrayList<>();
        List<Boolean> deleted = new ArrayList<>();
        for (Change c : instants) {
            int last = attrs.size() - 1;
            boolean open = last >= 0 && !deleted.get(last);
            if ("DELETE".equals(c.op())) {
                if (open) {
                    attrs.add(attrs.get(last));
                    from.add(c.commitMs());
                    deleted.add(true);
                }
            } else if (open && sameTracked(table, attrs.get(last), c.values())) {
                Map<String, String> overwritten = new LinkedHashMap<>(attrs.get(last));
                table.type1().forEach(col -> overwritten.put(col, c.values().get(col)));
                attrs.set(last, overwritten);
            } else {
                Map<String, String> values = new LinkedHashMap<>();
                table.attributes().forEach(col -> values.put(col.name(), c.values().get(col.name())));
                attrs.add(values);
                from.add(c.commitMs());
                deleted.add(false);
            }
        }
        List<Version> out = new ArrayList<>();
        List<String> key = changes.get(0).key();
        for (int i = 0; i < attrs.size(); i++) {
            Instant validTo = i + 1 < attrs.size() ? Instant.ofEpochMilli(from.get(i + 1)) : null;
            out.add(new Version(table.name(), key, attrs.get(i), Instant.ofEpochMilli(from.get(i)), validTo,
                    validTo == null && !deleted.get(i), deleted.get(i)));
        }
        return out;
    }

    private static boolean sameTracked(SourceTable table, Map<String, String> open, Map<String, String> change) {
        return table.tracked().stream().allMatch(c -> Objects.equals(open.get(c.name()), change.get(c.name())));
    }
}
