package io.dimstream.db.schema;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *       indexes are left as they are); with {@code table-partitions: N}, hash-partitioned by the key
 *       into {@code T_p0} .. {@code T_p<N-1>} (when the table is created: an existing table is
 *       written as it is, a differing partitioning is warned about).
 *       Overlapping ranges are not prevented by an exclusion constraint (see docs/semantics.md and docs/benchmarks.md: it costs
 *       apply throughput) but reported by the integrity check.</li>
 *   <li>{@code T_events}: the per-key event memory (one row per key and event time, the winning
 *       arrival), which exact late placement needs; pruned beyond the lateness horizon; partitioned as
 *       the table is ({@code T_events_p0} ..).</li>
 *   <li>{@code T_current}: a view of the current rows; {@code T_as_of(timestamptz)}: the table as
 *       of an instant, for BI tools and dbt models.</li>
 * </ul>
 *
 * <p>An existing table (made by hand, by an older dimstream, or altered since) is validated fully
 * before anything is written, since each difference would otherwise make PostgreSQL refuse a
 * batch later (and the sink retry it): every column the config names exists with exactly the
 * declared type, modifiers included; the columns dimstream writes NULL into are nullable; no other
 * column is NOT NULL without a default; {@code is_current} is generated; the invariants above exist
 * (a unique index on (key, valid_from), the one-open-version index, the valid-range check; for
 * the memory, a unique index on (key, event_time), which its upsert needs). Each problem is named
 * with the statement that fixes it. CHECK and foreign-key constraints and triggers dimstream cannot
 * know are logged as warnings: a row they refuse stops the sink.
 */
