package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The {@code load} benchmark of the writer (not a test): a table of N existing current rows, then
 * batches of changes (close + insert) applied by the writer, on one connection and on parallel
 * connections, next to peers measured in the same run on the same table, each with a change set
 * of the same shape (distinct existing keys, every one a tracked change, in order):
 * <ul>
 *   <li>ceiling: COPY of 2 x batch rows (the rows a batch of changes writes) into the same
 *       indexed table, removed again afterwards;</li>
 *   <li>bare ({@link Peers.Bare}): the set-based close + insert PostgreSQL needs anyway (COPY into
 *       a staging table, {@code UPDATE ... FROM}, {@code INSERT ... SELECT}), on the same table;</li>
 *   <li>dbt ({@link Peers.Dbt}): the SQL of a dbt snapshot (check strategy, check_cols all) on a
 *       snapshot table holding the same versions and a source table holding the current rows
 *       after the changes, both copied from the writer's table just before (untimed), for
 *       {@code hard_deletes} ignore and invalidate ({@code --dbt-hard-deletes ignore,invalidate},
 *       {@code --dbt false} skips it, {@code --dbt-indexes true} indexes the snapshot table);</li>
 *   <li>naive: a statement pair per change (UPDATE close + INSERT), one commit per batch.</li>
 * </ul>
 * Each ratio is taken within one run (same table, same minutes), then the median over runs
 * ({@link WriterRuns} measures and reports them).
 * {@code --growth 1000000,10000000} measures instead how cost grows with the table ({@link Growth}).
 * Usage: {@code e2e/bench.sh WriterBenchmark --jdbc URL --rows 1000000 --batches 10000,100000 --runs 5 --parallel 2}
 * (docs/benchmarks.md).
 * {@code --transaction-time false} creates the table without transaction time (the entity option
 * {@code transaction-time: false}; default true, as in config; {@link TransactionTimeBenchmark}
 * compares both in one run).
 * {@code --surrogate-index true} creates the table with the unique index on surrogate_key
 * ({@code surrogate-key-index: true}), {@code --exclusion true} adds a GiST exclusion constraint
 * against overlapping ranges, {@code --naive false} skips the slow row-at-a-time peer.
 * {@code --shuffle-heap true} writes the set-up's rows again in random order, as in a table whose
 * keys all changed once in a change feed (the set-up writes them in key order).
 * Experiments, not product settings: {@code --fillfactor N} sets the table's fillfactor before the
 * load, {@code --one-open-index false} drops the one-open-row index (with no index naming
 * {@code valid_to}, a close can be a HOT update), {@code --open-check trigger} keeps one open
 * version per key by a statement trigger instead, {@code --layout open-partition} makes the table
 * list-partitioned by openness (docs/benchmarks.md, "The close's table layout, measured"), {@code --partitions N} sets the entity's {@code table-partitions: N} (the
 * table and its event memory created hash-partitioned by the key into N partitions), and with it
 * {@code --parent-stats false} analyzes only the partitions, never the parent, as autovacuum does.
 */
public final class WriterBenchmark {

