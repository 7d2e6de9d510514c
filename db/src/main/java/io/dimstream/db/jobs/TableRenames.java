package io.dimstream.db.jobs;

import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Renames a table of dimstream's with what carries its name: its indexes (a primary key's renames
 * its constraint along), its CHECK constraints (and the partitions' inherited copies), and its
 * partitions ({@code <table>_p0} ..) with their own indexes. For the event memory at every swap
 * (internal: nothing of a user's depends on it) and the entity table when a swap changes its
 * partitioning ({@link LayoutChange}).
 */
final class TableRenames {

    private TableRenames() {
    }

    static void rename(Connection c, String from, String to) throws SQLException {
        String fromBare = Sql.nameOf(from);
        String toBare = Sql.nameOf(to);
        String schema = Sql.schemaOf(from);
        String schemaDot = schema == null ? "" : schema + ".";
        List<String> indexes = names(c, "SELECT ic.relname FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
                + "WHERE i.indrelid = ?::regclass", from);
        List<String> checks = names(c, "SELECT conname FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'c'", from);
        List<String> partitions = names(c, "SELECT pc.relname FROM pg_inherits i JOIN pg_class pc ON pc.oid = i.inhrelid "
                + "WHERE i.inhparent = ?::regclass ORDER BY pc.relname", from);
        try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + Sql.table(from) + " RENAME TO " + Sql.ident(toBare));
            // an index backing a constraint (the primary key) renames its constraint along
            for (String ix : indexes) {
                if (ix.startsWith(fromBare)) {
                    s.execute("ALTER INDEX " + Sql.table(schemaDot + ix) + " RENAME TO " + Sql.ident(toBare + ix.substring(fromBare.length())));
                }
            }
            for (String ck : checks) {
                if (ck.startsWith(fromBare)) {
                    // renames the partitions' inherited copies along
                    s.execute("ALTER TABLE " + Sql.table(to) + " RENAME CONSTRAINT " + Sql.ident(ck) + " TO "
                            + Sql.ident(toBare + ck.substring(fromBare.length())));
                }
            }
        }
        // table-partitions: the partitions (<table>_p0 ..) and their own indexes follow the parent's name
        for (String part : partitions) {
            if (part.startsWith(fromBare)) {
                rename(c, schemaDot + part, schemaDot + toBare + part.substring(fromBare.length()));
            }
        }
    }

    /** The first column of a catalog query's rows, its one parameter the relation {@code table}. */
    static List<String> names(Connection c, String sql, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
