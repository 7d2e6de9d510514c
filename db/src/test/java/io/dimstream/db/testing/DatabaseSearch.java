package io.dimstream.db.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Searches a whole database for texts: every column of every table of every schema the catalog lists
 * (views left out: they show the tables' rows), each column cast to text ({@code bytea} read as
 * {@code encode(col, 'escape')}, so text stored as bytes is found as text), and the planner's sampled
 * values ({@code pg_stats}: most common values, histogram bounds). Left out: the system catalogs
 * (besides pg_stats), TOAST, and the temporary schemas of other sessions, which no other session
 * can read.
 */
public final class DatabaseSearch {

    private DatabaseSearch() {
    }

    /** Every hit, as {@code schema.table.column: N rows contain "text"} (pg_stats: {@code pg_stats of schema.table.column}), sorted. */
    public static List<String> hits(DataSource ds, List<String> texts) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            for (Map.Entry<String, List<String[]>> t : tables(c).entrySet()) {
                out.addAll(tableHits(c, t.getKey(), t.getValue(), texts));
            }
            out.addAll(statsHits(c, texts));
        }
        out.sort(null);
        return out;
    }

    /** Whole rows (as {@code to_jsonb(row)} text, bytea as hex) of every table where a column holds one of {@code texts}, sorted. */
    public static List<String> rows(DataSource ds, List<String> texts) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            for (Map.Entry<String, List<String[]>> t : tables(c).entrySet()) {
                String any = anyColumn(t.getValue(), texts.size());
                try (PreparedStatement p = c.prepareStatement("SELECT to_jsonb(x)::text FROM " + t.getKey() + " x WHERE " + any)) {
                    bindTexts(p, t.getValue().size(), texts);
                    try (ResultSet rs = p.executeQuery()) {
                        while (rs.next()) {
                            out.add(t.getKey() + " " + rs.getString(1));
                        }
                    }
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** Quoted table name to its columns (quoted name, data type), from the catalog. */
    private static Map<String, List<String[]>> tables(Connection c) throws SQLException {
        Map<String, List<String[]>> tables = new LinkedHashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT quote_ident(n.nspname) || '.' || quote_ident(r.relname), quote_ident(a.attname), "
                + "format_type(a.atttypid, NULL) FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace "
                + "JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped "
                + "WHERE r.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
                + "AND (n.nspname NOT LIKE 'pg_temp%' OR n.oid = pg_my_temp_schema()) AND n.nspname NOT LIKE 'pg_toast_temp%' "
                + "AND has_table_privilege(r.oid, 'SELECT') ORDER BY 1, a.attnum");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                tables.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new String[] {rs.getString(2), rs.getString(3)});
            }
        }
        return tables;
    }

    private static String asText(String[] col) {
        return col[1].equals("bytea") ? "encode(" + col[0] + ", 'escape')" : col[0] + "::text";
    }

    private static String anyColumn(List<String[]> cols, int texts) {
        List<String> ors = new ArrayList<>();
        for (String[] col : cols) {
            for (int i = 0; i < texts; i++) {
                ors.add("strpos(" + asText(col) + ", ?) > 0");
            }
        }
        return "(" + String.join(" OR ", ors) + ")";
    }

    private static void bindTexts(PreparedStatement p, int columns, List<String> texts) throws SQLException {
        int i = 1;
        for (int col = 0; col < columns; col++) {
            for (String t : texts) {
                p.setString(i++, t);
            }
        }
    }

    private static List<String> tableHits(Connection c, String table, List<String[]> cols, List<String> texts) throws SQLException {
        List<String> counts = new ArrayList<>();
        for (String[] col : cols) {
            for (int i = 0; i < texts.size(); i++) {
                counts.add("count(*) FILTER (WHERE strpos(" + asText(col) + ", ?) > 0)");
            }
        }
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT " + String.join(", ", counts) + " FROM " + table)) {
            bindTexts(p, cols.size(), texts);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                int k = 1;
                for (String[] col : cols) {
                    for (String t : texts) {
                        long n = rs.getLong(k++);
                        if (n > 0) {
                            out.add(table + "." + col[0] + ": " + n + " rows contain \"" + t + "\"");
                        }
                    }
                }
            }
        }
        return out;
    }

    private static List<String> statsHits(Connection c, List<String> texts) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT schemaname || '.' || tablename || '.' || attname FROM pg_stats "
                + "WHERE (schemaname NOT LIKE 'pg_temp%' OR schemaname = (SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema())) "
                + "AND strpos(concat(most_common_vals::text, histogram_bounds::text, most_common_elems::text), ?) > 0 ORDER BY 1")) {
            for (String t : texts) {
                p.setString(1, t);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add("pg_stats of " + rs.getString(1) + " contains \"" + t + "\"");
                    }
                }
            }
        }
        return out;
    }
}
