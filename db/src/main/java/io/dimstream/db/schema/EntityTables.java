package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates an entity's tables when missing and validates them when present: the entry point; the
 * DDL is {@link EntityDdl}'s, the reading of the catalog and the validation {@link TableCheck}'s.
 *
 * <p>Per entity {@code T}:
 * <ul>
 *   <li>{@code T}: the SCD2 table. Key, tracked and type-1 columns, then the system columns.
 *       PRIMARY KEY (key, valid_from); a partial unique index allowing one open row
 *       ({@code valid_to IS NULL}, or {@code = 'infinity'} with {@code valid-to-current: infinity},
 *       when {@code valid_to} is also NOT NULL) per key, which implies one current row; CHECK valid_to &gt;
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
 *       of an instant, for BI tools and dbt models. Both made by column name, keeping their identity
 *       when they exist ({@link EntityDdl}).</li>
 * </ul>
 *
 * <p>An existing table (made by hand, by an older dimstream, or altered since) is validated fully
 * before anything is written, since each difference would otherwise make PostgreSQL refuse a
 * batch later (and the sink retry it): every column the config names exists with exactly the
 * declared type, modifiers included; the columns dimstream writes NULL into are nullable; no other
 * column is NOT NULL without a default; {@code is_current} is generated (a table whose
 * {@code is_current} is the other {@code valid-to-current}'s is refused first, naming the rebuild); the invariants above exist
 * (a unique index on (key, valid_from), the one-open-version index, the valid-range check; for
 * the memory, a unique index on (key, event_time), which its upsert needs). Each problem is named
 * with the statement that fixes it. CHECK and foreign-key constraints and triggers dimstream cannot
 * know are logged as warnings: a row they refuse stops the sink.
 */
public final class EntityTables {

    private static final Logger LOG = LoggerFactory.getLogger(EntityTables.class);

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
            if (TableCheck.exists(c, e.table())) {
                OpenEnd.refuseOtherOpenEnd(c, e);
                TransactionTimeDdl.addColumns(c, e);
                warnings.addAll(TableCheck.validate(c, e.table(), TableCheck.tableRules(e)));
                TableCheck.partitioningWarning(c, e, e.table()).ifPresent(warnings::add);
            } else {
                EntityDdl.exec(c, EntityDdl.createTableSql(e));
            }
            if (TableCheck.exists(c, e.memoryTable())) {
                warnings.addAll(TableCheck.validate(c, e.memoryTable(), TableCheck.memoryRules(e)));
                TableCheck.partitioningWarning(c, e, e.memoryTable()).ifPresent(warnings::add);
            } else {
                EntityDdl.exec(c, EntityDdl.createMemorySql(e));
            }
            TransactionTimeDdl.ensure(c, e);
            viewAndFunction(c, e);
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
     * the view and function and without registering the entity: a replay's shadow table.
     * Runs in the caller's transaction.
     */
    public static void createUnregistered(Connection c, EntitySpec e) throws SQLException {
        if (!TableCheck.exists(c, e.table())) {
            EntityDdl.exec(c, EntityDdl.createTableSql(e));
        }
        if (!TableCheck.exists(c, e.memoryTable())) {
            EntityDdl.exec(c, EntityDdl.createMemorySql(e));
        }
    }

    /**
     * Makes the view {@code T_current} and the function {@code T_as_of} over the table named
     * {@code e.table()} now, by column name ({@link EntityDdl#currentView}, {@link EntityDdl#asOfFunction}),
     * keeping the identity of each that exists. Runs in the caller's transaction.
     */
    public static void viewAndFunction(Connection c, EntitySpec e) throws SQLException {
        EntityDdl.currentView(c, e);
        EntityDdl.asOfFunction(c, e);
    }

    /**
     * Whether two tables are partitioned alike (both plain, or by the same strategy on the same columns
     * into as many partitions): a shadow's swap exchanges contents then, and renames otherwise.
     */
    public static boolean samePartitioning(Connection c, String table, String other) throws SQLException {
        return TableCheck.partitioning(c, table).equals(TableCheck.partitioning(c, other));
    }

    /** Whether a table (optionally schema-qualified) exists. */
    public static boolean tableExists(Connection c, String table) throws SQLException {
        return TableCheck.exists(c, table);
    }

    /** An existing table that does not have the columns the config says it must. */
    public static final class SchemaMismatchException extends IllegalStateException {
        public SchemaMismatchException(String message) {
            super(message);
        }
    }
}
