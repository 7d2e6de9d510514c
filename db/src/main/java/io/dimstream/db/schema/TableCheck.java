package io.dimstream.db.schema;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the catalog says of an existing table (its columns with types and nullability, indexes,
 * constraints, triggers, partitioning) and whether that is what an entity needs: {@link #validate}
 * names each difference with the statement that fixes it ({@link EntityTables.SchemaMismatchException})
 * and returns, as warnings, the constraints and triggers dimstream cannot know.
 */
final class TableCheck {

    private TableCheck() {
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
        if (e.transactionTime()) {
            m.put(sc.knownFrom(), "timestamp with time zone");
            m.put(sc.endKnownFrom(), "timestamp with time zone");
        }
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

    /** Whether a table or view (optionally schema-qualified) exists. */
    static boolean exists(Connection c, String table) throws SQLException {
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
     * @param open          what {@code openColumn} holds on an open version (the index predicate, the
     *                      range check and {@code generatedExpr} follow it), or null
     */
    record Rules(Map<String, String> columns, Set<String> nullable, Set<String> written, String generated, String generatedExpr,
                 List<String> uniqueKey, List<String> openKey, String openColumn, List<String> rangeCheck,
                 Map<String, String> defaults, Set<String> declarable, String view, ValidToCurrent open) {
    }

    static Rules tableRules(EntitySpec e) {
        SystemColumns sc = e.system();
        Set<String> nullable = new LinkedHashSet<>(e.attributes());
        nullable.addAll(List.of(sc.sourceTopic(), sc.sourcePartition(), sc.sourceOffset(), sc.knownFrom(), sc.endKnownFrom()));
        if (e.validToCurrent() == ValidToCurrent.NULL) {
            nullable.add(sc.validTo());
        }
        Set<String> written = new LinkedHashSet<>(e.dataColumns());
        written.addAll(List.of(sc.surrogateKey(), sc.validFrom(), sc.validTo(), sc.isDeleted(), sc.recordHash(), sc.sourceTopic(),
                sc.sourcePartition(), sc.sourceOffset()));
        List<String> pk = new ArrayList<>(e.key());
        pk.add(sc.validFrom());
        return new Rules(expectedTableColumns(e), nullable, written, sc.isCurrent(), EntityDdl.isCurrentExpr(e), pk, e.key(), sc.validTo(),
                List.of(sc.validFrom(), sc.validTo()), Map.of(sc.loadedAt(), "now()"), new LinkedHashSet<>(e.dataColumns()), e.currentView(),
                e.validToCurrent());
    }

    static Rules memoryRules(EntitySpec e) {
        Set<String> nullable = new LinkedHashSet<>(e.attributes());
        nullable.addAll(List.of("record_hash", "source_topic", "source_partition", "source_offset", "pruned_to"));
        Set<String> written = new LinkedHashSet<>(expectedMemoryColumns(e).keySet());
        written.remove("pruned_to");
        List<String> pk = new ArrayList<>(e.key());
        pk.add("event_time");
        return new Rules(expectedMemoryColumns(e), nullable, written, null, null, pk, null, null, null, Map.of(), Set.of(), null, null);
    }

    /**
     * Checks an existing table against {@code rules}.
     *
     * @return the warnings: constraints and triggers dimstream cannot know
     * @throws EntityTables.SchemaMismatchException naming every problem with the statement that fixes it
     */
    static List<String> validate(Connection c, String table, Rules rules) throws SQLException {
        Map<String, Column> actual = columns(c, table);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> x : rules.columns().entrySet()) {
            columnProblems(table, x.getKey(), x.getValue(), actual.get(x.getKey()), rules, problems);
        }
        tableProblems(table, actual, rules, problems);
        List<Constraint> constraints = constraints(c, table, rules);
        invariantProblems(table, indexes(c, table, rules), constraints, rules, problems);
        if (!problems.isEmpty()) {
            throw new EntityTables.SchemaMismatchException("table " + table + " does not match the entity config: "
                    + String.join("; ", problems));
        }
        List<String> warnings = new ArrayList<>();
        for (Constraint k : constraints) {
            if (!k.isRangeCheck() && !k.kind().equals("p") && !k.kind().equals("u")) {
                warnings.add("table " + table + " has " + k.describe() + ", which dimstream does not know: a version or event it "
                        + "refuses stops the sink");
            }
        }
        for (String trigger : triggers(c, table)) {
            if (TransactionTimeDdl.isOwnTrigger(table, trigger)) {
                continue;
            }
            warnings.add("table " + table + " has trigger " + trigger + ", which dimstream does not know: if it refuses or changes "
                    + "a row, the table no longer follows the events");
        }
        return warnings;
    }

    /** The problems of one column the rules name ({@code have}: the table's, null when missing). */
    private static void columnProblems(String table, String col, String want, Column have, Rules rules, List<String> problems) {
        String t = Sql.table(table);
        if (have == null) {
            problems.add("column " + col + " is missing (expected " + want + "): ALTER TABLE " + t + " ADD COLUMN " + Sql.ident(col)
                    + " " + want);
            return;
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

    /** The generated column that is not, and columns dimstream does not fill that are NOT NULL without a default. */
    private static void tableProblems(String table, Map<String, Column> actual, Rules rules, List<String> problems) {
        String t = Sql.table(table);
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
    }

    /** The unique index on (key, valid_from), the one-open-version index and the valid-range check, when missing. */
    private static void invariantProblems(String table, List<Index> indexes, List<Constraint> constraints, Rules rules,
                                          List<String> problems) {
        String t = Sql.table(table);
        String bare = Sql.nameOf(table);
        if (rules.columns().keySet().containsAll(rules.uniqueKey())
                && indexes.stream().noneMatch(i -> i.unique() && i.immediate() && i.plain() && !i.partial() && i.sameColumns(rules.uniqueKey()))) {
            problems.add("no unique index on (" + String.join(", ", rules.uniqueKey()) + "): ALTER TABLE " + t + " ADD PRIMARY KEY ("
                    + Sql.list(rules.uniqueKey()) + ")");
        }
        if (rules.openColumn() != null && indexes.stream().noneMatch(i -> i.unique() && i.plain() && i.openPredicate() && i.sameColumns(rules.openKey()))) {
            problems.add("no unique index allowing one open version per key: CREATE UNIQUE INDEX " + Sql.ident(bare + "_one_open") + " ON " + t
                    + " (" + Sql.list(rules.openKey()) + ") WHERE " + rules.open().openTest(Sql.ident(rules.openColumn())));
        }
        if (rules.rangeCheck() != null && constraints.stream().noneMatch(Constraint::isRangeCheck)) {
            String vf = Sql.ident(rules.rangeCheck().get(0));
            String vt = Sql.ident(rules.rangeCheck().get(1));
            problems.add("no check that " + rules.rangeCheck().get(1) + " is after " + rules.rangeCheck().get(0) + ": ALTER TABLE " + t
                    + " ADD CONSTRAINT " + Sql.ident(bare + "_valid_range") + " CHECK (" + rules.open().rangeCheck(vf, vt) + ")");
        }
    }

    /**
     * How a table is partitioned: the strategy ({@code pg_partitioned_table.partstrat}: {@code h} for
     * hash), the partition key's columns, the number of partitions.
     */
    record Partitioning(String strategy, List<String> columns, long partitions) {
    }

    /** How {@code table} is partitioned; empty for a plain table. */
    static Optional<Partitioning> partitioning(Connection c, String table) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(
                "SELECT pt.partstrat::text, array(SELECT a.attname FROM unnest(pt.partattrs::int2[]) WITH ORDINALITY k(n, o) "
                        + "JOIN pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = k.n ORDER BY k.o), "
                        + "(SELECT count(*) FROM pg_inherits i WHERE i.inhparent = pt.partrelid) "
                        + "FROM pg_partitioned_table pt WHERE pt.partrelid = ?::regclass")) {
            p.setString(1, Sql.table(table));
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(new Partitioning(rs.getString(1), List.of((String[]) rs.getArray(2).getArray()), rs.getLong(3)))
                        : Optional.empty();
            }
        }
    }

    /**
     * How an existing table is partitioned, when it differs from {@code table-partitions}: a warning,
     * not a problem, since the writer's statements work on either (a partitioned table made by hand
     * must still have the unique indexes the rules ask, which PostgreSQL allows only when they
     * contain the partition key).
     */
    static Optional<String> partitioningWarning(Connection c, EntitySpec e, String table) throws SQLException {
        Optional<Partitioning> p = partitioning(c, table);
        String have = null;
        if (p.isPresent()) {
            boolean byKey = p.get().strategy().equals("h") && p.get().columns().equals(e.key());
            if (byKey && p.get().partitions() == e.tablePartitions()) {
                return Optional.empty();
            }
            have = "partitioned " + (byKey ? "by hash of the key" : "(strategy " + p.get().strategy() + " on " + p.get().columns() + ")")
                    + " into " + p.get().partitions() + " partitions";
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
    private static List<Index> indexes(Connection c, String table, Rules rules) throws SQLException {
        String openColumn = rules.openColumn();
        List<Index> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT array(SELECT a.attname FROM generate_series(0, i.indnkeyatts - 1) g "
                        + "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[g]), i.indisunique, i.indimmediate, "
                        + "i.indexprs IS NULL AND NOT (0 = ANY (i.indkey[0:i.indnkeyatts - 1])), i.indpred IS NOT NULL, "
                        + "coalesce(pg_get_expr(i.indpred, i.indrelid) = format(?, ?::text), false) "
                        + "FROM pg_index i WHERE i.indrelid = ?::regclass AND i.indisvalid")) {
            p.setString(1, openColumn == null ? "" : OpenEnd.indexPredicate(rules.open()));
            p.setString(2, openColumn == null ? "" : openColumn);
            p.setString(3, Sql.table(table));
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
    private static List<Constraint> constraints(Connection c, String table, Rules rules) throws SQLException {
        List<String> rangeCheck = rules.rangeCheck();
        List<Constraint> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(
                "SELECT contype::text, conname, pg_get_constraintdef(oid), "
                        + "contype = 'c' AND pg_get_constraintdef(oid) = format(?, ?::text, ?::text) "
                        + "FROM pg_constraint WHERE conrelid = ?::regclass AND contype <> 'n' ORDER BY conname")) {
            String vf = rangeCheck == null ? "" : rangeCheck.get(0);
            String vt = rangeCheck == null ? "" : rangeCheck.get(1);
            p.setString(1, rangeCheck == null ? "" : OpenEnd.rangeCheckDefinition(rules.open()));
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
}
