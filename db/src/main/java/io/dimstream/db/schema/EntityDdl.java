package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The DDL of an entity's objects, built from its spec: the SCD2 table and its event memory (with
 * their partitions, {@code table-partitions}), the view {@code T_current} and the function
 * {@code T_as_of}. The view and the function are made by column NAME, from the table as the
 * catalog has it ({@link TableCheck#columnTypes}), never by position: a table whose columns came in
 * another order (columns added while running go last) still gets them, and {@code CREATE OR
 * REPLACE VIEW}, which may only append columns, keeps the view's own columns first, so the view
 * keeps its identity (OID, grants, comments, the views users built on it).
 */
final class EntityDdl {

    private EntityDdl() {
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
        // with valid-to-current: infinity an open version ends at infinity, never NULL
        cols.add(Sql.ident(sc.validTo()) + " timestamptz" + (e.validToCurrent() == ValidToCurrent.INFINITY ? " NOT NULL" : ""));
        cols.add(Sql.ident(sc.isCurrent()) + " boolean GENERATED ALWAYS AS (" + isCurrentExpr(e) + ") STORED");
        cols.add(Sql.ident(sc.isDeleted()) + " boolean NOT NULL");
        cols.add(Sql.ident(sc.recordHash()) + " bytea NOT NULL");
        cols.add(Sql.ident(sc.sourceTopic()) + " text");
        cols.add(Sql.ident(sc.sourcePartition()) + " integer");
        cols.add(Sql.ident(sc.sourceOffset()) + " bigint");
        cols.add(Sql.ident(sc.loadedAt()) + " timestamptz NOT NULL DEFAULT now()");
        cols.add(Sql.ident(sc.eventSeq()) + " bigint");
        cols.addAll(TransactionTimeDdl.columnDefs(e));
        cols.add("CONSTRAINT " + Sql.ident(bare + "_pkey") + " PRIMARY KEY (" + Sql.list(e.key()) + ", " + Sql.ident(sc.validFrom()) + ")");
        cols.add("CONSTRAINT " + Sql.ident(bare + "_valid_range") + " CHECK ("
                + e.validToCurrent().rangeCheck(Sql.ident(sc.validFrom()), Sql.ident(sc.validTo())) + ")");
        return "CREATE TABLE " + t + " (\n  " + String.join(",\n  ", cols) + "\n)" + partitionsSql(e, e.table())
                + "CREATE UNIQUE INDEX " + Sql.ident(bare + "_one_open") + " ON " + t + " (" + Sql.list(e.key()) + ") WHERE "
                + e.openTest(null) + ";\n"
                + (e.surrogateKeyIndex()
                        ? "CREATE UNIQUE INDEX " + Sql.ident(bare + "_surrogate_key") + " ON " + t + " (" + Sql.ident(sc.surrogateKey()) + ");\n"
                        : "")
                + "COMMENT ON TABLE " + t + " IS " + Sql.literal("SCD2 history of entity " + e.name() + ", maintained by dimstream") + ";\n";
    }

    /** The expression of the generated {@code is_current}: open and not deleted. */
    static String isCurrentExpr(EntitySpec e) {
        return e.openTest(null) + " AND NOT " + Sql.ident(e.system().isDeleted());
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

    /**
     * {@code CREATE OR REPLACE VIEW T_current AS SELECT <columns> FROM T WHERE is_current}, the
     * columns named: those of the view as it is, in its order (CREATE OR REPLACE may only append
     * columns, and keeps the view's OID, grants and comments, and the views built on it), then the
     * table's others in the table's order. A view column the table no longer has (dropped by hand)
     * cannot be kept: the view is dropped and made again (refused by PostgreSQL, naming them, when
     * views of a user's depend on it).
     */
    static void currentView(Connection c, EntitySpec e) throws SQLException {
        List<String> table = new ArrayList<>(TableCheck.columnTypes(c, e.table()).keySet());
        List<String> cols = new ArrayList<>();
        if (TableCheck.exists(c, e.currentView())) {
            List<String> view = new ArrayList<>(TableCheck.columnTypes(c, e.currentView()).keySet());
            if (table.containsAll(view)) {
                cols.addAll(view);
            } else {
                exec(c, "DROP VIEW " + Sql.table(e.currentView()));
            }
        }
        table.stream().filter(col -> !cols.contains(col)).forEach(cols::add);
        exec(c, "CREATE OR REPLACE VIEW " + Sql.table(e.currentView()) + " AS SELECT " + Sql.list(cols) + " FROM "
                + Sql.table(e.table()) + " WHERE " + Sql.ident(e.system().isCurrent()));
        // the two-argument T_as_of names the table's columns as the view does: made again with it
        if (e.transactionTime() && TableCheck.exists(c, e.supersededTable())) {
            TransactionTimeDdl.asOfFunction(c, e);
        }
    }

    /**
     * {@code T_as_of(timestamptz)}: the table's rows valid at an instant, of the table's row type
     * ({@code SELECT *} in a SQL function is expanded at each call, so it is the table's columns as
     * they are, by name). CREATE OR REPLACE keeps an existing function's OID and grants; one that
     * returns the rows of another table (the one that had this name before a rename) cannot change
     * its return type, so it is dropped first.
     */
    static void asOfFunction(Connection c, EntitySpec e) throws SQLException {
        dropIfReturnsOther(c, e, Sql.table(e.asOfFunction()) + "(timestamptz)");
        SystemColumns sc = e.system();
        String t = Sql.table(e.table());
        String vf = Sql.ident(sc.validFrom());
        // $1, not the parameter's name: in a SQL function a column of the same name (an entity
        // column called as_of) would take precedence over it
        exec(c, "CREATE OR REPLACE FUNCTION " + Sql.table(e.asOfFunction()) + "(as_of timestamptz) RETURNS SETOF "
                + t + " LANGUAGE sql STABLE AS $fn$ SELECT * FROM " + t + " WHERE " + vf + " <= $1 AND " + e.endsAfter(null, "$1")
                + " AND NOT " + Sql.ident(sc.isDeleted()) + " $fn$");
    }

    /** Drops the function {@code fn} (a signature) when it returns the rows of another table than {@code e}'s. */
    static void dropIfReturnsOther(Connection c, EntitySpec e, String fn) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT p.prorettype <> ?::regtype FROM pg_proc p WHERE p.oid = to_regprocedure(?)")) {
            p.setString(1, Sql.table(e.table()));
            p.setString(2, fn);
            try (ResultSet rs = p.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    exec(c, "DROP FUNCTION " + fn);
                }
            }
        }
    }

    static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
