package io.dimstream.app.compose;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Whole rows of dimstream's own tables where an operator would look. */
final class ComposeFixtures {

    private ComposeFixtures() {
    }


    /** The entity's rows of {@code dimstream.sink_rejects}, whole, as JSON. */
    static List<String> sinkRejects(DataSource ds, String entity) throws SQLException {
        return strings(ds, "SELECT to_jsonb(r)::text FROM dimstream.sink_rejects r WHERE entity = ? ORDER BY id", entity);
    }

    /** The entity's rows of {@code dimstream.quarantine}, whole, as JSON. */
    static List<String> quarantine(DataSource ds, String entity) throws SQLException {
        return strings(ds, "SELECT to_jsonb(q)::text FROM dimstream.quarantine q WHERE entity = ? ORDER BY id", entity);
    }

    /** Every column of every row of {@code table} (loaded_at included) as JSON, by key and valid_from. */
    static List<String> jsonRows(DataSource ds, String table) throws SQLException {
        return strings(ds, "SELECT to_jsonb(t)::text FROM " + table + " t ORDER BY customer_id, valid_from");
    }

    static List<String> strings(DataSource ds, String sql, Object... params) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                p.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
