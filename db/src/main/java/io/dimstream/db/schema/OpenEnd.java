package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How an existing table ends its open versions ({@code valid-to-current}), as the catalog shows it:
 * the {@code format()} patterns of what PostgreSQL prints ({@code pg_get_expr},
 * {@code pg_get_constraintdef}) for the objects {@link EntityDdl} creates in each mode, and the
 * refusal of a table made in the other mode.
 *
 * <p>A table is not converted in place: its generated {@code is_current} would have to change, which
 * PostgreSQL before 17 does only by dropping the column, and a dropped column takes with it (or is
 * refused by) every view on the table: {@code T_current}, users' views, dbt's view models. A rebuild
 * into a new table leaves the old one readable until the user drops it (docs/configuration.md).
 */
final class OpenEnd {

    private OpenEnd() {
    }

    /** The {@code format()} pattern of the one-open-version index's predicate; {@code %1$I}: valid_to. */
    static String indexPredicate(ValidToCurrent open) {
        return open == ValidToCurrent.NULL ? "(%1$I IS NULL)" : "(%1$I = 'infinity'::timestamp with time zone)";
    }

    /** The {@code format()} pattern of the valid-range check; {@code %1$I}: valid_to, {@code %2$I}: valid_from. */
    static String rangeCheckDefinition(ValidToCurrent open) {
        return open == ValidToCurrent.NULL ? "CHECK (((%1$I IS NULL) OR (%1$I > %2$I)))" : "CHECK ((%1$I > %2$I))";
    }

    /** The {@code format()} pattern of the generated {@code is_current}; {@code %1$I}: valid_to, {@code %2$I}: is_deleted. */
    private static String currentExpression(ValidToCurrent open) {
        return "(" + indexPredicate(open) + " AND (NOT %2$I))";
    }

    /**
     * Refuses an existing entity table whose generated {@code is_current} is the one the other
     * {@code valid-to-current} creates, with what to do; nothing for a table of the config's mode (or
     * one made by hand otherwise: {@link TableCheck} judges it).
     *
     * @throws EntityTables.SchemaMismatchException naming the table, both values and the ways out
     */
    static void refuseOtherOpenEnd(Connection c, EntitySpec e) throws SQLException {
        SystemColumns sc = e.system();
        ValidToCurrent other = e.validToCurrent() == ValidToCurrent.NULL ? ValidToCurrent.INFINITY : ValidToCurrent.NULL;
        try (PreparedStatement p = c.prepareStatement("SELECT pg_get_expr(d.adbin, d.adrelid) = format(?, ?::text, ?::text) "
                + "FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                + "WHERE a.attrelid = ?::regclass AND a.attname = ? AND a.attgenerated <> ''")) {
            p.setString(1, currentExpression(other));
            p.setString(2, sc.validTo());
            p.setString(3, sc.isDeleted());
            p.setString(4, Sql.table(e.table()));
            p.setString(5, sc.isCurrent());
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    return;
                }
            }
        }
        throw new EntityTables.SchemaMismatchException("table " + e.table() + " ends its open versions at " + shown(other)
                + " (it was created with valid-to-current: " + other.configName() + "), but the config says valid-to-current: "
                + e.validToCurrent().configName() + ". dimstream does not convert an existing table (its generated column "
                + sc.isCurrent() + " would have to be dropped, and with it every view on the table). Either keep "
                + "valid-to-current: " + other.configName() + " for entity " + e.name() + ", or rebuild: give it a new table: with "
                + "valid-to-current: " + e.validToCurrent().configName() + ", fill that from the topic (dimstream replay --config FILE --entity "
                + e.name() + " --from earliest --wait) or from files (dimstream load), then drop " + e.table()
                + " (docs/configuration.md, \"Open versions: NULL or infinity\")");
    }

    private static String shown(ValidToCurrent open) {
        return open == ValidToCurrent.NULL ? "NULL" : "'infinity'";
    }
}
