package io.dimstream.db.read;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Whole-table figures of an entity's SCD2 table, for summaries such as the demo's: how many
 * versions, current rows and deleted keys it holds, how many versions hold a value in one column,
 * and every version in key order. Each call reads the whole table (no index helps a count of
 * everything): meant for small tables and one-off reports, not for pages served often.
 *
 * <p>Every identifier goes through {@link Sql} and comes from the entity's spec; thread-safe, each
 * call takes its own connection.
 */
public final class TableSummary {

    /**
     * @param versions    every row of the table, deleted rows included
     * @param currentRows rows with {@code is_current} (one per live key)
     * @param deletedKeys keys whose newest row is an {@code is_deleted} row (open: {@code valid_to IS NULL})
     */
    public record Shape(long versions, long currentRows, long deletedKeys) {
    }

    private final DataSource ds;

    public TableSummary(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /** The table's versions, current rows and deleted keys, in one scan. */
    public Shape shape(EntitySpec e) throws SQLException {
        SystemColumns sc = e.system();
        String sql = "SELECT count(*), count(*) FILTER (WHERE " + Sql.ident(sc.isCurrent()) + "), count(*) FILTER (WHERE "
                + Sql.ident(sc.isDeleted()) + " AND " + e.openTest(null) + ") FROM " + Sql.table(e.table());
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            rs.next();
            return new Shape(rs.getLong(1), rs.getLong(2), rs.getLong(3));
        }
    }

    /**
     * The versions (deleted rows included: they carry the attributes of the version they close)
     * whose {@code column} is not NULL.
     *
     * @param column an attribute of {@code e} (a column added while running is one once the spec
     *               is merged with the catalog, {@link io.dimstream.db.schema.EvolvedColumns#withCatalog})
     * @throws IllegalArgumentException when {@code column} is not an attribute of the entity
     */
    public long versionsWithValue(EntitySpec e, String column) throws SQLException {
        if (!e.attributes().contains(column)) {
            throw new IllegalArgumentException("'" + column + "' is not an attribute column of entity " + e.name()
                    + " (its attributes: " + e.attributes() + ")");
        }
        String sql = "SELECT count(*) FROM " + Sql.table(e.table()) + " WHERE " + Sql.ident(column) + " IS NOT NULL";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
