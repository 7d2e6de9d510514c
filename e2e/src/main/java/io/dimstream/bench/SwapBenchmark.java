package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.write.EventMemory;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;

/**
 * The cost of a shadow rebuild's swap on a big table (not a test): a live table of N versions
 * (the writer's, {@code --keys} keys with {@code --rows / --keys} versions each), and per run, for
 * each mechanism, a shadow holding the same versions (copied, untimed, then VACUUM ANALYZE as
 * autovacuum would leave a replayed table), swapped in on one connection in one transaction. What
 * is timed is that transaction from its {@code LOCK ... ACCESS EXCLUSIVE} to its commit: the time
 * readers and the sink wait (the lock time).
 * <ul>
 *   <li>rename (the mechanism before 2026-12-06): the lock, the merge's anti-join of the live
 *       memory against the shadow's (the same query {@code ShadowTables} runs; nothing to merge here),
 *       then renames of the table, memory and their indexes, the view made again, the function dropped and made again;</li>
 *   <li>exchange ({@link ShadowTables#swap}, the product code): the lock, catching up columns, the
 *       same merge, {@code CREATE TABLE <retired> AS TABLE <live>}, {@code TRUNCATE}, {@code INSERT ...
 *       SELECT} from the shadow by column name, drop of the shadow, renames of the memories;</li>
 *   <li>exchange by steps: the same statements as exchange, each timed (where the time goes); with
 *       {@code --delete true} also with {@code DELETE FROM} instead of {@code TRUNCATE} (MVCC-safe for
 *       readers with an older snapshot, but it leaves the table's old rows dead), and with
 *       {@code --rebuild true} with the indexes and primary key dropped before the INSERT and built
 *       again after it (their OIDs change).</li>
 * </ul>
 * Each ratio is taken within one run, then the median over runs. Usage:
 * {@code e2e/bench.sh SwapBenchmark --jdbc URL --rows 1000000 --keys 250000 --runs 3} (docs/benchmarks.md).
 * CHECKPOINT before each measurement when the role may ({@code pg_checkpoint}), else without.
 */
public final class SwapBenchmark {

    private static final String TABLE = "bench_swap";

