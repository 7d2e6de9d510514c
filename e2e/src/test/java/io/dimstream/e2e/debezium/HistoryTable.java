package io.dimstream.e2e.debezium;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Reads a history table dimstream keeps as {@link Version}s, every row, by the source table's columns. */
final class HistoryTable {

    private HistoryTable() {
    }

    /**
     * Every row of {@code historyTable}, ordered as {@link Version#ORDER}; empty while the table does
     * not exist or lacks a column of the source's (not caught up yet).
     */
    static List<Version> rows(DataSource db, String historyTable, SourceTable table) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT valid_from, valid_to, is_current, is_deleted");
        for (SourceTable.Column c : table.columns()) {
            sql.append(", ").append(c.name()).append("::text");
        }
        sql.append(" FROM ").append(historyTable);
        List<Version> out = new ArrayList<>();
        try (Connection c = db.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                // timestamptz as text in UTC, as the source's; LOCAL: the pooled connection keeps its own zone
                st.execute("SET LOCAL TIME ZONE 'UTC'");
                try (ResultSet rs = st.executeQuery(sql.toString())) {
                    while (rs.next()) {
                        out.add(version(rs, table));
                    }
                }
            } catch (SQLException e) {
                if ("42P01".equals(e.getSQLState()) || "42703".equals(e.getSQLState())) {
                    return List.of(); // no such table or column yet
                }
                throw e;
            } finally {
                c.rollback();
                c.setAutoCommit(auto);
            }
        }
        out.sort(Version.ORDER);
        return out;
    }

    private static Version version(ResultSet rs, SourceTable table) throws SQLException {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < table.columns().size(); i++) {
            SourceTable.Column c = table.columns().get(i);
            values.put(c.name(), Version.normalize(c, rs.getString(5 + i)));
        }
        Map<String, String> attrs = new LinkedHashMap<>();
        table.attributes().forEach(c -> attrs.put(c.name(), values.get(c.name())));
        OffsetDateTime to = rs.getObject(2, OffsetDateTime.class);
        return new Version(table.name(), table.key().stream().map(values::get).toList(), attrs,
                rs.getObject(1, OffsetDateTime.class).toInstant(), to == null ? null : to.toInstant(), rs.getBoolean(3),
                rs.getBoolean(4));
    }
}
