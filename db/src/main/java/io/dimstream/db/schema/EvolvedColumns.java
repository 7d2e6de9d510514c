package io.dimstream.db.schema;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.sql.DataSource;

/**
 * The catalog of columns added to entities while running ({@code dimstream.entity_columns}, V008):
 * a field a {@code schema-evolution: lenient} source started sending, which its entity's config does
 * not declare, becomes a column ({@code new-columns: tracked | type1}). {@link #add} adds it to the
 * entity table and its event memory and records it, all in the caller's transaction (the sink's
 * batch transaction), so the tables, the catalog and the rows written with the column commit or
 * roll back together. {@link #merge} gives an entity's spec with its catalog's columns, which every
 * reader of an entity table (sink at start, replays, admin, CLI) needs to see the whole row.
 */
public final class EvolvedColumns {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EvolvedColumns.class);

    private EvolvedColumns() {
    }

    /** A row of the catalog. */
    public record Column(String entity, String column, ColumnType type, boolean tracked, Instant addedAt, String firstSource) {

        /** {@code tracked} or {@code type1}, as the catalog stores it. */
        public String role() {
            return tracked ? "tracked" : "type1";
        }
    }

    /** A column to add: its inferred type, its role, and the change that first carried it ({@code topic-partition@offset}). */
    public record NewColumn(String column, ColumnType type, boolean tracked, String firstSource) {
    }

    /** The entity's evolved columns in the order they were added (added_at, then name): the order they enter {@code record_hash}. */
    public static List<Column> list(Connection c, String entity) throws SQLException {
        List<Column> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT column_name, sql_type, role, added_at, first_source "
                + "FROM dimstream.entity_columns WHERE entity = ? ORDER BY added_at, column_name")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String type = rs.getString(2);
                    ColumnType t = ColumnType.fromConfig(type).orElseThrow(() -> new IllegalStateException(
                            "dimstream.entity_columns: column of entity '" + entity + "' has the unknown type " + type));
                    out.add(new Column(entity, rs.getString(1), t, "tracked".equals(rs.getString(3)),
                            rs.getTimestamp(4).toInstant(), rs.getString(5)));
                }
            }
        }
        return out;
    }

    public static List<Column> list(DataSource ds, String entity) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return list(c, entity);
        }
    }

    /**
     * The spec with the catalog's columns it does not have yet, appended in catalog order. A column
     * the config now declares itself is the config's (its place in the hash is then the config's:
     * declaring an evolved column in {@code columns:} changes the hash of the versions holding a
     * value in it, which the README says).
     */
    public static EntitySpec merge(EntitySpec spec, List<Column> catalog) {
        EntitySpec out = spec;
        for (Column col : catalog) {
            if (!out.columns().containsKey(col.column())) {
                out = out.withEvolvedColumn(col.column(), col.type(), col.tracked());
            }
        }
        return out;
    }

    /** {@link #merge} with the catalog read from {@code ds}. */
    public static EntitySpec withCatalog(DataSource ds, EntitySpec spec) throws SQLException {
        return merge(spec, list(ds, spec.name()));
    }

    /**
     * Adds columns to the entity in the caller's transaction: {@code ALTER TABLE ... ADD COLUMN}
     * (nullable) on the entity table and its event memory, the catalog rows, the view {@code T_current}
     * again (its {@code SELECT *} was expanded when it was made); then returns the spec merged with
     * the whole catalog. Serialized per entity by an advisory lock taken before any DDL, so two
     * transactions adding a column wait for each other instead of deadlocking. A column another
     * transaction added first keeps the type it was added with: the first type wins; the values of
     * this one are then coerced to it (or refused with the reason) as any value is.
     *
     * @throws IllegalArgumentException before anything is written, when a name is not one a column
     *                                  may take ({@link EntitySpec}'s checks)
     *
     * <p>Run it before the batch writes anything: {@code ALTER TABLE} takes an exclusive lock, which
     * waits for the other writers of the table to commit.
     */
    public static EntitySpec add(Connection c, EntitySpec spec, List<NewColumn> columns) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            p.setString(1, "dimstream.entity_columns:" + spec.name());
            p.execute();
        }
        List<NewColumn> sorted = new ArrayList<>(columns);
        // catalog order is (added_at, name) and one transaction's rows may share added_at: add in name order
        sorted.sort(Comparator.comparing(NewColumn::column));
        EntitySpec probe = spec;
        for (NewColumn n : sorted) {
            if (!probe.columns().containsKey(n.column())) {
                probe = probe.withEvolvedColumn(n.column(), n.type(), n.tracked()); // a name no column may take: refused before any write
            }
        }
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO dimstream.entity_columns "
                + "(entity, column_name, sql_type, role, first_source) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            for (NewColumn n : sorted) {
                if (spec.columns().containsKey(n.column())) {
                    continue;
                }
                ins.setString(1, spec.name());
                ins.setString(2, n.column());
                ins.setString(3, n.type().sqlName());
                ins.setString(4, n.tracked() ? "tracked" : "type1");
                ins.setString(5, n.firstSource());
                if (ins.executeUpdate() == 1) {
                    LOG.info("entity {}: the source sends a new field '{}' (first at {}): adding it as a {} column of type {}",
                            spec.name(), n.column(), n.firstSource(), n.tracked() ? "tracked" : "type-1", n.type().sqlName());
                }
            }
        }
        EntitySpec merged = merge(spec, list(c, spec.name()));
        if (merged.columns().size() == spec.columns().size()) {
            return spec;
        }
        try (Statement s = c.createStatement()) {
            for (String col : merged.columns().keySet()) {
                if (spec.columns().containsKey(col)) {
                    continue;
                }
                String type = merged.type(col).sqlName();
                // IF NOT EXISTS: another instance's transaction may have added it (and its catalog row) before ours
                s.execute("ALTER TABLE " + Sql.table(merged.table()) + " ADD COLUMN IF NOT EXISTS " + Sql.ident(col) + " " + type);
                s.execute("ALTER TABLE " + Sql.table(merged.memoryTable()) + " ADD COLUMN IF NOT EXISTS " + Sql.ident(col) + " " + type);
            }
        }
        if (EntityTables.tableExists(c, merged.currentView())) {
            // only where the entity's view exists: a replay's shadow table gets its own at swap time
            try (Statement s = c.createStatement()) {
                s.execute(EntityTables.viewAndFunctionSql(merged).split(";\n")[0]);
            }
        }
        return merged;
    }
}