public final class EntityTables {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EntityTables.class);

    private EntityTables() {
    }

    /**
     * Creates what is missing, validates what exists, registers the entity.
     *
     * @return warnings about existing tables (also logged at WARN): constraints and triggers
     *         dimstream cannot know
     * @throws SchemaMismatchException when an existing table differs from the config, naming each
     *         difference and its fix
     */
    public static List<String> ensure(DataSource ds, EntitySpec e) throws SQLException {
        List<String> warnings = new ArrayList<>();
        Transactions.run(ds, c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(hashtext('dimstream.ddl'))");
                String schema = Sql.schemaOf(e.table());
                if (schema != null) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + Sql.ident(schema));
                }
            }
            if (exists(c, e.table())) {
                addEventSeq(c, e);
                warnings.addAll(validate(c, e.table(), tableRules(e)));
                partitioningWarning(c, e, e.table()).ifPresent(warnings::add);
            } else {
                exec(c, createTableSql(e));
            }
            if (exists(c, e.memoryTable())) {
                warnings.addAll(validate(c, e.memoryTable(), memoryRules(e)));
                partitioningWarning(c, e, e.memoryTable()).ifPresent(warnings::add);
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
        });
        warnings.forEach(w -> LOG.warn("entity {}: {}", e.name(), w));
        return warnings;
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

    /**
     * A table written before versions recorded their start event's arrival order gets the column
     * (nullable, no default: a change of the catalog only, no rewrite; a partitioned table's
     * partitions get it with it). Its rows keep NULL there: their events are all in the memory.
     */
    private static void addEventSeq(Connection c, EntitySpec e) throws SQLException {
        if (columns(c, e.table()).containsKey(e.system().eventSeq())) {
            return;
        }
        exec(c, "ALTER TABLE " + Sql.table(e.table()) + " ADD COLUMN " + Sql.ident(e.system().eventSeq()) + " bigint");
        LOG.info("entity {}: added column {} to {}", e.name(), e.system().eventSeq(), e.table());
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
        m.put(sc.eventSeq(), "bigint");
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
        cols.add(Sql.ident(sc.eventSeq()) + " bigint");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_pkey") + " PRIMARY KEY (" + Sql.list(e.key()) + ", " + Sql.ident(sc.validFrom()) + ")");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_valid_range") + " CHECK (" + Sql.ident(sc.validTo()) + " IS NULL OR "
                + Sql.ident(sc.validTo()) + " > " + Sql.ident(sc.validFrom()) + ")");
        return "CREATE TABLE " + t + " (\n  " + String.join(",\n  ", cols) + "\n)" + partitionsSql(e, e.table())
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
        return "CREATE TABLE " + m + " (\n  " + String.join(",\n  ", cols) + "\n)" + partitionsSql(e, e.memoryTable())
                + "COMMENT ON TABLE " + m + " IS " + Sql.literal("event memory of entity " + e.name()
                + " (dimstream): one row per key and event time, for exact late placement") + ";\n";
    }

    /**
     * What follows a {@code CREATE TABLE (...)} of the entity table or its memory: {@code ;} for a
     * plain table; with {@code table-partitions: N}, {@code PARTITION BY HASH (key)} and the N
     * partitions {@code <table>_p0} .. {@code <table>_p<N-1>}. Indexes created afterwards on the
     * parent are created on every partition by PostgreSQL; the primary key and the one-open-version
     * index hold per key, and a key's rows are all in one partition, so they hold as on a plain table.
     */
    static String partitionsSql(EntitySpec e, String table) {
        if (!e.partitioned()) {
            return ";\n";
        }
        StringBuilder sql = new StringBuilder(" PARTITION BY HASH (" + Sql.list(e.key()) + ");\n");
        for (int i = 0; i < e.tablePartitions(); i++) {
            sql.append("CREATE TABLE ").append(Sql.table(EntitySpec.partitionName(table, i))).append(" PARTITION OF ")
                    .append(Sql.table(table)).append(" FOR VALUES WITH (MODULUS ").append(e.tablePartitions()).append(", REMAINDER ")
                    .append(i).append(");\n");
        }
        return sql.toString();
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

    /**
     * What an existing table must be like.
     *
     * @param columns       every column the config names, with its declared type
     * @param nullable      columns dimstream writes NULL into
     * @param written       columns dimstream inserts (the others must fill themselves or may be NULL)
     * @param generated     a column that must be generated, or null
     * @param generatedExpr its expression
     * @param uniqueKey     the columns of the unique index the table needs (any order)
     * @param openKey       the columns of the one-open-version index, or null
     * @param openColumn    the column of its predicate ({@code valid_to IS NULL}), or null
     * @param rangeCheck    {@code (valid_from, valid_to)} of the valid-range check, or null
     * @param defaults      columns dimstream relies on the default of, with the default to set
     * @param declarable    columns whose type the config declares (a mismatch may be fixed there)
     * @param view          the view dimstream keeps on the table (it must go before a column's type changes), or null
     */
    record Rules(Map<String, String> columns, Set<String> nullable, Set<String> written, String generated, String generatedExpr,
                 List<String> uniqueKey, List<String> openKey, String openColumn, List<String> rangeCheck,
                 Map<String, String> defaults, Set<String> declarable, String view) {
    }

    static Rules tableRules(EntitySpec e) {
        SystemColumns sc = e.system();
        Set<String> nullable = new LinkedHashSet<>(e.attributes());
        nullable.addAll(List.of(sc.validTo(), sc.sourceTopic(), sc.sourcePartition(), sc.sourceOffset()));
        Set<String> written = new LinkedHashSet<>(e.dataColumns());
        written.addAll(List.of(sc.surrogateKey(), sc.validFrom(), sc.validTo(), sc.isDeleted(), sc.recordHash(), sc.sourceTopic(),
                sc.sourcePartition(), sc.sourceOffset()));
        List<String> pk = new ArrayList<>(e.key());
        pk.add(sc.validFrom());
        return new Rules(expectedTableColumns(e), nullable, written, sc.isCurrent(),
                Sql.ident(sc.validTo()) + " IS NULL AND NOT " + Sql.ident(sc.isDeleted()), pk, e.key(), sc.validTo(),
                List.of(sc.validFrom(), sc.validTo()), Map.of(sc.loadedAt(), "now()"), new LinkedHashSet<>(e.dataColumns()), e.currentView());
    }

    static Rules memoryRules(EntitySpec e) {
        Set<String> nullable = new LinkedHashSet<>(e.attributes());
        nullable.addAll(List.of("record_hash", "source_topic", "source_partition", "source_offset", "pruned_to"));
        Set<String> written = new LinkedHashSet<>(expectedMemoryColumns(e).keySet());
        written.remove("pruned_to");
        List<String> pk = new ArrayList<>(e.key());
        pk.add("event_time");
        return new Rules(expectedMemoryColumns(e), nullable, written, null, null, pk, null, null, null, Map.of(), Set.of(), null);
    }

    /** @return the warnings; the problems are thrown */
    private static List<String> validate(Connection c, String table, Rules rules) throws SQLException {
        String t = Sql.table(table);
        String bare = Sql.nameOf(table);
        List<String> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, Column> actual = columns(c, table);
        for (Map.Entry<String, String> x : rules.columns().entrySet()) {
            String col = x.getKey();
            String want = x.getValue();
            Column have = actual.get(col);
            if (have == null) {
                problems.add("column " + col + " is missing (expected " + want + "): ALTER TABLE " + t + " ADD COLUMN " + Sql.ident(col)
                        + " " + want);
                continue;
            }
            if (!sameType(have.type(), want)) {
                String declare = rules.declarable().contains(col) && declarable(have.type())
                        ? "declare " + col + ": " + configName(have.type()) + " under columns:, or " : "";
                // the view depends on every column: it goes first, and dimstream creates it again at start
                String dropView = rules.view() == null ? "" : "DROP VIEW " + Sql.table(rules.view()) + "; ";
                problems.add("column " + col + " has type " + have.type() + ", expected " + want + " (" + declare + dropView
                        + "ALTER TABLE " + t + " ALTER COLUMN " + Sql.ident(col) + " TYPE " + want + ")");
            }
            if (have.notNull() && rules.nullable().contains(col)) {
                problems.add("column " + col + " is NOT NULL, but dimstream writes NULL into it: ALTER TABLE " + t + " ALTER COLUMN "
                        + Sql.ident(col) + " DROP NOT NULL");
            }
            if (rules.written().contains(col) && have.generated()) {
                problems.add("column " + col + " is generated, but dimstream writes it: ALTER TABLE " + t + " ALTER COLUMN "
                        + Sql.ident(col) + " DROP EXPRESSION");
            }
            if (rules.written().contains(col) && have.identityAlways()) {
                problems.add("column " + col + " is GENERATED ALWAYS AS IDENTITY, but dimstream writes it: ALTER TABLE " + t
                        + " ALTER COLUMN " + Sql.ident(col) + " DROP IDENTITY");
            }
        }
        if (rules.generated() != null && actual.containsKey(rules.generated()) && !actual.get(rules.generated()).generated()) {
            String g = rules.generated();
            problems.add("column " + g + " is not generated, so it would stay NULL (dimstream never writes it): ALTER TABLE " + t
                    + " DROP COLUMN " + Sql.ident(g) + " CASCADE; ALTER TABLE " + t + " ADD COLUMN " + Sql.ident(g)
                    + " boolean GENERATED ALWAYS AS (" + rules.generatedExpr() + ") STORED");
        }
        for (Column have : actual.values()) {
            if (!rules.written().contains(have.name()) && have.notNull() && !have.hasDefault() && !have.generated() && !have.identity()) {
                String fix = rules.defaults().containsKey(have.name())
                        ? "ALTER TABLE " + t + " ALTER COLUMN " + Sql.ident(have.name()) + " SET DEFAULT " + rules.defaults().get(have.name())
                        : "ALTER TABLE " + t + " ALTER COLUMN " + Sql.ident(have.name()) + " DROP NOT NULL, or give it a DEFAULT";
                problems.add("column " + have.name() + " is NOT NULL without a default, and dimstream does not fill it: " + fix);
            }
        }
        List<Index> indexes = indexes(c, table, rules.openColumn());
        if (rules.columns().keySet().containsAll(rules.uniqueKey())
                && indexes.stream().noneMatch(i -> i.unique() && i.immediate() && i.plain() && !i.partial() && i.sameColumns(rules.uniqueKey()))) {
            problems.add("no unique index on (" + String.join(", ", rules.uniqueKey()) + "): ALTER TABLE " + t + " ADD PRIMARY KEY ("
                    + Sql.list(rules.uniqueKey()) + ")");
        }
        if (rules.openColumn() != null && indexes.stream().noneMatch(i -> i.unique() && i.plain() && i.openPredicate() && i.sameColumns(rules.openKey()))) {
            problems.add("no unique index allowing one open version per key: CREATE UNIQUE INDEX " + Sql.ident(bare + "_one_open") + " ON " + t
                    + " (" + Sql.list(rules.openKey()) + ") WHERE " + Sql.ident(rules.openColumn()) + " IS NULL");
        }
        List<Constraint> constraints = constraints(c, table, rules.rangeCheck());
        if (rules.rangeCheck() != null && constraints.stream().noneMatch(Constraint::isRangeCheck)) {
            String vf = Sql.ident(rules.rangeCheck().get(0));
            String vt = Sql.ident(rules.rangeCheck().get(1));
            problems.add("no check that " + rules.rangeCheck().get(1) + " is after " + rules.rangeCheck().get(0) + ": ALTER TABLE " + t
                    + " ADD CONSTRAINT " + Sql.ident(bare + "_valid_range") + " CHECK (" + vt + " IS NULL OR " + vt + " > " + vf + ")");
        }
        if (!problems.isEmpty()) {
            throw new SchemaMismatchException("table " + table + " does not match the entity config: " + String.join("; ", problems));
        }
        for (Constraint k : constraints) {
            if (!k.isRangeCheck() && !k.kind().equals("p") && !k.kind().equals("u")) {
                warnings.add("table " + table + " has " + k.describe() + ", which dimstream does not know: a version or event it "
                        + "refuses stops the sink");
            }
        }
        for (String trigger : triggers(c, table)) {
            warnings.add("table " + table + " has trigger " + trigger + ", which dimstream does not know: if it refuses or changes "
                    + "a row, the table no longer follows the events");
        }
        return warnings;
    }

    /**
     * How an existing table is partitioned, when it differs from {@code table-partitions}: a warning,
     * not a problem, since the writer's statements work on either (a partitioned table made by hand
     * must still have the unique indexes the rules ask, which PostgreSQL allows only when they
     * contain the partition key).
     */
    static Optional<String> partitioningWarning(Connection c, EntitySpec e, String table) throws SQLException {
        String have;
        try (PreparedStatement p = c.prepareStatement(
                "SELECT pt.partstrat::text, array(SELECT a.attname FROM unnest(pt.partattrs::int2[]) WITH ORDINALITY k(n, o) "
                        + "JOIN pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = k.n ORDER BY k.o), "
                        + "(SELECT count(*) FROM pg_inherits i WHERE i.inhparent = pt.partrelid) "
                        + "FROM pg_partitioned_table pt WHERE pt.partrelid = ?::regclass")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    have = null;
                } else {
                    List<String> cols = List.of((String[]) rs.getArray(2).getArray());
                    boolean byKey = rs.getString(1).equals("h") && cols.equals(e.key());
                    if (byKey && rs.getLong(3) == e.tablePartitions()) {
                        return Optional.empty();
                    }
                    have = "partitioned " + (byKey ? "by hash of the key" : "(strategy " + rs.getString(1) + " on " + cols + ")")
                            + " into " + rs.getLong(3) + " partitions";
                }
            }
        }
        if (have == null && !e.partitioned()) {
            return Optional.empty();
        }
        String want = e.partitioned() ? "table-partitions: " + e.tablePartitions() : "no table-partitions";
        return Optional.of("table " + table + " is " + (have == null ? "not partitioned" : have) + ", but the config says "
                + want + ": it applies when dimstream creates the table, and dimstream writes to this one as it is (a replay with "
                + "--target shadow rebuilds it as the config says)");
    }

    /** One column of an existing table, as the catalog has it. */
    private record Column(String name, String type, boolean notNull, boolean hasDefault, boolean generated, boolean identity,
                          boolean identityAlways) {
    }

    /** The table's column types as {@code format_type} prints them (modifiers included), in column order. */
    static Map<String, String> columnTypes(Connection c, String table) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        columns(c, table).forEach((name, col) -> out.put(name, col.type()));
        return out;
    }

    private static Map<String, Column> columns(Connection c, String table) throws SQLException {
        Map<String, Column> actual = new LinkedHashMap<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef, a.attgenerated <> '', "
                        + "a.attidentity <> '', a.attidentity = 'a' FROM pg_attribute a "
                        + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    actual.put(rs.getString(1), new Column(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getBoolean(4),
                            rs.getBoolean(5), rs.getBoolean(6), rs.getBoolean(7)));
                }
            }
        }
        return actual;
    }

    /** An index of an existing table: its key columns, and whether it is on plain columns, partial, the open-version one. */
    private record Index(List<String> columns, boolean unique, boolean immediate, boolean plain, boolean partial, boolean openPredicate) {
        boolean sameColumns(List<String> wanted) {
            return columns.size() == wanted.size() && new HashSet<>(columns).equals(new HashSet<>(wanted));
        }
    }

    /** Valid indexes only: one left invalid by a failed CREATE INDEX CONCURRENTLY enforces nothing. */
    private static List<Index> indexes(Connection c, String table, String openColumn) throws SQLException {
        List<Index> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT array(SELECT a.attname FROM generate_series(0, i.indnkeyatts - 1) g "
                        + "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[g]), i.indisunique, i.indimmediate, "
                        + "i.indexprs IS NULL AND NOT (0 = ANY (i.indkey[0:i.indnkeyatts - 1])), i.indpred IS NOT NULL, "
                        + "coalesce(pg_get_expr(i.indpred, i.indrelid) = format('(%I IS NULL)', ?::text), false) "
                        + "FROM pg_index i WHERE i.indrelid = ?::regclass AND i.indisvalid")) {
            p.setString(1, openColumn == null ? "" : openColumn);
            p.setString(2, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Index(List.of((String[]) rs.getArray(1).getArray()), rs.getBoolean(2), rs.getBoolean(3), rs.getBoolean(4),
                            rs.getBoolean(5), openColumn != null && rs.getBoolean(6)));
                }
            }
        }
        return out;
    }

    /** A constraint of an existing table: its kind ({@code pg_constraint.contype}), name and definition. */
    private record Constraint(String kind, String name, String definition, boolean isRangeCheck) {
        String describe() {
            String what = switch (kind) {
                case "c" -> "CHECK constraint";
                case "f" -> "foreign key";
                case "x" -> "exclusion constraint";
                case "t" -> "constraint trigger";
                default -> "constraint";
            };
            return what + " " + name + " (" + definition + ")";
        }
    }

    /** @param rangeCheck (valid_from, valid_to): the check dimstream creates is recognised by its definition, whatever its name */
    private static List<Constraint> constraints(Connection c, String table, List<String> rangeCheck) throws SQLException {
        List<Constraint> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT contype::text, conname, pg_get_constraintdef(oid), "
                        + "contype = 'c' AND pg_get_constraintdef(oid) = format('CHECK (((%I IS NULL) OR (%I > %I)))', ?::text, ?::text, ?::text) "
                        + "FROM pg_constraint WHERE conrelid = ?::regclass AND contype <> 'n' ORDER BY conname")) {
            String vf = rangeCheck == null ? "" : rangeCheck.get(0);
            String vt = rangeCheck == null ? "" : rangeCheck.get(1);
            p.setString(1, vt);
            p.setString(2, vt);
            p.setString(3, vf);
            p.setString(4, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Constraint(rs.getString(1), rs.getString(2), rs.getString(3), rangeCheck != null && rs.getBoolean(4)));
                }
            }
        }
        return out;
    }

    private static List<String> triggers(Connection c, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal ORDER BY tgname")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
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

    /** Whether a table's column type can be declared in the config as it is. */
    private static boolean declarable(String formatType) {
        try {
            return ColumnType.modifierFromConfig(formatType).isPresent() || ColumnType.fromConfig(formatType).isPresent();
        } catch (IllegalArgumentException e) {
            return false; // a modifier out of dimstream's range (numeric(5,-2))
        }
    }

    /** {@code character varying(5)} as the config writes it: {@code varchar(5)}. */
    private static String configName(String formatType) {
        String n = formatType.replace("character varying", "varchar").replace("timestamp with time zone", "timestamptz")
                .replace("timestamp without time zone", "timestamp").replace("time without time zone", "time");
        return n.contains(",") ? "\"" + n + "\"" : n;
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
