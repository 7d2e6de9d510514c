package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The objects of transaction time ({@link EntitySpec#transactionTime()}, docs/semantics.md "Transaction
 * time"), beside an entity table {@code T}:
 * <ul>
 *   <li>the system columns {@code known_from} (default {@code now()}: when the row image became
 *       believed) and {@code end_known_from} (when its {@code valid_to} became known; NULL while open).
 *       A close sets {@code end_known_from} in the writer's own statement, so the open image it ends
 *       needs no copy: it is the row read with {@code valid_to} NULL before {@code end_known_from};</li>
 *   <li>{@code T_superseded}: every image a later arrival rewrote (a closed row's end, state or hash
 *       changed) or removed, with {@code known_to}, the transaction time it stopped being believed,
 *       and the whole old row as {@code row_image} (jsonb, read back by column NAME with
 *       {@code jsonb_populate_record}, so columns added, widened or dropped later do not break it);</li>
 *   <li>the trigger function {@code T_supersede} and its row triggers on {@code T}: BEFORE UPDATE and
 *       DELETE of such a rewrite, it copies the old image and stamps the new one; BEFORE INSERT of a row
 *       born closed (a late event), it stamps {@code end_known_from}. Each trigger's WHEN clause keeps
 *       the common path (an insert of an open row, a close, a type-1 overwrite) free of any function
 *       call; what a BEFORE row trigger still costs an update or delete is PostgreSQL's lock of the old
 *       row before its WHEN is tested, one WAL record per row (measured: the writer at 1.04x its time
 *       without transaction time, docs/benchmarks.md; AFTER triggers would avoid it but then every
 *       statement that rewrites a closed row would stamp the new image itself). A row written in the same transaction ({@code known_from = now()}) was never visible to
 *       anyone: rewriting it keeps nothing. {@code SET LOCAL dimstream.forget = 'on'} turns the triggers
 *       off for the transaction: erasure and retention remove what must not be kept, and a swap brings
 *       its own stamps;</li>
 *   <li>{@code T_as_of(valid_at, known_at)}: the rows valid at {@code valid_at} as the table stood at
 *       {@code known_at}, over the table and {@code T_superseded} together.</li>
 * </ul>
 * Transaction time is the time of the writing transaction ({@code now()}, its start): a key is written
 * by one transaction at a time, so a key's beliefs follow each other in commit order, and an instant
 * read after a commit sees everything it committed.
 */
public final class TransactionTimeDdl {

    /** The setting that keeps a transaction's rewrites and removals out of {@code T_superseded}. */
    public static final String FORGET = "dimstream.forget";

    private static final String FORGET_OFF = "current_setting('" + FORGET + "', true) IS DISTINCT FROM 'on'";

    private TransactionTimeDdl() {
    }

    /** Drops the triggers named after the table {@code named} from {@code e.table()}, when it exists. */
    public static void dropTriggers(Connection c, EntitySpec e, String named) throws SQLException {
        if (!TableCheck.exists(c, e.table())) {
            return;
        }
        for (String op : List.of("update", "delete", "insert")) {
            EntityDdl.exec(c, "DROP TRIGGER IF EXISTS " + Sql.ident(named + "_supersede_" + op) + " ON " + Sql.table(e.table()));
        }
    }

    /** Whether {@code trigger}, on {@code table}, is one of transaction time's. */
    static boolean isOwnTrigger(String table, String trigger) {
        return List.of("update", "delete", "insert").stream().anyMatch(op -> trigger.equals(Sql.nameOf(table) + "_supersede_" + op));
    }

    /** The two system columns, for {@code CREATE TABLE}. */
    static List<String> columnDefs(EntitySpec e) {
        if (!e.transactionTime()) {
            return List.of();
        }
        SystemColumns sc = e.system();
        return List.of(Sql.ident(sc.knownFrom()) + " timestamptz DEFAULT now()", Sql.ident(sc.endKnownFrom()) + " timestamptz");
    }

    /**
     * Makes transaction time's objects for the table named {@code e.table()}, in the caller's
     * transaction, idempotently: the columns on a table made before ({@link #addColumns}), the side table, the trigger function,
     * the triggers and the two-argument function. Without transaction time: the triggers, the function and
     * the default of {@code known_from} are dropped (columns and side table stay, readable).
     */
    public static void ensure(Connection c, EntitySpec e) throws SQLException {
        if (!e.transactionTime()) {
            dropTriggers(c, e, Sql.nameOf(e.table()));
            // rows written while it is off read "known since ever" if it is switched on again, not a
            // belief whose end was never recorded
            if (TableCheck.columnTypes(c, e.table()).containsKey(e.system().knownFrom())) {
                EntityDdl.exec(c, "ALTER TABLE " + Sql.table(e.table()) + " ALTER COLUMN " + Sql.ident(e.system().knownFrom()) + " DROP DEFAULT");
            }
            EntityDdl.exec(c, "DROP FUNCTION IF EXISTS " + Sql.table(e.asOfFunction()) + "(timestamptz, timestamptz)");
            return;
        }
        SystemColumns sc = e.system();
        String kf = Sql.ident(sc.knownFrom());
        String ekf = Sql.ident(sc.endKnownFrom());
        addColumns(c, e);
        EntityDdl.exec(c, supersededTableSql(e));
        EntityDdl.exec(c, triggerFunctionSql(e));
        String vt = Sql.ident(sc.validTo());
        String rewrite = "(NOT " + e.openTest("OLD") + " AND OLD." + vt + " IS DISTINCT FROM NEW." + vt + ") OR OLD." + Sql.ident(sc.isDeleted())
                + " IS DISTINCT FROM NEW." + Sql.ident(sc.isDeleted()) + " OR OLD." + Sql.ident(sc.recordHash()) + " IS DISTINCT FROM NEW."
                + Sql.ident(sc.recordHash());
        String older = "OLD." + kf + " IS DISTINCT FROM now()";
        trigger(c, e, "update", "BEFORE UPDATE", FORGET_OFF + " AND " + older + " AND (" + rewrite + ")");
        trigger(c, e, "delete", "BEFORE DELETE", FORGET_OFF + " AND " + older);
        trigger(c, e, "insert", "BEFORE INSERT", FORGET_OFF + " AND NOT " + e.openTest("NEW") + " AND NEW." + ekf + " IS NULL");
        asOfFunction(c, e);
    }

    /**
     * The two columns on a table made before, added without a default first, so that its rows read
     * "known since ever", then given the default; nothing when they are there or without transaction time.
     */
    static void addColumns(Connection c, EntitySpec e) throws SQLException {
        if (!e.transactionTime()) {
            return;
        }
        String t = Sql.table(e.table());
        String kf = Sql.ident(e.system().knownFrom());
        EntityDdl.exec(c, "ALTER TABLE " + t + " ADD COLUMN IF NOT EXISTS " + kf + " timestamptz, ADD COLUMN IF NOT EXISTS "
                + Sql.ident(e.system().endKnownFrom()) + " timestamptz");
        EntityDdl.exec(c, "ALTER TABLE " + t + " ALTER COLUMN " + kf + " SET DEFAULT now()");
    }

    private static void trigger(Connection c, EntitySpec e, String op, String when, String condition) throws SQLException {
        String name = Sql.ident(Sql.nameOf(e.table()) + "_supersede_" + op);
        String t = Sql.table(e.table());
        EntityDdl.exec(c, "DROP TRIGGER IF EXISTS " + name + " ON " + t);
        EntityDdl.exec(c, "CREATE TRIGGER " + name + " " + when + " ON " + t + " FOR EACH ROW WHEN (" + condition + ") EXECUTE FUNCTION "
                + Sql.table(e.supersedeFunction()) + "()");
    }

    static String supersededTableSql(EntitySpec e) {
        String s = Sql.table(e.supersededTable());
        List<String> cols = new ArrayList<>();
        for (String k : e.key()) {
            cols.add(Sql.ident(k) + " " + e.type(k).sqlName() + " NOT NULL");
        }
        cols.addAll(List.of("valid_from timestamptz NOT NULL", "valid_to timestamptz", "is_deleted boolean NOT NULL", "known_from timestamptz",
                "end_known_from timestamptz", "known_to timestamptz NOT NULL", "row_image jsonb NOT NULL"));
        return "CREATE TABLE IF NOT EXISTS " + s + " (\n  " + String.join(",\n  ", cols) + "\n);\n"
                + "CREATE INDEX IF NOT EXISTS " + Sql.ident(Sql.nameOf(e.supersededTable()) + "_key") + " ON " + s + " ("
                + Sql.list(e.key()) + ", valid_from);\n"
                + "COMMENT ON TABLE " + s + " IS " + Sql.literal("transaction time of entity " + e.name() + " (dimstream): every version "
                + "image a later arrival rewrote or removed, believed from known_from to known_to") + ";\n";
    }

    private static String triggerFunctionSql(EntitySpec e) {
        SystemColumns sc = e.system();
        String kf = Sql.ident(sc.knownFrom());
        String ekf = Sql.ident(sc.endKnownFrom());
        String vt = Sql.ident(sc.validTo());
        List<String> cols = new ArrayList<>(e.key());
        List<String> olds = new ArrayList<>();
        e.key().forEach(k -> olds.add("OLD." + Sql.ident(k)));
        cols.addAll(EntitySpec.SUPERSEDED_COLUMNS);
        olds.addAll(List.of("OLD." + Sql.ident(sc.validFrom()), "OLD." + vt, "OLD." + Sql.ident(sc.isDeleted()), "OLD." + kf, "OLD." + ekf,
                "now()", "to_jsonb(OLD)"));
        return "CREATE OR REPLACE FUNCTION " + Sql.table(e.supersedeFunction()) + "() RETURNS trigger LANGUAGE plpgsql AS $fn$\nBEGIN\n"
                + "  IF TG_OP = 'INSERT' THEN\n    NEW." + ekf + " := now();\n    RETURN NEW;\n  END IF;\n"
                + "  INSERT INTO " + Sql.table(e.supersededTable()) + " (" + Sql.list(cols) + ") VALUES (" + String.join(", ", olds) + ");\n"
                + "  IF TG_OP = 'DELETE' THEN\n    RETURN OLD;\n  END IF;\n"
                + "  NEW." + kf + " := now();\n  NEW." + ekf + " := CASE WHEN " + e.openTest("NEW") + " THEN NULL ELSE now() END;\n"
                + "  RETURN NEW;\nEND\n$fn$";
    }

    /**
     * {@code T_as_of(valid_at timestamptz, known_at timestamptz)}: every image believed at
     * {@code known_at} (a row of the table written by then, or a superseded image believed then), its
     * end as known then ({@code valid_to} only once {@code end_known_from} has passed), valid at
     * {@code valid_at}. The table's columns by NAME from the catalog, so it is made again whenever they
     * change (with the view, {@link EntityTables#viewAndFunction}).
     */
    static void asOfFunction(Connection c, EntitySpec e) throws SQLException {
        String fn = Sql.table(e.asOfFunction()) + "(timestamptz, timestamptz)";
        EntityDdl.dropIfReturnsOther(c, e, fn);
        SystemColumns sc = e.system();
        String t = Sql.table(e.table());
        List<String> columns = new ArrayList<>(TableCheck.columnTypes(c, e.table()).keySet());
        String vt = Sql.ident(sc.validTo());
        // the end as known at $2: a version closed later was open then
        String effEnd = "(CASE WHEN v." + Sql.ident(sc.endKnownFrom()) + " > $2 THEN " + e.openEnd() + " ELSE v." + vt + " END)";
        List<String> select = new ArrayList<>();
        for (String col : columns) {
            if (col.equals(sc.validTo())) {
                select.add(effEnd + " AS " + vt);
            } else if (col.equals(sc.isCurrent())) {
                select.add("(" + e.validToCurrent().openTest(effEnd) + ") AS " + Sql.ident(col));
            } else {
                select.add("v." + Sql.ident(col));
            }
        }
        String valid = "v." + Sql.ident(sc.validFrom()) + " <= $1 AND " + e.validToCurrent().endsAfter(effEnd, "$1") + " AND NOT v."
                + Sql.ident(sc.isDeleted());
        String kf = "coalesce(v." + Sql.ident(sc.knownFrom()) + ", '-infinity'::timestamptz) <= $2";
        // $1, $2, not the parameters' names: in a SQL function a column of the same name takes precedence
        EntityDdl.exec(c, "CREATE OR REPLACE FUNCTION " + Sql.table(e.asOfFunction()) + "(valid_at timestamptz, known_at timestamptz)"
                + " RETURNS SETOF " + t + " LANGUAGE sql STABLE AS $fn$ "
                + "SELECT " + String.join(", ", select) + " FROM " + t + " v WHERE " + kf + " AND " + valid
                + " UNION ALL SELECT " + String.join(", ", select) + " FROM " + Sql.table(e.supersededTable()) + " s "
                + "CROSS JOIN LATERAL jsonb_populate_record(NULL::" + t + ", s.row_image) v "
                + "WHERE coalesce(s.known_from, '-infinity'::timestamptz) <= $2 AND s.known_to > $2 AND s.valid_from <= $1 AND NOT s.is_deleted AND "
                + valid + " $fn$");
    }
}
