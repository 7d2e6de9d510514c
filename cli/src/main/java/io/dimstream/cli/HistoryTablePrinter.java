package io.dimstream.cli;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Prints every version row of an entity as an aligned text table, ordered by key and
 * {@code valid_from} (read by {@link HistoryQueries#allVersions}): key, validity, flags, then the
 * tracked and type-1 columns. NULL prints empty.
 */
final class HistoryTablePrinter {

    private HistoryTablePrinter() {
    }

    static void print(PrintWriter out, DataSource ds, EntitySpec e) throws SQLException {
        SystemColumns sc = e.system();
        List<String> columns = new ArrayList<>(e.key());
        columns.addAll(List.of(sc.validFrom(), sc.validTo(), sc.isCurrent(), sc.isDeleted()));
        columns.addAll(e.attributes());
        List<List<String>> rows = new ArrayList<>();
        rows.add(columns);
        for (VersionRow v : new HistoryQueries(ds).allVersions(e)) {
            List<String> row = new ArrayList<>(columns.size());
            v.key().values().forEach(k -> row.add(text(k)));
            row.add(text(v.validFrom()));
            row.add(text(v.validTo()));
            row.add(text(v.current()));
            row.add(text(v.deleted()));
            for (String a : e.attributes()) {
                row.add(text(v.attributes().get(a)));
            }
            rows.add(row);
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

    private static String text(Object v) {
        return v == null ? "" : String.valueOf(v);
    }
}
