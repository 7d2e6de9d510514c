package io.dimstream.db.schema;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Creates an entity's tables when missing and validates them when present.
 *
 * <p>Per entity {@code T}:
 * <ul>
 *   <li>{@code T}: the SCD2 table. Key, tracked and type-1 columns, then the system columns.
 *       PRIMARY KEY (key, valid_from); a partial unique index allowing one open row
 *       ({@code valid_to IS NULL}) per key, which implies one current row; CHECK valid_to &gt;
 *       valid_from; {@code is_current} is a generated column so it cannot disagree with
 *       {@code valid_to}/{@code is_deleted}; with {@code surrogate-key-index: true}, a unique
 *       index on {@code surrogate_key} (applies when the table is created: an existing table's
 *       indexes are left as they are).
 *       Overlapping ranges are not prevented by an exclusion constraint (see README: it costs
 *       apply throughput) but reported by the integrity check.</li>
 *   <li>{@code T_events}: the per-key event memory (one row per key and event time, the winning
 *       arrival), which exact late placement needs; pruned beyond the lateness horizon.</li>
 *   <li>{@code T_current}: a view of the current rows; {@code T_as_of(timestamptz)}: the table as
 *       of an instant, for BI tools and dbt models.</li>
 * </ul>
 */
public final class EntityTables {

    private EntityTables() {
    }

