package io.dimstream.db.schema;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
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
import java.util.Optional;
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

    /** Where a catalog row came from. */
    public enum Origin {
        /** A column added while running: the config does not declare it. */
        EVOLUTION("evolution"),
        /** A column the config declares, whose type was widened while running. */
        CONFIG("config");

        private final String sqlName;

        Origin(String sqlName) {
            this.sqlName = sqlName;
        }

        public String sqlName() {
            return sqlName;
        }

        static Origin of(String sqlName) {
            for (Origin o : values()) {
                if (o.sqlName.equals(sqlName)) {
                    return o;
                }
            }
            throw new IllegalStateException("dimstream.entity_columns: unknown origin " + sqlName);
        }
    }

    /**
     * A row of the catalog.
     *
     * @param def         the column's type now (the widened one for a widened column)
     * @param role        {@code key}, {@code tracked} or {@code type1}
     * @param addedAt     when the row was made: the column added, or its first widening
     * @param firstSource the change that first carried the column (or first needed its widening)
     * @param widenedFrom the type before the last widening, empty when never widened
     * @param widenedAt   when the last widening was applied
     */
    public record Column(String entity, String column, TypeWidening.ColumnDef def, String role, Instant addedAt, String firstSource,
                         Origin origin, Optional<String> widenedFrom, Optional<Instant> widenedAt) {

        /** A column added while running, never widened. */
        public Column(String entity, String column, ColumnType type, boolean tracked, Instant addedAt, String firstSource) {
            this(entity, column, TypeWidening.ColumnDef.of(type), tracked ? "tracked" : "type1", addedAt, firstSource, Origin.EVOLUTION,
                    Optional.empty(), Optional.empty());
        }

        public ColumnType type() {
            return def.type();
        }

        public boolean tracked() {
            return "tracked".equals(role);
        }
    }

    /**
     * A widening to apply: the column, the type the change record asks for, and that change
     * ({@code topic-partition@offset}).
     */
    public record Widening(String column, TypeWidening.ColumnDef to, String firstSource) {
    }

    /**
     * A column type change that is no safe widening ({@link TypeWidening#isSafe}): the source's own
     * schema says the column's type changed in a way dimstream does not apply by itself. Thrown by
     * {@link #widen} before any DDL; the sink's partition stops on it (retried with backoff, reported
     * failing, then stuck), so no event of the partition lands out of order while someone decides.
     * Thrown by {@link #catchUp} too, also when views of a user's use a column it must widen.
     */
    public static final class UnsafeTypeChange extends RuntimeException {

        public UnsafeTypeChange(String message) {
            super(message);
        }
    }

    /** A column to add: its inferred type, its role, and the change that first carried it ({@code topic-partition@offset}). */
    public record NewColumn(String column, ColumnType type, boolean tracked, String firstSource) {
    }

    /**
     * Whether the database has the catalog ({@code dimstream.entity_columns}): false where dimstream
     * has never run (its migrations make it), so no column was added there while running.
     */
    public static boolean catalogExists(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT to_regclass('dimstream.entity_columns') IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** The entity's evolved columns in the order they were added (added_at, then name): the order they enter {@code record_hash}. */
    public static List<Column> list(Connection c, String entity) throws SQLException {
        List<Column> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT column_name, sql_type, role, added_at, first_source, origin, "
                + "widened_from, widened_at FROM dimstream.entity_columns WHERE entity = ? ORDER BY added_at, column_name")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String type = rs.getString(2);
                    TypeWidening.ColumnDef def;
                    try {
                        def = TypeWidening.ColumnDef.parse(type);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalStateException("dimstream.entity_columns: column of entity '" + entity + "' has the unknown type "
                                + type, e);
                    }
                    java.sql.Timestamp widenedAt = rs.getTimestamp(8);
                    out.add(new Column(entity, rs.getString(1), def, rs.getString(3), rs.getTimestamp(4).toInstant(), rs.getString(5),
                            Origin.of(rs.getString(6)), Optional.ofNullable(rs.getString(7)),
                            Optional.ofNullable(widenedAt).map(java.sql.Timestamp::toInstant)));
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
     * added while running that the config declares since keeps its place among the columns added
     * while running, in catalog order, with the config's type and role: its place in
     * {@code record_hash} is where it was before the config named it, so declaring it makes no
     * version (docs/semantics.md). A column the config declares in its key stays the config's.
     */
    public static EntitySpec merge(EntitySpec spec, List<Column> catalog) {
        EntitySpec out = spec;
        for (Column col : catalog) {
            if (!out.columns().containsKey(col.column())) {
                if (col.origin() == Origin.CONFIG) {
                    continue; // widened once, no longer in the config: the config's word on what it names
                }
                out = out.withEvolvedColumn(col.column(), col.type(), col.tracked());
            } else if (col.origin() == Origin.EVOLUTION && !out.key().contains(col.column())) {
                out = out.withColumnAsEvolved(col.column());
            }
            TypeWidening.ColumnDef now = TypeWidening.ColumnDef.of(out, col.column());
            boolean configDeclares = spec.columns().containsKey(col.column()) && !spec.evolved().contains(col.column());
            if (!now.equals(col.def()) && (!configDeclares || TypeWidening.isSafe(now, col.def()))) {
                // the table's type since the widening, over a config still declaring the type before it; a
                // config declaring another type since (its table altered by hand) has the last word
                out = out.withColumnType(col.column(), col.def());
            }
        }
        return out;
    }

    /** {@link #merge} with the catalog read from {@code ds}. */
    public static EntitySpec withCatalog(DataSource ds, EntitySpec spec) throws SQLException {
        return merge(spec, list(ds, spec.name()));
    }

    /** {@link #merge} with the catalog read in the caller's transaction. */
    public static EntitySpec withCatalog(Connection c, EntitySpec spec) throws SQLException {
        return merge(spec, list(c, spec.name()));
    }

    /**
     * Brings the entity table and event memory named by {@code spec} (the catalog merged in,
     * {@link #withCatalog}) to its columns, in the caller's transaction: a column they lack is added
     * (nullable, last), a column narrower than the spec's type is widened (a safe widening only; the
     * view {@code T_current} dropped and made again, as {@link #widen} does), the view made again by
     * name when a column was added. The catalog is not written: it holds these columns already. For a
     * table written apart while columns were added or widened: a shadow replay's table, and the live
     * table at its swap.
     *
     * @return what was changed, one line each
     * @throws UnsafeTypeChange before any change of a type, when a column's type is no safe widening of
     *                          the table's, or when views of a user's use a column to widen (naming them)
     */
    public static List<String> catchUp(Connection c, EntitySpec spec) throws SQLException {
        List<String> done = ColumnCatchUp.run(c, spec);
        done.forEach(d -> LOG.info("entity {}: {}", spec.name(), d));
        return done;
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
        lock(c, spec);
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
            EntityDdl.currentView(c, merged);
        }
        return merged;
    }

    /**
     * Widens columns in the caller's transaction: {@code ALTER TABLE ... ALTER COLUMN ... TYPE} on the
     * entity table and its event memory (the view {@code T_current} dropped before and made again
     * after: PostgreSQL refuses to change the type of a column a view uses), and the catalog row
     * (a column the config declares gets one of origin {@code config}). Serialized per entity with
     * {@link #add} by the same advisory lock; a widening another transaction applied first, or one
     * narrower than the column's type now, changes nothing. Returns the spec with the types now.
     *
     * <p>A safe widening keeps every stored value and its canonical text, so no {@code record_hash}
     * changes. {@code int} to {@code bigint} and {@code bigint} to {@code numeric} rewrite the table
     * under an exclusive lock (the other widenings change only the catalog): large tables take a while,
     * once.
     *
     * @throws UnsafeTypeChange before any DDL, when a change asked for is no safe widening, or when
     *                          views of a user's (a dbt model's) read a column to widen (naming them)
     */
    public static EntitySpec widen(Connection c, EntitySpec spec, List<Widening> widenings) throws SQLException {
        lock(c, spec);
        EntitySpec current = merge(spec, list(c, spec.name()));
        List<Widening> todo = new ArrayList<>();
        for (Widening w : widenings) {
            if (!current.columns().containsKey(w.column())) {
                LOG.warn("entity {}: a change at {} asks to widen column '{}', which the entity does not have; ignored", spec.name(),
                        w.firstSource(), w.column());
                continue;
            }
            TypeWidening.ColumnDef now = TypeWidening.ColumnDef.of(current, w.column());
            if (TypeWidening.isSafe(w.to(), now) || todo.stream().anyMatch(t -> t.column().equals(w.column()) && TypeWidening.isSafe(w.to(), t.to()))) {
                continue; // as wide already
            }
            if (!TypeWidening.isSafe(now, w.to())) {
                Optional<TypeWidening.ColumnDef> byHand = tableType(c, current.table(), w.column());
                if (byHand.isPresent() && !byHand.get().equals(now) && TypeWidening.isSafe(w.to(), byHand.get())) {
                    // someone changed the column by hand to take the new type (as the message below says
                    // to): recorded, the event memory follows, and the partition goes on
                    current = retypedByHand(c, current, w, now, byHand.get());
                    continue;
                }
                String t = Sql.table(current.table());
                throw new UnsafeTypeChange("entity " + spec.name() + ": column " + w.column() + " is " + now.sql()
                        + ", and the change at " + w.firstSource() + " says the source now types it " + w.to().sql()
                        + ", which is no safe widening (dimstream widens smallint to integer to bigint to numeric, varchar(n) to longer "
                        + "or text, numeric(p,s) to more digits before the point). The partition stops here; to go on, change the "
                        + "column yourself (ALTER TABLE " + t + " ALTER COLUMN " + Sql.ident(w.column()) + " TYPE " + w.to().sql()
                        + " USING ..., and the same on " + Sql.table(current.memoryTable()) + ", with the view " + Sql.table(current.currentView())
                        + " dropped first), declare '" + w.column() + ": " + w.to().sql() + "' in the config, and restart dimstream");
            }
            todo.removeIf(t -> t.column().equals(w.column()));
            todo.add(w);
        }
        if (todo.isEmpty()) {
            return current;
        }
        List<String> users = ColumnCatchUp.usersViews(c, current, todo.stream().map(Widening::column).toList());
        if (!users.isEmpty()) {
            throw new UnsafeTypeChange("entity " + spec.name() + ": the source sends values column " + todo.get(0).column() + " refuses (first at "
                    + todo.get(0).firstSource() + "), and widening " + todo.stream().map(w -> w.column() + " to " + w.to().sql()).toList()
                    + " is refused by PostgreSQL while views use the columns: " + String.join(", ", users) + ". The partition stops here; "
                    + "drop those views (it goes on by itself once they are gone) and create them again after the widening");
        }
        boolean view = EntityTables.tableExists(c, current.currentView());
        EntitySpec next = current;
        try (Statement s = c.createStatement()) {
            if (view) {
                s.execute("DROP VIEW " + Sql.table(current.currentView()));
            }
            for (Widening w : todo) {
                TypeWidening.ColumnDef from = TypeWidening.ColumnDef.of(current, w.column());
                s.execute("ALTER TABLE " + Sql.table(current.table()) + " ALTER COLUMN " + Sql.ident(w.column()) + " TYPE " + w.to().sql());
                if (from.type() != w.to().type()) {
                    // the event memory holds the plain types (no varchar(n), no numeric(p,s))
                    s.execute("ALTER TABLE " + Sql.table(current.memoryTable()) + " ALTER COLUMN " + Sql.ident(w.column()) + " TYPE "
                            + w.to().type().sqlName());
                }
                record(c, current, w.column(), w.to(), w.firstSource(), from);
                LOG.info("entity {}: the source sends values column '{}' ({}) refuses (first at {}): widened it to {}", spec.name(),
                        w.column(), from.sql(), w.firstSource(), w.to().sql());
                next = next.withColumnType(w.column(), w.to());
            }
            if (view) {
                EntityDdl.currentView(c, next);
            }
        }
        return next;
    }

    /** The column's type in the table now ({@link TableCheck#columnTypes}); empty when unknown to dimstream. */
    private static Optional<TypeWidening.ColumnDef> tableType(Connection c, String table, String column) throws SQLException {
        String type = TableCheck.columnTypes(c, table).get(column);
        if (type == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(TypeWidening.ColumnDef.parse(type));
        } catch (IllegalArgumentException unknown) {
            return Optional.empty();
        }
    }

    /**
     * A column whose type someone changed by hand after an {@link UnsafeTypeChange}: the catalog
     * records it (so the spec follows it until the config declares it), and the event memory's column
     * takes the new plain type, its values cast as the table's were.
     */
    private static EntitySpec retypedByHand(Connection c, EntitySpec current, Widening w, TypeWidening.ColumnDef before,
                                            TypeWidening.ColumnDef table) throws SQLException {
        Optional<TypeWidening.ColumnDef> memory = tableType(c, current.memoryTable(), w.column());
        if (memory.isEmpty() || memory.get().type() != table.type()) {
            String base = table.type().sqlName();
            try (Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + Sql.table(current.memoryTable()) + " ALTER COLUMN " + Sql.ident(w.column()) + " TYPE " + base
                        + " USING " + Sql.ident(w.column()) + "::" + base);
            }
        }
        record(c, current, w.column(), table, w.firstSource(), before);
        EntitySpec next = current.withColumnType(w.column(), table);
        if (!EntityTables.tableExists(c, next.currentView())) {
            // dropped for the change, as the message says: made again with the column's type now
            EntityDdl.currentView(c, next);
        }
        LOG.info("entity {}: column '{}' was changed by hand from {} to {}; going on with it (declare it in the config)",
                current.name(), w.column(), before.sql(), table.sql());
        return next;
    }

    private static void record(Connection c, EntitySpec current, String column, TypeWidening.ColumnDef to, String firstSource,
                               TypeWidening.ColumnDef from) throws SQLException {
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO dimstream.entity_columns (entity, column_name, sql_type, role, "
                + "first_source, origin, widened_from, widened_at) VALUES (?, ?, ?, ?, ?, 'config', ?, clock_timestamp()) "
                + "ON CONFLICT (entity, column_name) DO UPDATE SET sql_type = EXCLUDED.sql_type, "
                + "widened_from = EXCLUDED.widened_from, widened_at = EXCLUDED.widened_at")) {
            ins.setString(1, current.name());
            ins.setString(2, column);
            ins.setString(3, to.sql());
            ins.setString(4, current.key().contains(column) ? "key" : current.tracked().contains(column) ? "tracked" : "type1");
            ins.setString(5, firstSource);
            ins.setString(6, from.sql());
            ins.executeUpdate();
        }
    }

    private static void lock(Connection c, EntitySpec spec) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            p.setString(1, "dimstream.entity_columns:" + spec.name());
            p.execute();
        }
    }
}
