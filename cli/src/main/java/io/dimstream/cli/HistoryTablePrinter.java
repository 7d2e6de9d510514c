package io.dimstream.cli;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Prints every version row of an entity as an aligned text table, ordered by key and
 * {@code valid_from}: key, validity, flags, then the tracked and type-1 columns. NULL prints empty.
 */
final class HistoryTablePrinter {

    private HistoryTablePrinter() {
    }

    static void print(PrintWriter out, DataSource ds, EntitySpec e) throws SQLException {
        SystemColumns sc = e.system();
        List<String> columns = new ArrayList<>(e.key());
        columns.addAll(List.of(sc.validFrom(), sc.validTo(), sc.isCurrent(), sc.isDeleted()));
        columns.addAll(e.attributes());
        String sql = "SELECT " + Sql.list(columns) + " FROM " + Sql.table(e.table())
                + " ORDER BY " + Sql.list(e.key()) + ", " + Sql.ident(sc.validFrom());
        List<List<String>> rows = new ArrayList<>();
        rows.add(columns);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(text(rs, md, i));
                }
                rows.add(row);
            }
        }
        int[] width = new int[columns.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            out.println(line(rows.get(r), width));
            if (r == 0) {
                List<String> rule = new ArrayList<>();
                for (int w : width) {
                    rule.add("-".repeat(w));
                }
                out.println(line(rule, width));
            }
        }
        out.println("(" + (rows.size() - 1) + " rows)");
        out.flush();
    }

    private static String line(List<String> cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append("  ");
            }
            sb.append(cells.get(i)).append(" ".repeat(width[i] - cells.get(i).length()));
        }
        return sb.toString().stripTrailing();
    }

    private static String text(ResultSet rs, ResultSetMetaData md, int i) throws SQLException {
        if ("timestamptz".equals(md.getColumnTypeName(i))) {
            OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
            return t == null ? "" : t.toInstant().toString();
        }
        Object v = rs.getObject(i);
        return v == null ? "" : String.valueOf(v);
    }
}