    private SwapBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        String jdbc = a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres");
        int rows = Integer.parseInt(a.getOrDefault("rows", "1000000"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "250000"));
        int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
        boolean delete = "true".equals(a.get("delete"));
        boolean rebuild = "true".equals(a.get("rebuild"));
        try (Databases.Handle h = Databases.open(jdbc, null, null, 4)) {
            DataSource ds = h.dataSource();
            Migrations.migrate(ds);
            // plain tables: the rename variant renames no partitions
            EntitySpec live = WriterBenchmark.spec(false).toBuilder().name(TABLE).table(TABLE).build();
            exec(ds, "DROP TABLE IF EXISTS " + TABLE + " CASCADE", "DROP TABLE IF EXISTS " + TABLE + "_events CASCADE");
            dropLeftovers(ds);
            EntityTables.ensure(ds, live);
            long t0 = System.nanoTime();
            fill(ds, live, rows, keys);
            exec(ds, "VACUUM ANALYZE " + TABLE, "VACUUM ANALYZE " + TABLE + "_events");
            System.out.printf(Locale.ROOT, "setup: %,d versions of %,d keys written by the writer in %.1f s; table %s, memory %s%n",
                    count(ds, TABLE), keys, (System.nanoTime() - t0) / 1e9, size(ds, TABLE), size(ds, TABLE + "_events"));
            boolean checkpoint = checkpoint(ds);
            System.out.println(checkpoint ? "CHECKPOINT before each measurement" : "no CHECKPOINT (the role may not): WAL of one "
                    + "measurement may still be written during the next");

            double[] rename = new double[runs];
            double[] exchange = new double[runs];
            double[] steps = new double[runs];
            double[] deleted = new double[runs];
            double[] rebuilt = new double[runs];
            long job = 1;
            for (int run = 0; run < runs; run++) {
                rename[run] = measure(ds, live, job++, checkpoint, (c, shadow, j) -> renameSwap(c, live, shadow, j));
                exchange[run] = measure(ds, live, job++, checkpoint, (c, shadow, j) -> ShadowTables.swap(c, new Scd2Writer(ds), live, shadow, j));
                Map<String, Double> parts = new LinkedHashMap<>();
                steps[run] = measure(ds, live, job++, checkpoint, (c, shadow, j) -> exchangeBySteps(c, live, shadow, j, Refill.TRUNCATE, parts));
                Map<String, Double> dparts = new LinkedHashMap<>();
                if (delete) {
                    deleted[run] = measure(ds, live, job++, checkpoint, (c, shadow, j) -> exchangeBySteps(c, live, shadow, j, Refill.DELETE, dparts));
                }
                Map<String, Double> rparts = new LinkedHashMap<>();
                if (rebuild) {
                    rebuilt[run] = measure(ds, live, job++, checkpoint, (c, shadow, j) -> exchangeBySteps(c, live, shadow, j, Refill.REBUILD, rparts));
                }
                System.out.printf(Locale.ROOT, "  run %d: rename %.3f s, exchange %.3f s, exchange by steps %.3f s %s%s%s%n", run + 1,
                        rename[run], exchange[run], steps[run], format(parts),
                        delete ? String.format(Locale.ROOT, ", with DELETE %.3f s %s", deleted[run], format(dparts)) : "",
                        rebuild ? String.format(Locale.ROOT, ", indexes rebuilt %.3f s %s", rebuilt[run], format(rparts)) : "");
            }
            System.out.printf(Locale.ROOT, "lock time, median of %d: rename %.3f s, exchange %.3f s, exchange by steps %.3f s%s%s%n", runs,
                    WriterBenchmark.median(rename), WriterBenchmark.median(exchange), WriterBenchmark.median(steps),
                    delete ? String.format(Locale.ROOT, ", with DELETE %.3f s", WriterBenchmark.median(deleted)) : "",
                    rebuild ? String.format(Locale.ROOT, ", indexes rebuilt %.3f s", WriterBenchmark.median(rebuilt)) : "");
            double[] ratio = new double[runs];
            for (int i = 0; i < runs; i++) {
                ratio[i] = exchange[i] / rename[i];
            }
            System.out.printf(Locale.ROOT, "exchange / rename, median of the runs' ratios: %.1fx (runs: %s)%n", WriterBenchmark.median(ratio),
                    Arrays.stream(ratio).mapToObj(x -> String.format(Locale.ROOT, "%.1f", x)).toList());
            dropLeftovers(ds);
        }
    }

    /** How the exchange by steps empties and refills the live table. */
    private enum Refill {
        /** TRUNCATE, INSERT into the indexed table (what ShadowTables does). */
        TRUNCATE,
        /** DELETE FROM (MVCC-safe), INSERT into the indexed table. */
        DELETE,
        /** TRUNCATE, the indexes and the primary key dropped, INSERT, then built again (their OIDs change). */
        REBUILD
    }

    @FunctionalInterface
    private interface Swap {
        void run(Connection c, EntitySpec shadow, long job) throws SQLException;
    }

    /** A fresh shadow of the live table's versions and memory (untimed), then the swap in one transaction, timed to its commit. */
    private static double measure(DataSource ds, EntitySpec live, long job, boolean checkpoint, Swap swap) throws SQLException {
        EntitySpec shadow = ShadowTables.shadowSpec(live, job);
        ShadowTables.create(ds, shadow);
        List<String> cols = columns(ds, TABLE);
        exec(ds, "INSERT INTO " + shadow.table() + " (" + Sql.list(cols) + ") SELECT " + Sql.list(cols) + " FROM " + TABLE,
                "INSERT INTO " + shadow.memoryTable() + " SELECT * FROM " + live.memoryTable(),
                "VACUUM ANALYZE " + shadow.table(), "VACUUM ANALYZE " + shadow.memoryTable());
        if (checkpoint) {
            checkpoint(ds);
        }
        double s;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long t = System.nanoTime();
            swap.run(c, shadow, job);
            c.commit();
            s = (System.nanoTime() - t) / 1e9;
        }
        dropLeftovers(ds);
        exec(ds, "VACUUM ANALYZE " + TABLE);
        return s;
    }

    /**
     * The swap as it was before the exchange (plain tables): lock, the merge's anti-join (nothing to
     * merge), the renames of the tables, their indexes and check, the view and function made again.
     */
    private static void renameSwap(Connection c, EntitySpec live, EntitySpec shadow, long job) throws SQLException {
        String retired = ShadowTables.retiredTable(live, job);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL TimeZone = 'UTC'");
            s.execute("LOCK TABLE " + Sql.table(live.memoryTable()) + ", " + Sql.table(live.table()) + " IN ACCESS EXCLUSIVE MODE");
            mergeProbe(s, live, shadow);
            for (String[] r : List.of(new String[] {live.table(), retired}, new String[] {live.memoryTable(), retired + "_events"},
                    new String[] {shadow.table(), live.table()}, new String[] {shadow.memoryTable(), live.memoryTable()})) {
                s.execute("ALTER TABLE " + r[0] + " RENAME TO " + r[1]);
                for (String ix : List.of("_pkey", "_one_open")) {
                    s.execute("ALTER INDEX IF EXISTS " + r[0] + ix + " RENAME TO " + r[1] + ix);
                }
                if (!r[0].endsWith("_events")) {
                    s.execute("ALTER TABLE " + r[1] + " RENAME CONSTRAINT " + r[0] + "_valid_range TO " + r[1] + "_valid_range");
                }
            }
            // the function returns the replaced table's rows: dropped, and made again with the view
            s.execute("DROP FUNCTION " + live.asOfFunction() + "(timestamptz)");
        }
        EntityTables.viewAndFunction(c, live);
    }

    /** The exchange's statements, each timed into {@code parts}, refilling the live table as {@code refill} says. */
    private static void exchangeBySteps(Connection c, EntitySpec live, EntitySpec shadow, long job, Refill refill, Map<String, Double> parts)
            throws SQLException {
        String retired = ShadowTables.retiredTable(live, job);
        List<String> cols = new ArrayList<>(columns(c, TABLE));
        List<String[]> indexes = refill == Refill.REBUILD ? indexes(c) : List.of();
        try (Statement s = c.createStatement()) {
            timed(parts, "lock", () -> {
                s.execute("SET LOCAL TimeZone = 'UTC'");
                s.execute("LOCK TABLE " + Sql.table(live.memoryTable()) + ", " + Sql.table(live.table()) + " IN ACCESS EXCLUSIVE MODE");
            });
            timed(parts, "merge probe", () -> mergeProbe(s, live, shadow));
            timed(parts, "copy to retired", () -> s.execute("CREATE TABLE " + retired + " AS TABLE " + TABLE));
            timed(parts, refill == Refill.DELETE ? "delete" : "truncate", () -> s.execute((refill == Refill.DELETE ? "DELETE FROM " : "TRUNCATE ")
                    + TABLE));
            timed(parts, "drop indexes", () -> {
                for (String[] ix : indexes) {
                    s.execute(ix[1] == null ? "DROP INDEX " + ix[0] : "ALTER TABLE " + TABLE + " DROP CONSTRAINT " + ix[1]);
                }
            });
            timed(parts, "insert", () -> s.execute("INSERT INTO " + TABLE + " (" + Sql.list(cols) + ") SELECT " + Sql.list(cols) + " FROM "
                    + shadow.table()));
            timed(parts, "build indexes", () -> {
                for (String[] ix : indexes) {
                    s.execute(ix[1] == null ? ix[2] : "ALTER TABLE " + TABLE + " ADD CONSTRAINT " + ix[1] + " " + ix[2]);
                }
            });
            timed(parts, "drop shadow, memories", () -> {
                s.execute("DROP TABLE " + shadow.table());
                s.execute("ALTER TABLE " + live.memoryTable() + " RENAME TO " + retired + "_events");
                s.execute("ALTER INDEX " + live.memoryTable() + "_pkey RENAME TO " + retired + "_events_pkey");
                s.execute("ALTER TABLE " + shadow.memoryTable() + " RENAME TO " + live.memoryTable());
                s.execute("ALTER INDEX " + shadow.memoryTable() + "_pkey RENAME TO " + live.memoryTable() + "_pkey");
            });
        }
        long t = System.nanoTime();
        c.commit();
        parts.merge("commit", (System.nanoTime() - t) / 1e9, Double::sum);
    }

    /** The live table's indexes: name, the constraint it backs (or null), and the DDL that makes it again. */
    private static List<String[]> indexes(Connection c) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT i.indexrelid::regclass::text, k.conname, "
                + "coalesce(pg_get_constraintdef(k.oid), pg_get_indexdef(i.indexrelid)) FROM pg_index i LEFT JOIN pg_constraint k "
                + "ON k.conindid = i.indexrelid AND k.conrelid = i.indrelid WHERE i.indrelid = '" + TABLE + "'::regclass")) {
            while (rs.next()) {
                out.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
            }
        }
        return out;
    }

    /** The swap's merge query over the live memory and the shadow's (ShadowTables), counted: nothing is missing here. */
    private static void mergeProbe(Statement s, EntitySpec live, EntitySpec shadow) throws SQLException {
        String content = "(%1$s.is_deleted, %1$s.record_hash, %1$s.last_login)";
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + EventMemory.eventsSql(live) + " x WHERE NOT EXISTS (SELECT 1 FROM "
                + EventMemory.eventsSql(shadow) + " y WHERE y.customer_id = x.customer_id AND y.event_time = x.event_time AND "
                + String.format(content, "y") + " IS NOT DISTINCT FROM " + String.format(content, "x") + ")")) {
            rs.next();
            if (rs.getLong(1) != 0) {
                throw new IllegalStateException(rs.getLong(1) + " live events missing from the shadow, expected none");
            }
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws SQLException;
    }

    private static void timed(Map<String, Double> parts, String name, Step step) throws SQLException {
        long t = System.nanoTime();
        step.run();
        parts.merge(name, (System.nanoTime() - t) / 1e9, Double::sum);
    }

    private static String format(Map<String, Double> parts) {
        List<String> out = new ArrayList<>();
        parts.forEach((k, v) -> out.add(String.format(Locale.ROOT, "%s %.3f", k, v)));
        return "(" + String.join(", ", out) + ")";
    }

    /** {@code rows} versions over {@code keys} keys: each key's first version, then rounds of tracked changes, through the writer. */
    private static void fill(DataSource ds, EntitySpec spec, int rows, int keys) throws SQLException {
        BenchWriter writer = new BenchWriter(ds, new Scd2Writer(ds));
        Random rnd = new Random(42);
        long seq = 0;
        int rounds = Math.max(1, rows / keys);
        for (int round = 0; round < rounds; round++) {
            for (int from = 0; from < keys; from += 100_000) {
                List<Event> batch = new ArrayList<>();
                for (int k = from; k < Math.min(keys, from + 100_000); k++) {
                    batch.add(WriterBenchmark.event(k, WriterBenchmark.BASE, round, rnd, ++seq));
                }
                writer.apply(spec, batch, 2);
            }
        }
    }

    private static void dropLeftovers(DataSource ds) throws SQLException {
        List<String> drop = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT relname FROM pg_class WHERE relkind IN "
                + "('r', 'p') AND (relname LIKE ? OR relname LIKE ?) AND NOT relispartition")) {
            p.setString(1, TABLE + "\\_shadow\\_%");
            p.setString(2, TABLE + "\\_replaced\\_%");
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    drop.add("DROP TABLE IF EXISTS " + Sql.ident(rs.getString(1)));
                }
            }
        }
        exec(ds, drop.toArray(String[]::new));
    }

    private static List<String> columns(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return columns(c, table);
        }
    }

    private static List<String> columns(Connection c, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 "
                + "AND NOT attisdropped AND attgenerated = '' ORDER BY attnum")) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static long count(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String size(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT pg_size_pretty(coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('" + table + "')), "
                        + "pg_total_relation_size('" + table + "')))")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** CHECKPOINT; false when the role may not (then never again). */
    private static boolean checkpoint(DataSource ds) {
        try {
            exec(ds, "CHECKPOINT");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private static void exec(DataSource ds, String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
