package io.dimstream.db.status;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The size and shape of one entity: its table's rows, and the rows waiting beside it.
 *
 * @param versions          every row of the table
 * @param currentRows       rows with {@code is_current}
 * @param deletedKeys       keys whose last version is a delete (an open {@code is_deleted} row)
 * @param quarantinePending events of the entity in {@code dimstream.quarantine} with status pending
 * @param sinkRejects       records of the entity the sink (or a replay job) set aside in {@code dimstream.sink_rejects}
 * @param sinkGaps          ranges of the entity's changes topic the sink skipped, in {@code dimstream.sink_gaps}
 */
public record TableCounts(long versions, long currentRows, long deletedKeys, long quarantinePending, long sinkRejects,
                          long sinkGaps) {

    /**
     * One pass over the entity's table (count with FILTERs: a sequential scan, so this costs in
     * proportion to the table; the dashboard asks every few seconds, see the admin package notes)
     * and three index lookups.
     */
    public static TableCounts of(DataSource ds, EntitySpec e) throws SQLException {
        SystemColumns sc = e.system();
        String table = "SELECT count(*), count(*) FILTER (WHERE " + Sql.ident(sc.isCurrent()) + "), count(*) FILTER (WHERE "
                + Sql.ident(sc.isDeleted()) + " AND " + e.openTest(null) + ") FROM " + Sql.table(e.table());
        String side = "SELECT (SELECT count(*) FROM dimstream.quarantine WHERE entity = ? AND status = 'pending'), "
                + "(SELECT count(*) FROM dimstream.sink_rejects WHERE entity = ?), "
                + "(SELECT count(*) FROM dimstream.sink_gaps WHERE entity = ?)";
        try (Connection c = ds.getConnection()) {
            long versions;
            long current;
            long deleted;
            try (PreparedStatement p = c.prepareStatement(table); ResultSet rs = p.executeQuery()) {
                rs.next();
                versions = rs.getLong(1);
                current = rs.getLong(2);
                deleted = rs.getLong(3);
            }
            try (PreparedStatement p = c.prepareStatement(side)) {
                p.setString(1, e.name());
                p.setString(2, e.name());
                p.setString(3, e.name());
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    return new TableCounts(versions, current, deleted, rs.getLong(1), rs.getLong(2), rs.getLong(3));
                }
            }
        }
    }
}