    static final Instant BASE = Instant.parse("2025-01-01T00:00:00Z");
    private static final String[] COUNTRIES = {"DE", "FR", "US", "JP", "BR", "IN", "NG", "SE"};
    private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};

    public static void main(String[] args) throws Exception {
        Map<String, String> a = parseArgs(args);
        if (a.containsKey("replot")) {
            Growth.replot(a);
            return;
        }
        Settings s = Settings.of(a);
        try (Databases.Handle h = Databases.open(s.jdbc(), null, null, s.parallel() + 2)) {
            DataSource ds = h.dataSource();
            EntitySpec spec = createTable(ds, a);
            BenchWriter writer = new BenchWriter(ds, new Scd2Writer(ds, s.workMem()));
            Random rnd = new Random(42);
            if (a.containsKey("growth")) {
                Growth.run(a, ds, spec, writer, rnd, s.parallel(), s.runs());
                return;
            }
            writeCurrentRows(ds, spec, writer, rnd, s);
            if ("true".equals(a.get("shuffle-heap"))) {
                shuffleHeap(ds, spec, s.parentStats());
            }
            new WriterRuns(s, ds, spec, writer, rnd).all();
        }
    }

    /** The settings of a run from the command line (the class comment names them). */
    record Settings(String jdbc, int rows, int runs, int parallel, List<Integer> batches, boolean naive, boolean dbt,
                    boolean dbtIndexes, List<String> dbtModes, String workMem, boolean parentStats) {

        static Settings of(Map<String, String> a) {
            return new Settings(
                    a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres"),
                    Integer.parseInt(a.getOrDefault("rows", "1000000")),
                    Integer.parseInt(a.getOrDefault("runs", "3")),
                    Integer.parseInt(a.getOrDefault("parallel", "2")),
                    Arrays.stream(a.getOrDefault("batches", "10000,100000").split(",")).map(Integer::parseInt).toList(),
                    !"false".equals(a.get("naive")),
                    !"false".equals(a.get("dbt")),
                    "true".equals(a.get("dbt-indexes")),
                    Arrays.asList(a.getOrDefault("dbt-hard-deletes", "ignore,invalidate").split(",")),
                    a.getOrDefault("work-mem", "64MB"),
                    !"false".equals(a.get("parent-stats")));
        }
    }

    /**
     * The entity's tables created afresh (after the migrations), with the experiments' changes to
     * them: {@code --fillfactor}, {@code --one-open-index false}, {@code --exclusion true}.
     */
    private static EntitySpec createTable(DataSource ds, Map<String, String> a) throws SQLException {
        Migrations.migrate(ds);
        // the entity's surrogate-key-index (default false, as in config)
        // --partitions N: the entity's table-partitions (its tables created hash-partitioned by the key)
        // --transaction-time false: the entity's transaction-time (default true)
        EntitySpec spec = spec("true".equals(a.get("surrogate-index"))).toBuilder()
                .tablePartitions(Integer.parseInt(a.getOrDefault("partitions", "0")))
                .transactionTime(!"false".equals(a.get("transaction-time"))).build();
        dropTables(ds, spec);
        EntityTables.ensure(ds, spec);
        if (a.containsKey("fillfactor")) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("ALTER TABLE bench_customer SET (fillfactor = " + Integer.parseInt(a.get("fillfactor")) + ")");
            }
        }
        if ("false".equals(a.get("one-open-index"))) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP INDEX bench_customer_one_open");
            }
        }
        if ("trigger".equals(a.get("open-check"))) {
            openCheckTrigger(ds);
        }
        if ("open-partition".equals(a.get("layout"))) {
            openPartitionLayout(ds);
        }
        if ("true".equals(a.get("exclusion"))) {
            // the overlap-preventing constraint docs/benchmarks.md weighs: measure its cost
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE EXTENSION IF NOT EXISTS btree_gist");
                st.execute("ALTER TABLE bench_customer ADD CONSTRAINT bench_customer_no_overlap EXCLUDE USING gist "
                        + "(customer_id WITH =, tstzrange(valid_from, valid_to) WITH &&)");
            }
        }
        return spec;
    }

    /**
     * Experiment {@code --open-check trigger} (issue 33; with {@code --one-open-index false}): one
     * open version per key kept by a statement-level trigger instead of the partial unique index.
     * After every INSERT, each inserted row's key is checked with two probes of the primary key:
     * the version before the row is closed, and an open row is its key's newest. By induction
     * (the check holds after every statement that inserts), a key never has two open versions; an
     * UPDATE that opens a row again would need the same check (not measured: the benchmark's
     * changes never reopen).
     */
    private static void openCheckTrigger(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE FUNCTION bench_customer_one_open() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE k text; BEGIN "
                    + "SELECT n.customer_id INTO k FROM bench_new n WHERE "
                    + "coalesce((SELECT t.valid_to IS NULL FROM bench_customer t WHERE t.customer_id = n.customer_id AND t.valid_from < n.valid_from "
                    + "ORDER BY t.valid_from DESC LIMIT 1), false) "
                    + "OR (n.valid_to IS NULL AND EXISTS (SELECT 1 FROM bench_customer t WHERE t.customer_id = n.customer_id AND t.valid_from > n.valid_from)) "
                    + "LIMIT 1; "
                    + "IF FOUND THEN RAISE EXCEPTION 'two open versions of key %', k USING ERRCODE = '23505'; END IF; RETURN NULL; END $$");
            st.execute("CREATE TRIGGER bench_customer_one_open AFTER INSERT ON bench_customer REFERENCING NEW TABLE AS bench_new "
                    + "FOR EACH STATEMENT EXECUTE FUNCTION bench_customer_one_open()");
        }
    }

    /**
     * Experiment {@code --layout open-partition} (issue 33): the entity table made again, the same
     * columns, list-partitioned by openness ({@code valid_to IS NULL}) into {@code bench_customer_open}
     * (primary key: the business key alone, so one open version per key is still a unique index, on
     * a table as big as the key count) and {@code bench_customer_closed} (primary key: key and
     * valid_from). A close moves the row from one partition to the other (PostgreSQL's DELETE and
     * INSERT); no index names valid_to. The view and the as-of function are dropped with the plain
     * table (the writer does not read them).
     */
    private static void openPartitionLayout(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER TABLE bench_customer RENAME TO bench_customer_plain");
            st.execute("CREATE TABLE bench_customer (LIKE bench_customer_plain INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS) "
                    + "PARTITION BY LIST ((valid_to IS NULL))");
            st.execute("CREATE TABLE bench_customer_open PARTITION OF bench_customer FOR VALUES IN (true)");
            st.execute("CREATE TABLE bench_customer_closed PARTITION OF bench_customer FOR VALUES IN (false)");
            st.execute("ALTER TABLE bench_customer_open ADD CONSTRAINT bench_customer_open_pkey PRIMARY KEY (customer_id)");
            st.execute("ALTER TABLE bench_customer_closed ADD CONSTRAINT bench_customer_closed_pkey PRIMARY KEY (customer_id, valid_from)");
            st.execute("DROP TABLE bench_customer_plain CASCADE");
        }
    }

    /**
     * {@code --shuffle-heap true}: the set-up's rows written again in random order, so a key's
     * open version is on a page of its own, as in a table whose rows all changed at least once
     * in a change feed, rather than next to the keys around it (the writer writes a batch in key
     * order, and batches of the benchmark's changes, sorted by key, would otherwise read and
     * write the pages in order).
     */
    private static void shuffleHeap(DataSource ds, EntitySpec spec, boolean parentStats) throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT column_name FROM information_schema.columns WHERE table_name = 'bench_customer' "
                    + "AND table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY ordinal_position")) {
                while (rs.next()) {
                    cols.add(rs.getString(1));
                }
            }
            String list = String.join(", ", cols);
            st.execute("CREATE TEMP TABLE bench_shuffle AS SELECT " + list + " FROM bench_customer ORDER BY random()");
            st.execute("TRUNCATE bench_customer");
            st.execute("INSERT INTO bench_customer (" + list + ") SELECT " + list + " FROM bench_shuffle");
            st.execute("DROP TABLE bench_shuffle");
        }
        vacuum(ds, spec, parentStats);
        System.out.printf(Locale.ROOT, "heap shuffled in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /** The set-up: {@code --rows} current rows written by the writer, then vacuumed; prints its time. */
    private static void writeCurrentRows(DataSource ds, EntitySpec spec, BenchWriter writer, Random rnd, Settings s)
            throws SQLException {
        int rows = s.rows();
        long t0 = System.nanoTime();
        for (int from = 0; from < rows; from += 100_000) {
            List<Event> batch = new ArrayList<>();
            for (int i = from; i < Math.min(rows, from + 100_000); i++) {
                batch.add(event(i, BASE, 0, rnd, i));
            }
            writer.apply(spec, batch, s.parallel());
        }
        vacuum(ds, spec, s.parentStats());
        double setupS = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "setup: %,d current rows written by the writer in %.1f s (%,.0f rows/s, %d connections)%n",
                rows, setupS, rows / setupS, s.parallel());
    }

    static List<Event> events(int[] keys, Instant base, int round, Random rnd, long seq) {
        List<Event> batch = new ArrayList<>(keys.length);
        for (int i = 0; i < keys.length; i++) {
            batch.add(event(keys[i], base, round, rnd, seq + i));
        }
        return batch;
    }

    static EntitySpec spec(boolean surrogateKeyIndex) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("customer_id", ColumnType.TEXT);
        for (String c : List.of("email", "full_name", "country", "city", "loyalty_tier")) {
            cols.put(c, ColumnType.TEXT);
        }
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name("bench_customer")
                .table("bench_customer")
                .key(List.of("customer_id"))
                .tracked(List.of("email", "full_name", "country", "city", "loyalty_tier"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .surrogateKeyIndex(surrogateKeyIndex)
                .build();
    }

    static Event event(int key, Instant base, int round, Random rnd, long seq) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("customer_id", String.format(Locale.ROOT, "C%08d", key));
        d.put("email", "user" + key + "." + round + "@example.com");
        d.put("full_name", "Customer " + key);
        d.put("country", COUNTRIES[rnd.nextInt(COUNTRIES.length)]);
        d.put("city", "City " + rnd.nextInt(1000));
        d.put("loyalty_tier", TIERS[rnd.nextInt(TIERS.length)]);
        d.put("last_login", 1_700_000_000L + rnd.nextInt(10_000_000));
        return Event.upsert(base.plusSeconds(3600L * round), d, seq, Source.kafka("bench", 0, seq));
    }

    static int[] keys(Random rnd, int rows, int n) {
        // n distinct existing keys
        int start = rnd.nextInt(rows);
        int step = 7919;
        int[] k = new int[n];
        for (int i = 0; i < n; i++) {
            k[i] = (int) ((start + (long) i * step) % rows);
        }
        return k;
    }

    static double timeApply(BenchWriter w, EntitySpec spec, int[] keys, Instant base, int round, Random rnd, long seq, int parallel)
            throws SQLException {
        List<Event> batch = new ArrayList<>(keys.length);
        for (int i = 0; i < keys.length; i++) {
            batch.add(event(keys[i], base, round, rnd, seq + i));
        }
        long t = System.nanoTime();
        ApplyResult r = w.apply(spec, batch, parallel);
        double s = (System.nanoTime() - t) / 1e9;
        if (r.changed() != keys.length || r.rowsInserted() != keys.length || r.rowsUpdated() != keys.length) {
            throw new IllegalStateException("benchmark batch did not do " + keys.length + " changes: " + r);
        }
        return s;
    }

    /** COPY 2n new rows (fresh keys) into the indexed table, timed; then removed, untimed. */
    static double copyCeiling(DataSource ds, EntitySpec spec, int n, int round) throws SQLException {
        StringBuilder sb = new StringBuilder();
        String hash = "\\\\x" + RecordHash.hex(new byte[32]);
        for (int i = 0; i < 2 * n; i++) {
            sb.append("ceil-").append(round).append('-').append(i).append('\t')
                    .append("user").append(i).append("@example.com\tCustomer ").append(i).append("\tDE\tCity 1\tgold\t1700000000\t")
                    .append(-(long) round * 10_000_000L - i).append("\t2025-01-01T00:00:00Z\t\\N\tf\t").append(hash)
                    .append("\tbench\t0\t").append(i).append('\n');
        }
        byte[] data = sb.toString().getBytes(StandardCharsets.UTF_8);
        double s;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long t = System.nanoTime();
            c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY bench_customer (customer_id, email, full_name, country, city, "
                    + "loyalty_tier, last_login, surrogate_key, valid_from, valid_to, is_deleted, record_hash, source_topic, "
                    + "source_partition, source_offset) FROM STDIN", new ByteArrayInputStream(data));
            c.commit();
            s = (System.nanoTime() - t) / 1e9;
            try (Statement st = c.createStatement()) {
                st.executeUpdate("DELETE FROM bench_customer WHERE customer_id LIKE 'ceil-%'");
            }
            c.commit();
        } catch (IOException e) {
            throw new SQLException(e);
        }
        return s; // seconds to write the 2n rows that n changes write
    }

    /** A statement pair per change on one connection, one commit. */
    static double naive(DataSource ds, EntitySpec spec, int[] keys, Instant base, int round, Random rnd) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            Instant t = base.plusSeconds(3600L * round);
            long start = System.nanoTime();
            try (PreparedStatement close = c.prepareStatement(
                    "UPDATE bench_customer SET valid_to = ? WHERE customer_id = ? AND valid_to IS NULL AND record_hash IS DISTINCT FROM ?");
                 PreparedStatement ins = c.prepareStatement("INSERT INTO bench_customer (customer_id, email, full_name, country, city, "
                         + "loyalty_tier, last_login, surrogate_key, valid_from, valid_to, is_deleted, record_hash) "
                         + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, false, ?)")) {
                Timestamp ts = Timestamp.from(t);
                for (int k : keys) {
                    Event e = event(k, base, round, rnd, 0);
                    byte[] h = RecordHash.of(List.of((String) e.data().get("email"), (String) e.data().get("full_name"),
                            (String) e.data().get("country"), (String) e.data().get("city"), (String) e.data().get("loyalty_tier")));
                    close.setTimestamp(1, ts);
                    close.setString(2, (String) e.data().get("customer_id"));
                    close.setBytes(3, h);
                    close.executeUpdate();
                    ins.setString(1, (String) e.data().get("customer_id"));
                    ins.setString(2, (String) e.data().get("email"));
                    ins.setString(3, (String) e.data().get("full_name"));
                    ins.setString(4, (String) e.data().get("country"));
                    ins.setString(5, (String) e.data().get("city"));
                    ins.setString(6, (String) e.data().get("loyalty_tier"));
                    ins.setLong(7, (Long) e.data().get("last_login"));
                    ins.setLong(8, ((long) round << 32) | k);
                    ins.setTimestamp(9, ts);
                    ins.setBytes(10, h);
                    ins.executeUpdate();
                }
            }
            c.commit();
            return (System.nanoTime() - start) / 1e9;
        }
    }

    static void checkpoint(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        }
    }

    static void vacuum(DataSource ds, EntitySpec spec) throws SQLException {
        vacuum(ds, spec, true);
    }

    /**
     * @param parentStats false (experiment, {@code --parent-stats false}): a partitioned table's
     *                    partitions are vacuumed and analyzed one by one and its parent never, as
     *                    autovacuum does, so the planner has no statistics of the parent; true:
     *                    {@code VACUUM ANALYZE} of the parent, which also gathers them
     */
    static void vacuum(DataSource ds, EntitySpec spec, boolean parentStats) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String t : List.of("bench_customer", "bench_customer_events")) {
                if (parentStats || !spec.partitioned()) {
                    s.execute("VACUUM ANALYZE " + t);
                    continue;
                }
                List<String> leaves = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT relid::text FROM pg_partition_tree('" + t + "') WHERE isleaf")) {
                    while (rs.next()) {
                        leaves.add(rs.getString(1));
                    }
                }
                for (String leaf : leaves) {
                    s.execute("VACUUM ANALYZE " + leaf);
                }
            }
            s.execute("CHECKPOINT");
        }
    }

    static void dropTables(DataSource ds, EntitySpec spec) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_customer CASCADE");
            s.execute("DROP TABLE IF EXISTS bench_customer_events CASCADE");
            s.execute("DROP TABLE IF EXISTS bench_customer_superseded CASCADE");
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Median seconds, changes/s, and the median over runs of (ceiling seconds / these seconds). */
    static void report(int batch, String method, double[] secs, double[] ceil) {
        double med = median(secs);
        double[] r = new double[secs.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = ceil[i] / secs[i];
        }
        System.out.printf(Locale.ROOT, "%-10s %-44s %10.3f %12.0f %11.2fx%n", String.format(Locale.ROOT, "%,d", batch), method, med,
                batch / med, median(r));
    }

    /** The median over runs of (reference seconds / these seconds) = this method's speed as a multiple of the reference. */
    static void ratio(int batch, String what, double[] ref, double[] secs) {
        double[] r = new double[secs.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = ref[i] / secs[i];
        }
        double[] s = r.clone();
        Arrays.sort(s);
        System.out.printf(Locale.ROOT, "%-10s ratio %-38s median %.2fx (runs: %s)%n", String.format(Locale.ROOT, "%,d", batch), what,
                median(r), Arrays.stream(s).mapToObj(x -> String.format(Locale.ROOT, "%.2f", x)).toList());
    }

    static Map<String, String> parseArgs(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value, got " + args[i]);
            }
            m.put(args[i].substring(2), args[i + 1]);
        }
        return m;
    }
}
