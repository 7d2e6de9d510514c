package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link EvolvedColumns#catchUp}: an entity table and its event memory brought to the columns of a
 * spec that already holds the catalog's (added columns, widened types), by the same DDL as
 * {@link EvolvedColumns#add} and {@link EvolvedColumns#widen} but without writing the catalog.
 */
final class ColumnCatchUp {

    private ColumnCatchUp() {
    }

    static List<String> run(Connection c, EntitySpec spec) throws SQLException {
        Map<String, String> table = TableCheck.columnTypes(c, spec.table());
        Map<String, String> memory = TableCheck.columnTypes(c, spec.memoryTable());
        List<String> done = new ArrayList<>();
        List<String> widen = new ArrayList<>();
        for (String col : spec.dataColumns()) {
            TypeWidening.ColumnDef want = TypeWidening.ColumnDef.of(spec, col);
            if (!table.containsKey(col)) {
                exec(c, "ALTER TABLE " + Sql.table(spec.table()) + " ADD COLUMN IF NOT EXISTS " + Sql.ident(col) + " " + want.sql());
                done.add("added column " + col + " " + want.sql() + " to " + spec.table());
            } else if (!want.equals(parse(table.get(col)))) {
                TypeWidening.ColumnDef have = parse(table.get(col));
                if (have == null || !TypeWidening.isSafe(have, want)) {
                    throw new EvolvedColumns.UnsafeTypeChange("entity " + spec.name() + ": column " + col + " of " + spec.table() + " is "
                            + table.get(col) + ", and the entity's columns say " + want.sql() + ", which is no safe widening of it: change "
                            + "the column by hand (ALTER TABLE " + Sql.table(spec.table()) + " ALTER COLUMN " + Sql.ident(col) + " TYPE "
                            + want.sql() + " USING ...)");
                }
                widen.add(col);
            }
            String base = want.type().sqlName();
            if (!memory.containsKey(col)) {
                exec(c, "ALTER TABLE " + Sql.table(spec.memoryTable()) + " ADD COLUMN IF NOT EXISTS " + Sql.ident(col) + " " + base);
            } else if (!memory.get(col).equals(base)) {
                exec(c, "ALTER TABLE " + Sql.table(spec.memoryTable()) + " ALTER COLUMN " + Sql.ident(col) + " TYPE " + base);
            }
        }
        boolean view = TableCheck.exists(c, spec.currentView());
        if (!widen.isEmpty()) {
            widen(c, spec, widen, view);
            widen.forEach(col -> done.add("widened column " + col + " of " + spec.table() + " from " + table.get(col) + " to "
                    + TypeWidening.ColumnDef.of(spec, col).sql()));
        }
        if (view && !done.isEmpty()) {
            EntityDdl.currentView(c, spec);
        }
        return done;
    }

    /**
     * {@code ALTER COLUMN ... TYPE} of each column, the view {@code T_current} dropped first (PostgreSQL
     * refuses to change the type of a column a view uses; the caller makes it again). Refused before
     * any change when views of a user's use one of the columns, naming them.
     */
    private static void widen(Connection c, EntitySpec spec, List<String> columns, boolean view) throws SQLException {
        List<String> users = usersViews(c, spec, columns);
        if (!users.isEmpty()) {
            throw new EvolvedColumns.UnsafeTypeChange("entity " + spec.name() + ": columns " + columns + " of " + spec.table()
                    + " must be widened to the entity's types (the catalog's, dimstream.entity_columns), which PostgreSQL refuses while "
                    + "views use them: " + String.join(", ", users) + "; drop those views, retry, and create them again");
        }
        if (view) {
            exec(c, "DROP VIEW " + Sql.table(spec.currentView()));
        }
        for (String col : columns) {
            exec(c, "ALTER TABLE " + Sql.table(spec.table()) + " ALTER COLUMN " + Sql.ident(col) + " TYPE "
                    + TypeWidening.ColumnDef.of(spec, col).sql());
        }
    }

    /**
     * The views that stand in the way of retyping {@code columns} of the entity table: those but the
     * entity's own {@code T_current} that read any of them (a user's, a dbt model's: PostgreSQL refuses
     * to change the type of a column a view uses), and every view built on {@code T_current}, which
     * the widening drops and makes again (PostgreSQL refuses to drop a view others depend on).
     */
    static List<String> usersViews(Connection c, EntitySpec spec, List<String> columns) throws SQLException {
        List<String> users = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT DISTINCT v.oid::regclass::text FROM pg_depend d JOIN pg_rewrite r "
                + "ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid "
                + "AND a.attnum = d.refobjsubid WHERE d.classid = 'pg_rewrite'::regclass AND v.oid <> d.refobjid "
                + "AND ((d.refobjid = ?::regclass AND a.attname = ANY (?) AND v.oid IS DISTINCT FROM to_regclass(?)) "
                + "OR d.refobjid = to_regclass(?)) ORDER BY 1")) {
            p.setString(1, Sql.table(spec.table()));
            p.setArray(2, c.createArrayOf("text", columns.toArray()));
            p.setString(3, Sql.table(spec.currentView()));
            p.setString(4, Sql.table(spec.currentView()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    users.add(rs.getString(1));
                }
            }
        }
        return users;
    }

    private static TypeWidening.ColumnDef parse(String formatType) {
        try {
            return TypeWidening.ColumnDef.parse(formatType);
        } catch (IllegalArgumentException unknown) {
            return null;
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
