package io.dimstream.bench;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.SurrogateKey;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The two peers {@link WriterBenchmark} measures the writer against, on the benchmark's customer
 * table (the columns of {@link WriterBenchmark#spec}) and the same kind of change set, in the same
 * run:
 * <ul>
 *   <li>{@link Bare}: the set-based close + insert PostgreSQL needs anyway to keep an SCD2 table
 *       (COPY into a staging table, {@code UPDATE ... FROM} it, {@code INSERT ... SELECT} it), with
 *       none of the writer's classification, event memory, late placement or dedup;</li>
 *   <li>{@link Dbt}: the statements a dbt snapshot runs on PostgreSQL (check strategy,
 *       {@code check_cols: all}) for the same changes, reproduced from the dbt macros.</li>
 * </ul>
 * Both run with the writer's session settings ({@code work_mem}, {@code jit = off}, UTC), so the
 * difference measured is the SQL, not the settings. Hand-written rather than calling dbt itself:
 * dbt is a Python tool, not on this machine, and what costs is the SQL it sends, reproduced here
 * statement for statement (dbt's catalog queries, a few milliseconds each, are left out).
 */
final class Peers {

    /** The benchmark entity's data columns in table order (key first), as in {@link WriterBenchmark#spec}. */
    static final List<String> DATA = List.of("customer_id", "email", "full_name", "country", "city", "loyalty_tier", "last_login");
    static final List<String> TRACKED = List.of("email", "full_name", "country", "city", "loyalty_tier");

    private Peers() {
    }

    static String session(String workMem) {
        return "SET LOCAL TimeZone = 'UTC'; SET LOCAL work_mem = '" + workMem + "'; SET LOCAL jit = off";
    }

    /** COPY text format: backslash, tab, newline and carriage return escaped; null as {@code \N}. */
    static void field(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("\\N");
            return;
        }
        String s = v.toString();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '\\' -> sb.append("\\\\");
                case '\t' -> sb.append("\\t");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                default -> sb.append(ch);
            }
        }
    }

    static List<Event> sortedByKey(List<Event> batch) {
        List<Event> s = new ArrayList<>(batch);
        s.sort(Comparator.comparing(e -> (String) e.data().get("customer_id")));
        return s;
    }

    static void copyIn(Connection c, String sql, StringBuilder data) throws SQLException {
        try {
            c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new StringReader(data.toString()));
        } catch (IOException e) {
            throw new SQLException(e);
        }
    }

    /**
     * The set-based close + insert: every event of the batch is taken as a change of its key at
     * its event time (in-order, one event per key, never a re-assertion). The rows written are the
     * writer's own for such a batch (record hash, surrogate key and lineage included), so the
     * final table is the same; what is left out is everything that makes the writer exact for any
     * other batch.
     */
    static final class Bare {

        private Bare() {
        }

        static final String COLS = String.join(", ", DATA) + ", surrogate_key, valid_from, is_deleted, record_hash, source_topic, "
                + "source_partition, source_offset";

        /** @return seconds from the first byte of the staging COPY to the commit (building the rows included) */
        static double apply(DataSource ds, String entity, String table, List<Event> batch, String workMem) throws SQLException {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                long t = System.nanoTime();
                StringBuilder sb = new StringBuilder(batch.size() * 200);
                for (Event e : sortedByKey(batch)) {
                    Map<String, Object> d = e.data();
                    for (String col : DATA) {
                        field(sb, d.get(col));
                        sb.append('\t');
                    }
                    List<String> tracked = new ArrayList<>(TRACKED.size());
                    for (String col : TRACKED) {
                        tracked.add((String) d.get(col));
                    }
                    sb.append(SurrogateKey.of(entity, List.of((String) d.get("customer_id")), e.eventTime())).append('\t')
                            .append(e.eventTime()).append("\tf\t\\\\x").append(RecordHash.hex(RecordHash.of(tracked))).append('\t');
                    field(sb, e.source() == null ? null : e.source().topic());
                    sb.append('\t');
                    field(sb, e.source() == null ? null : e.source().partition());
                    sb.append('\t');
                    field(sb, e.source() == null ? null : e.source().offset());
                    sb.append('\n');
                }
                try (Statement s = c.createStatement()) {
                    s.execute(session(workMem));
                    s.execute("CREATE TEMP TABLE bare_stage (customer_id text NOT NULL, email text, full_name text, country text, "
                            + "city text, loyalty_tier text, last_login bigint, surrogate_key bigint NOT NULL, valid_from timestamptz NOT NULL, "
                            + "is_deleted boolean NOT NULL, record_hash bytea NOT NULL, source_topic text, source_partition integer, "
                            + "source_offset bigint) ON COMMIT DROP");
                    copyIn(c, "COPY bare_stage FROM STDIN", sb);
                    s.execute("ANALYZE bare_stage");
                    // closes first: the one-open-row index would refuse the successor otherwise
                    s.executeUpdate("UPDATE " + table + " t SET valid_to = s.valid_from FROM bare_stage s "
                            + "WHERE t.customer_id = s.customer_id AND t.valid_to IS NULL");
                    s.executeUpdate("INSERT INTO " + table + " (" + COLS + ") SELECT " + COLS + " FROM bare_stage");
                }
                c.commit();
                return (System.nanoTime() - t) / 1e9;
            }
        }
    }

    /**
     * A dbt snapshot of a source table, as dbt-postgres runs it. The SQL reproduces, for
     * {@code strategy: check, check_cols: all, unique_key: customer_id, updated_at: updated_at} and
     * {@code hard_deletes} {@code ignore} (dbt's default) or {@code invalidate}, these macros of
     * dbt-labs/dbt-adapters (commit 802d40f, dbt-adapters 1.24.5, dbt-postgres 1.11.0rc1):
     * <ul>
     *   <li>{@code dbt-adapters/src/dbt/include/global_project/macros/materializations/snapshots/strategies.sql}:
     *       {@code snapshot_check_strategy} (row_changed over every column of the query, the
     *       {@code !=} or one-side-null test per column; scd_id = {@code snapshot_hash_arguments}
     *       = md5 of key and updated_at);</li>
     *   <li>{@code .../snapshots/helpers.sql}: {@code default__snapshot_staging_table} (the
     *       snapshot_query, snapshotted_data, insertions_source_data, updates_source_data,
     *       deletes_source_data CTEs, then insertions, updates and deletes),
     *       {@code build_snapshot_staging_table} (a temporary table made from that query),
     *       {@code default__build_snapshot_table} (the first run);</li>
     *   <li>{@code .../snapshots/snapshot.sql}: the materialization (staging table, then
     *       snapshot_merge_sql, one transaction, commit);</li>
     *   <li>{@code dbt-postgres/src/dbt/include/postgres/macros/materializations/snapshot_merge.sql}:
     *       {@code postgres__snapshot_merge_sql} (an UPDATE of dbt_valid_to by dbt_scd_id, then an
     *       INSERT of the 'insert' rows); {@code dbt-postgres/.../macros/adapters.sql}:
     *       {@code postgres__create_table_as} ({@code create temporary table ... as (...)}).</li>
     * </ul>
     * dbt compares the whole source query with the snapshot's open rows on every run: the source
     * table holds every current row (the state after the changes), and its cost grows with the
     * table, not with the changes. dbt makes no index on a snapshot table unless configured.
     * {@code updated_at} is configured so that {@code dbt_valid_from} is the change's time, as the
     * writer's {@code valid_from}; without it dbt uses {@code now()}, which costs the same.
     */
    static final class Dbt {

        private Dbt() {
        }

        /** The source query's columns: the entity's data and the time of the row's last change. */
        static final List<String> SOURCE = List.of("customer_id", "email", "full_name", "country", "city", "loyalty_tier", "last_login",
                "updated_at");

        static String q(String c) {
            return "\"" + c + "\"";
        }

        /** dbt's default__snapshot_hash_arguments over (unique_key, updated_at). */
        static String scdId(String key, String updatedAt) {
            return "md5(coalesce(cast(" + key + " as varchar ), '') || '|' || coalesce(cast(" + updatedAt + " as varchar ), ''))";
        }

        /** The source table: the upstream table dbt snapshots, with its primary key. */
        static void createSourceTable(DataSource ds, String source) throws SQLException {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                createSource(s, source);
            }
        }

        static void createSource(Statement s, String source) throws SQLException {
            s.execute("DROP TABLE IF EXISTS " + source);
            s.execute("CREATE TABLE " + source + " (customer_id text PRIMARY KEY, email text, full_name text, country text, city text, "
                    + "loyalty_tier text, last_login bigint, updated_at timestamptz NOT NULL)");
        }

        /**
         * The snapshot table and its source made from the writer's table (untimed): every version
         * becomes the snapshot row dbt would have written for it, and the source holds the current
         * rows. So dbt runs on the same versions as the writer.
         */
        static void cloneFrom(DataSource ds, String entityTable, String snapshot, String source, boolean indexes) throws SQLException {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SET TimeZone = 'UTC'");
                s.execute("DROP TABLE IF EXISTS " + snapshot);
                s.execute("CREATE TABLE " + snapshot + " AS SELECT " + String.join(", ", DATA) + ", valid_from AS updated_at, "
                        + scdId("customer_id", "valid_from") + " AS dbt_scd_id, valid_from AS dbt_updated_at, valid_from AS dbt_valid_from, "
                        + "valid_to AS dbt_valid_to FROM " + entityTable);
                if (indexes) {
                    createIndexes(s, snapshot);
                }
                createSource(s, source);
                s.execute("INSERT INTO " + source + " SELECT " + String.join(", ", DATA) + ", valid_from FROM " + entityTable
                        + " WHERE valid_to IS NULL AND NOT is_deleted");
                s.execute("VACUUM ANALYZE " + snapshot);
                s.execute("VACUUM ANALYZE " + source);
            }
        }

        /** What a user may add with the snapshot's {@code indexes} config: the merge's join column and the key. */
        static void createIndexes(Statement s, String snapshot) throws SQLException {
            s.execute("CREATE INDEX ON " + snapshot + " (dbt_scd_id)");
            s.execute("CREATE INDEX ON " + snapshot + " (customer_id)");
        }

        /** The first run: default__build_snapshot_table through create_table_as (untimed in the benchmark). */
        static void build(DataSource ds, String snapshot, String source) throws SQLException {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SET TimeZone = 'UTC'");
                s.execute("create  table " + snapshot + "\n  as (\n    select *,\n        " + scdId("customer_id", "updated_at")
                        + " as dbt_scd_id,\n        updated_at as dbt_updated_at,\n        updated_at as dbt_valid_from,\n"
                        + "        coalesce(nullif(updated_at, updated_at), null) as dbt_valid_to\n    from (\n        select * from "
                        + source + "\n    ) sbq\n  )");
            }
        }

        /** The upstream system changing its rows (untimed): each event's key gets its new values at its time. */
        static void applyToSource(DataSource ds, String source, List<Event> batch) throws SQLException {
            StringBuilder sb = new StringBuilder(batch.size() * 150);
            for (Event e : batch) {
                for (String col : DATA) {
                    field(sb, e.data().get(col));
                    sb.append('\t');
                }
                sb.append(e.eventTime()).append('\n');
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TEMP TABLE src_stage (LIKE " + source + ") ON COMMIT DROP");
                    copyIn(c, "COPY src_stage FROM STDIN", sb);
                    s.execute("INSERT INTO " + source + " SELECT * FROM src_stage ON CONFLICT (customer_id) DO UPDATE SET "
                            + SOURCE.stream().skip(1).map(col -> col + " = excluded." + col).collect(Collectors.joining(", ")));
                }
                c.commit();
            }
        }

        /** row_changed of snapshot_check_strategy for check_cols: all (every column of the query, quoted as dbt quotes them). */
        static String rowChanged() {
            List<String> parts = new ArrayList<>();
            for (String col : SOURCE) {
                String sn = "snapshotted_data." + q(col);
                String cu = "source_data." + q(col);
                parts.add(sn + " != " + cu + "\n        or\n        (\n            ((" + sn + " is null) and not (" + cu + " is null))\n"
                        + "            or\n            ((not " + sn + " is null) and (" + cu + " is null))\n        )");
            }
            return "(" + String.join(" or ", parts) + ")";
        }

        /** default__snapshot_staging_table rendered for this snapshot (hard_deletes ignore or invalidate). */
        static String stagingSql(String snapshot, String source, boolean invalidate) {
            String changed = rowChanged();
            return "with snapshot_query as (\n\n        select * from " + source + "\n\n    ),\n\n"
                    + "    snapshotted_data as (\n\n        select *, customer_id as dbt_unique_key\n        from " + snapshot + "\n"
                    + "        where\n                dbt_valid_to is null\n\n    ),\n\n"
                    + "    insertions_source_data as (\n\n        select *, customer_id as dbt_unique_key,\n"
                    + "            updated_at as dbt_updated_at,\n            updated_at as dbt_valid_from,\n"
                    + "            coalesce(nullif(updated_at, updated_at), null)\n  as dbt_valid_to,\n"
                    + "            " + scdId("customer_id", "updated_at") + " as dbt_scd_id\n\n        from snapshot_query\n    ),\n\n"
                    + "    updates_source_data as (\n\n        select *, customer_id as dbt_unique_key,\n"
                    + "            updated_at as dbt_updated_at,\n            updated_at as dbt_valid_from,\n"
                    + "            updated_at as dbt_valid_to\n\n        from snapshot_query\n    ),\n"
                    + (invalidate ? "\n    deletes_source_data as (\n\n        select *, customer_id as dbt_unique_key\n"
                            + "        from snapshot_query\n    ),\n" : "")
                    + "\n    insertions as (\n\n        select\n            'insert' as dbt_change_type,\n            source_data.*\n\n"
                    + "        from insertions_source_data as source_data\n        left outer join snapshotted_data\n"
                    + "            on snapshotted_data.dbt_unique_key = source_data.dbt_unique_key\n"
                    + "            where snapshotted_data.dbt_unique_key is null\n"
                    + "            or (snapshotted_data.dbt_unique_key is not null and (\n               " + changed + "\n            )\n\n"
                    + "        )\n\n    ),\n\n"
                    + "    updates as (\n\n        select\n            'update' as dbt_change_type,\n            source_data.*,\n"
                    + "            snapshotted_data.dbt_scd_id\n\n        from updates_source_data as source_data\n        join snapshotted_data\n"
                    + "            on snapshotted_data.dbt_unique_key = source_data.dbt_unique_key\n        where (\n            " + changed
                    + "\n        )\n    )\n"
                    + (invalidate ? "    ,\n    deletes as (\n\n        select\n            'delete' as dbt_change_type,\n"
                            + "            source_data.*,\n            now()::timestamp without time zone as dbt_valid_from,\n"
                            + "            now()::timestamp without time zone as dbt_updated_at,\n"
                            + "            now()::timestamp without time zone as dbt_valid_to,\n            snapshotted_data.dbt_scd_id\n"
                            + "        from snapshotted_data\n        left join deletes_source_data as source_data\n"
                            + "            on snapshotted_data.dbt_unique_key = source_data.dbt_unique_key\n"
                            + "            where source_data.dbt_unique_key is null\n    )" : "")
                    + "\n\n    select * from insertions\n    union all\n    select * from updates"
                    + (invalidate ? "\n    union all\n    select * from deletes" : "") + "\n";
        }

        /** The staging table's columns that the merge inserts (dbt_change_type and dbt_unique_key removed), quoted. */
        static final List<String> INSERT_COLS = List.of("customer_id", "email", "full_name", "country", "city", "loyalty_tier",
                "last_login", "updated_at", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to", "dbt_scd_id");

        /** postgres__snapshot_merge_sql rendered (no dbt_valid_to_current). */
        static String mergeSql(String snapshot, String tmp) {
            String cols = INSERT_COLS.stream().map(Dbt::q).collect(Collectors.joining(", "));
            String sel = INSERT_COLS.stream().map(col -> "DBT_INTERNAL_SOURCE." + q(col)).collect(Collectors.joining(", "));
            return "update " + snapshot + "\n    set dbt_valid_to = DBT_INTERNAL_SOURCE.dbt_valid_to\n    from " + tmp
                    + " as DBT_INTERNAL_SOURCE\n    where DBT_INTERNAL_SOURCE.dbt_scd_id::text = " + snapshot + ".dbt_scd_id::text\n"
                    + "      and DBT_INTERNAL_SOURCE.dbt_change_type::text in ('update'::text, 'delete'::text)\n"
                    + "        and " + snapshot + ".dbt_valid_to is null;\n\n\n"
                    + "    insert into " + snapshot + " (" + cols + ")\n    select " + sel + "\n    from " + tmp + " as DBT_INTERNAL_SOURCE\n"
                    + "    where DBT_INTERNAL_SOURCE.dbt_change_type::text = 'insert'::text;";
        }

        /**
         * One {@code dbt snapshot} run: the staging temp table, then the merge, in one transaction.
         * @return seconds from the staging table's statement to the commit
         */
        static double snapshot(DataSource ds, String snapshot, String source, boolean invalidate, String workMem) throws SQLException {
            String tmp = snapshot + "__dbt_tmp";
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                double secs;
                try (Statement s = c.createStatement()) {
                    s.execute(session(workMem));
                    long t = System.nanoTime();
                    s.execute("create temporary table " + tmp + "\n  as (\n    " + stagingSql(snapshot, source, invalidate) + "\n  );");
                    s.execute(mergeSql(snapshot, tmp));
                    c.commit();
                    secs = (System.nanoTime() - t) / 1e9;
                    s.execute("DROP TABLE " + tmp);
                    c.commit();
                }
                return secs;
            }
        }
    }
}
