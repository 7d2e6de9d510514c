package io.dimstream.db.jobs;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The swap of a rebuild that changes the table's partitioning ({@code table-partitions} changed in
 * the config): a plain table cannot become a partitioned one, so here, and only here, the shadow
 * table itself becomes the live one by renames ({@link TableRenames}), and what users built on the
 * live table is carried over to it, in the caller's transaction:
 * <ul>
 *   <li>views on the table (a dbt view model) are made again over the new one from their own
 *       definition, read while the name was still the old table's ({@code CREATE OR REPLACE VIEW}:
 *       each keeps its OID, grants, comments and the views on it), the {@code T_current} view by
 *       name ({@link EntityTables#viewAndFunction});</li>
 *   <li>the table's grants and comments (its own and its columns') are given to the new table, and
 *       the grants of the function {@code T_as_of}, which is made again (its row type was the old
 *       table's);</li>
 *   <li>what cannot follow stays with the replaced table and is logged at WARN: materialized views
 *       ({@code REFRESH} reads the replaced table: create them again), foreign keys, triggers,
 *       policies, publications, column grants.</li>
 * </ul>
 */
final class LayoutChange {

    private static final Logger LOG = LoggerFactory.getLogger(LayoutChange.class);

    private LayoutChange() {
    }

    /** A user's view on the table: its name, its definition and its options ({@code security_barrier}, ...), or null. */
    private record View(String name, String definition, String options) {
    }

    static void swapIn(Connection c, EntitySpec live, String shadowTable, String retired) throws SQLException {
        String table = live.table();
        List<View> views = views(c, table, live.currentView());
        List<String> staying = TableRenames.names(c, "SELECT DISTINCT v.oid::regclass::text FROM pg_depend d JOIN pg_rewrite r ON "
                + "r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class WHERE d.refobjid = ?::regclass AND v.relkind = 'm' ORDER BY 1", table);
        String function = Sql.table(live.asOfFunction()) + "(timestamptz)";
        String functionAcl = functionAcl(c, function);
        TableRenames.rename(c, table, retired);
        TableRenames.rename(c, shadowTable, table);
        try (Statement s = c.createStatement()) {
            for (View v : views) {
                s.execute("CREATE OR REPLACE VIEW " + v.name() + (v.options() == null ? "" : " WITH (" + v.options() + ")") + " AS "
                        + v.definition());
            }
        }
        EntityTables.viewAndFunction(c, live);
        grant(c, "TABLE " + Sql.table(table), "SELECT relacl FROM pg_class WHERE oid = ?::regclass", retired);
        if (functionAcl != null) {
            // made again with the default privileges (EXECUTE for PUBLIC): the ones it had instead
            try (Statement s = c.createStatement()) {
                s.execute("REVOKE EXECUTE ON FUNCTION " + function + " FROM PUBLIC");
            }
            grant(c, "FUNCTION " + function, "SELECT ?::aclitem[]", functionAcl);
        }
        comments(c, retired, table);
        if (!staying.isEmpty()) {
            LOG.warn("entity {}: the swap changed the partitioning of {} (a new table): the materialized views {} still read the replaced "
                    + "table {}; create them again", live.name(), table, staying, retired);
        }
        LOG.info("entity {}: the swap changed the partitioning of {}: a new table, {} views of users made again over it, its grants and "
                + "comments given to it (foreign keys, triggers, policies, publications and column grants stay with {})", live.name(),
                table, views.size(), retired);
    }

    /** The function's privileges ({@code proacl} as text), null when it has the default ones (or does not exist). */
    private static String functionAcl(Connection c, String function) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT proacl::text FROM pg_proc WHERE oid = to_regprocedure(?)")) {
            p.setString(1, function);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The plain views reading {@code table} but {@code own}, with their definitions as they read now. */
    private static List<View> views(Connection c, String table, String own) throws SQLException {
        List<View> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT v.oid::regclass::text, pg_get_viewdef(v.oid), "
                + "array_to_string(v.reloptions, ', ') FROM pg_class v WHERE v.relkind = 'v' AND v.oid <> to_regclass(?) AND v.oid IN "
                + "(SELECT r.ev_class FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid WHERE d.classid = 'pg_rewrite'::regclass "
                + "AND d.refclassid = 'pg_class'::regclass AND d.refobjid = ?::regclass) ORDER BY v.oid")) {
            p.setString(1, Sql.table(own));
            p.setString(2, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String def = rs.getString(2).strip();
                    out.add(new View(rs.getString(1), def.endsWith(";") ? def.substring(0, def.length() - 1) : def, rs.getString(3)));
                }
            }
        }
        return out;
    }

    /**
     * Gives {@code object} the privileges of an ACL ({@code aclSql} with its one parameter {@code arg}),
     * but its owner's own: {@code GRANT ... TO role [WITH GRANT OPTION]}, PUBLIC for grantee 0.
     */
    private static void grant(Connection c, String object, String aclSql, String arg) throws SQLException {
        List<String> grants = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE "
                + "quote_ident(a.grantee::regrole::text) END, a.is_grantable FROM (" + aclSql + ") acl(x), aclexplode(acl.x) a "
                + "WHERE a.grantee <> a.grantor ORDER BY 2, 1")) {
            p.setString(1, arg);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    grants.add("GRANT " + rs.getString(1) + " ON " + object + " TO " + rs.getString(2)
                            + (rs.getBoolean(3) ? " WITH GRANT OPTION" : ""));
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (String g : grants) {
                s.execute(g);
            }
        }
    }

    /** The comments of {@code from} and of its columns on {@code to} and its columns of the same name. */
    private static void comments(Connection c, String from, String to) throws SQLException {
        List<String> sql = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT NULL, obj_description(?::regclass, 'pg_class') UNION ALL "
                + "SELECT f.attname, col_description(f.attrelid, f.attnum) FROM pg_attribute f JOIN pg_attribute t "
                + "ON t.attrelid = ?::regclass AND t.attname = f.attname AND t.attnum > 0 AND NOT t.attisdropped "
                + "WHERE f.attrelid = ?::regclass AND f.attnum > 0 AND NOT f.attisdropped")) {
            p.setString(1, Sql.table(from));
            p.setString(2, Sql.table(to));
            p.setString(3, Sql.table(from));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    if (rs.getString(2) != null) {
                        String on = rs.getString(1) == null ? "TABLE " + Sql.table(to) : "COLUMN " + Sql.table(to) + "." + Sql.ident(rs.getString(1));
                        sql.add("COMMENT ON " + on + " IS " + Sql.literal(rs.getString(2)));
                    }
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (String x : sql) {
                s.execute(x);
            }
        }
    }
}