    /** Creates what is missing, validates what exists, registers the entity. */
    public static void ensure(DataSource ds, EntitySpec e) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(hashtext('dimstream.ddl'))");
                String schema = Sql.schemaOf(e.table());
                if (schema != null) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + Sql.ident(schema));
                }
            }
            if (exists(c, e.table())) {
                validate(c, e.table(), expectedTableColumns(e));
            } else {
                exec(c, createTableSql(e));
            }
            if (exists(c, e.memoryTable())) {
                validate(c, e.memoryTable(), expectedMemoryColumns(e));
            } else {
                exec(c, createMemorySql(e));
            }
            exec(c, viewAndFunctionSql(e));
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO dimstream.entities (name, table_name, key_columns, tracked, type1) VALUES (?, ?, ?, ?, ?) "
                            + "ON CONFLICT (name) DO UPDATE SET table_name = excluded.table_name, key_columns = excluded.key_columns, "
                            + "tracked = excluded.tracked, type1 = excluded.type1")) {
                p.setString(1, e.name());
                p.setString(2, e.table());
                p.setArray(3, c.createArrayOf("text", e.key().toArray()));
                p.setArray(4, c.createArrayOf("text", e.tracked().toArray()));
                p.setArray(5, c.createArrayOf("text", e.type1().toArray()));
                p.executeUpdate();
            }
            c.commit();
        }
    }

    /**
     * Creates the entity table and its event memory under {@code e.table()} when missing, without
     * the view and function and without registering the entity: a replay's shadow table, which
     * {@link #recreateViewAndFunction} later points the view and function at once it is swapped in.
     * Runs in the caller's transaction.
     */
    public static void createUnregistered(Connection c, EntitySpec e) throws SQLException {
        if (!exists(c, e.table())) {
            exec(c, createTableSql(e));
        }
        if (!exists(c, e.memoryTable())) {
            exec(c, createMemorySql(e));
        }
    }

    /**
     * Points the view {@code T_current} (CREATE OR REPLACE: its own OID stays, so views built on it
     * keep working) and the function {@code T_as_of} (dropped and created: its row type follows the
     * table's OID) at the table now named {@code e.table()}: both follow a table's OID, not its
     * name, so after a rename they would go on showing the renamed table. Runs in the caller's
     * transaction.
     */
    public static void recreateViewAndFunction(Connection c, EntitySpec e) throws SQLException {
        exec(c, "DROP FUNCTION IF EXISTS " + Sql.table(e.asOfFunction()) + "(timestamptz);\n"
                + viewAndFunctionSql(e));
    }

    /** Whether a table (optionally schema-qualified) exists. */
    public static boolean tableExists(Connection c, String table) throws SQLException {
        return exists(c, table);
    }

    static Map<String, String> expectedTableColumns(EntitySpec e) {
        SystemColumns sc = e.system();
        Map<String, String> m = new LinkedHashMap<>();
        for (String col : e.dataColumns()) {
            m.put(col, e.sqlType(col));
        }
        m.put(sc.surrogateKey(), "bigint");
        m.put(sc.validFrom(), "timestamp with time zone");
        m.put(sc.validTo(), "timestamp with time zone");
        m.put(sc.isCurrent(), "boolean");
        m.put(sc.isDeleted(), "boolean");
        m.put(sc.recordHash(), "bytea");
        m.put(sc.sourceTopic(), "text");
        m.put(sc.sourcePartition(), "integer");
        m.put(sc.sourceOffset(), "bigint");
        m.put(sc.loadedAt(), "timestamp with time zone");
        return m;
    }

    static Map<String, String> expectedMemoryColumns(EntitySpec e) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String col : e.dataColumns()) {
            m.put(col, e.type(col).sqlName());
        }
        m.put("event_time", "timestamp with time zone");
        m.put("seq", "bigint");
        m.put("is_deleted", "boolean");
        m.put("record_hash", "bytea");
        m.put("source_topic", "text");
        m.put("source_partition", "integer");
        m.put("source_offset", "bigint");
        m.put("surrogate_key", "bigint");
        m.put("pruned_to", "timestamp with time zone");
        return m;
    }

    static String createTableSql(EntitySpec e) {
        SystemColumns sc = e.system();
        String t = Sql.table(e.table());
        String bare = Sql.nameOf(e.table());
        List<String> cols = new ArrayList<>();
        for (String k : e.key()) {
            cols.add(Sql.ident(k) + " " + e.sqlType(k) + " NOT NULL");
        }
        for (String a : e.attributes()) {
            cols.add(Sql.ident(a) + " " + e.sqlType(a));
        }
        cols.add(Sql.ident(sc.surrogateKey()) + " bigint NOT NULL");
        cols.add(Sql.ident(sc.validFrom()) + " timestamptz NOT NULL");
        cols.add(Sql.ident(sc.validTo()) + " timestamptz");
        cols.add(Sql.ident(sc.isCurrent()) + " boolean GENERATED ALWAYS AS (" + Sql.ident(sc.validTo()) + " IS NULL AND NOT "
                + Sql.ident(sc.isDeleted()) + ") STORED");
        cols.add(Sql.ident(sc.isDeleted()) + " boolean NOT NULL");
        cols.add(Sql.ident(sc.recordHash()) + " bytea NOT NULL");
        cols.add(Sql.ident(sc.sourceTopic()) + " text");
        cols.add(Sql.ident(sc.sourcePartition()) + " integer");
        cols.add(Sql.ident(sc.sourceOffset()) + " bigint");
        cols.add(Sql.ident(sc.loadedAt()) + " timestamptz NOT NULL DEFAULT now()");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_pkey") + " PRIMARY KEY (" + Sql.list(e.key()) + ", " + Sql.ident(sc.validFrom()) + ")");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_valid_range") + " CHECK (" + Sql.ident(sc.validTo()) + " IS NULL OR "
                + Sql.ident(sc.validTo()) + " > " + Sql.ident(sc.validFrom()) + ")");
        return "CREATE TABLE " + t + " (\n  " + String.join(",\n  ", cols) + "\n);\n"
                + "CREATE UNIQUE INDEX " + Sql.ident(bare + "_one_open") + " ON " + t + " (" + Sql.list(e.key()) + ") WHERE "
                + Sql.ident(sc.validTo()) + " IS NULL;\n"
                + (e.surrogateKeyIndex()
                        ? "CREATE UNIQUE INDEX " + Sql.ident(bare + "_surrogate_key") + " ON " + t + " (" + Sql.ident(sc.surrogateKey()) + ");\n"
                        : "")
                + "COMMENT ON TABLE " + t + " IS " + Sql.literal("SCD2 history of entity " + e.name() + ", maintained by dimstream") + ";\n";
    }

    /**
     * The event memory's columns have the plain types (text, numeric), modifiers left out: every
     * value in it was already checked, rounded or cut by its modifier, and a later change of a
     * modifier in the config then needs no change of dimstream's own table.
     */
    static String createMemorySql(EntitySpec e) {
        String m = Sql.table(e.memoryTable());
        String bare = Sql.nameOf(e.memoryTable());
        List<String> cols = new ArrayList<>();
        for (String k : e.key()) {
            cols.add(Sql.ident(k) + " " + e.type(k).sqlName() + " NOT NULL");
        }
        cols.add("event_time timestamptz NOT NULL");
        cols.add("seq bigint NOT NULL");
        cols.add("is_deleted boolean NOT NULL");
        cols.add("record_hash bytea");
        for (String a : e.attributes()) {
            cols.add(Sql.ident(a) + " " + e.type(a).sqlName());
        }
        cols.add("source_topic text");
        cols.add("source_partition integer");
        cols.add("source_offset bigint");
        cols.add("surrogate_key bigint NOT NULL");
        cols.add("pruned_to timestamptz");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_pkey") + " PRIMARY KEY (" + Sql.list(e.key()) + ", event_time)");
        return "CREATE TABLE " + m + " (\n  " + String.join(",\n  ", cols) + "\n);\n"
                + "COMMENT ON TABLE " + m + " IS " + Sql.literal("event memory of entity " + e.name()
                + " (dimstream): one row per key and event time, for exact late placement") + ";\n";
    }

    static String viewAndFunctionSql(EntitySpec e) {
        SystemColumns sc = e.system();
        String t = Sql.table(e.table());
        String vf = Sql.ident(sc.validFrom());
        String vt = Sql.ident(sc.validTo());
        // $1, not the parameter's name: in a SQL function a column of the same name (an entity
        // column called as_of) would take precedence over it
        return "CREATE OR REPLACE VIEW " + Sql.table(e.currentView()) + " AS SELECT * FROM " + t + " WHERE " + Sql.ident(sc.isCurrent()) + ";\n"
                + "CREATE OR REPLACE FUNCTION " + Sql.table(e.asOfFunction()) + "(as_of timestamptz) RETURNS SETOF " + t
                + " LANGUAGE sql STABLE AS $fn$ SELECT * FROM " + t + " WHERE " + vf + " <= $1 AND (" + vt + " IS NULL OR "
                + vt + " > $1) AND NOT " + Sql.ident(sc.isDeleted()) + " $fn$;\n";
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static void validate(Connection c, String table, Map<String, String> expected) throws SQLException {
        Map<String, String> actual = new LinkedHashMap<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                        + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    actual.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> x : expected.entrySet()) {
            String have = actual.get(x.getKey());
            if (have == null) {
                problems.add("column " + x.getKey() + " is missing (expected " + x.getValue() + ")");
            } else if (!sameType(have, x.getValue())) {
                problems.add("column " + x.getKey() + " has type " + have + ", expected " + x.getValue());
            }
        }
        if (!problems.isEmpty()) {
            throw new SchemaMismatchException("table " + table + " does not match the entity config: " + String.join("; ", problems));
        }
    }

    /**
     * Whether a column's type ({@code format_type}, modifiers included) is the declared one. A
     * {@code varchar} without a length is {@code text} by another name; {@code varchar(5)} or
     * {@code numeric(10,2)} is not {@code text} or {@code numeric}: PostgreSQL would refuse or
     * round values the declared type lets through.
     */
    private static boolean sameType(String have, String declared) {
        return have.equals(declared) || (declared.equals(ColumnType.TEXT.sqlName()) && have.equals("character varying"));
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** An existing table that does not have the columns the config says it must. */
    public static final class SchemaMismatchException extends IllegalStateException {
        public SchemaMismatchException(String message) {
            super(message);
        }
    }
}
