package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The {@code dimstream load} benchmark (not a test; issue 16): in one run, on one table of M
 * current rows, the same N in-order changes (N distinct existing keys, each a tracked change at
 * one event time) applied three ways, each right after a {@code CHECKPOINT} and undone afterwards
 * (untimed, {@link Growth#undo}), so every measurement starts from the same table:
 * <ul>
 *   <li><b>load</b>: {@code dimstream load --config C --entity bench_customer --input changes.jsonl}
 *       run by the repository's {@code ./dimstream} launcher itself (its JVM options and packaged jars;
 *       without it, or with {@code --launcher false}, a child JVM on the harness's class path with the
 *       launcher's options for a command that ends, {@code --child-jvm-args}, by default
 *       {@value #CHILD_JVM_DEFAULT}, without the class-data archive), default settings
 *       (no {@code --batch-size}, no {@code --parallel}); timed from the process start to its exit,
 *       so JVM start, class loading, JIT, Flyway's check, parsing and the writer are all inside, as
 *       a user pays them. The same child JVM run on an empty file gives the fixed part, printed
 *       apart (not subtracted);</li>
 *   <li><b>writer</b>: {@link BenchWriter#apply} (the one apply pipeline) of the same N events (built in memory by
 *       the generator that wrote the file), one batch, on 1 connection and on load's default
 *       connection count, timed around the call only (what {@link WriterBenchmark} measures);</li>
 *   <li><b>COPY</b>: the 2N version rows the load wrote (the N it closed, the N it opened), read back
 *       from the table as binary COPY data (untimed) with the key prefixed so they are new keys,
 *       then {@code COPY ... FROM STDIN (FORMAT binary)} into an identical table (same columns,
 *       indexes and M current rows, {@code LIKE ... INCLUDING ALL}), one commit: the ceiling.</li>
 * </ul>
 * Each ratio is taken within one run, then the median over runs. Levers, each an extra load
 * measured in every run: {@code --load-batch-sizes 50000,100000} ({@code load --batch-size B} for
 * each B), {@code --load-jvm-args '-XX:TieredStopAtLevel=1;-XX:+UseParallelGC'} (JVM options, a variant per
 * {@code ;}-separated part), {@code --baseline-cp DIR}
 * (classes compiled from an older source put first on the class path, e.g. the loader before a
 * change); {@code --rotate true} measures the variants before the default load on every second
 * run; {@code --load-args '...'} adds options to every load. Usage:
 * {@code e2e/bench.sh LoadBenchmark --rows 500000 --changes 100000 --runs 3} (docs/benchmarks.md).
 */
public final class LoadBenchmark {

    /** The launcher's JVM options for {@code load} (cli/src/dist/bin/dimstream-jvm.sh), the archive aside. */
    static final String CHILD_JVM_DEFAULT = "-Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    /**
     * How a load is started: by {@code launcher} ({@code ./dimstream}), or, when it is null or a variant puts
     * classes first, by a child JVM with {@code childJvm} ({@code --child-jvm-args}; a variant's options after them).
     */
    record Starter(Path launcher, List<String> childJvm) {
    }

    /** The round of the changes ({@link WriterBenchmark#event}): their event time is base + 1 h, {@link #CHANGES_AT}. */
    private static final int ROUND = 1;
    private static final Instant CHANGES_AT = WriterBenchmark.BASE.plusSeconds(3600L * ROUND);

    public static void main(String[] args) throws Exception {
        Settings s = Settings.of(WriterBenchmark.parseArgs(args));
        Path launcher = s.starter().launcher();
        System.out.println("loads run by: " + (launcher != null ? launcher + " (its jars)" : "java -cp <the harness's class path>"));
        Path dir = Files.createTempDirectory("dimstream-load-bench");
        EntitySpec spec = WriterBenchmark.spec(false);

        try (Databases.Handle h = Databases.open(s.jdbc(), null, null, s.loadParallel() + 2)) {
            DataSource ds = h.dataSource();
            createTables(ds, spec);
            BenchWriter writer = new BenchWriter(ds, new Scd2Writer(ds));
            Random rnd = new Random(42);
            writeCurrentRows(ds, spec, writer, rnd, s.rows());
            // the change set: N distinct existing keys, in order, one event time; the file and the writer's list alike
            List<Event> changes = WriterBenchmark.events(WriterBenchmark.keys(rnd, s.rows(), s.n()), WriterBenchmark.BASE, ROUND, rnd,
                    s.rows());
            Inputs in = writeInputs(dir, changes, s);
            Times times = new Times(s.runs(), s.variants().size());
            for (int run = 0; run < s.runs(); run++) {
                measure(ds, spec, writer, changes, in, s, run, times);
                printRun(s, run, times);
            }
            printReport(s, times);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS bench_copy");
            }
        }
    }

    /** The settings of a run from the command line (the class comment names them), the load's variants among them. */
    record Settings(String jdbc, int rows, int n, int runs, int cores, int loadParallel, List<String> loadArgs, boolean rotate,
                    List<Variant> variants, Starter starter) {

        static Settings of(Map<String, String> a) {
            int cores = Runtime.getRuntime().availableProcessors();
            List<String> loadArgs = a.containsKey("load-args") ? List.of(a.get("load-args").trim().split("\\s+")) : List.of();
            Path script = Path.of("dimstream").toAbsolutePath();
            Path launcher = !"false".equals(a.get("launcher")) && Files.isExecutable(script)
                    && Files.isDirectory(Path.of("cli", "target", "lib")) ? script : null;
            return new Settings(
                    a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres"),
                    Integer.parseInt(a.getOrDefault("rows", "500000")),
                    Integer.parseInt(a.getOrDefault("changes", "100000")),
                    Integer.parseInt(a.getOrDefault("runs", "3")),
                    cores,
                    // load's default: the machine's cores, at most 4 and at most postgres.pool-size (10 here)
                    Math.max(1, Math.min(cores, 4)),
                    loadArgs,
                    "true".equals(a.get("rotate")),
                    variants(a, loadArgs),
                    new Starter(launcher, List.of(a.getOrDefault("child-jvm-args", CHILD_JVM_DEFAULT).trim().split("\\s+"))));
        }

        /** More variants of the load, each measured in every run: --batch-size B, JVM options, classes put first. */
        private static List<Variant> variants(Map<String, String> a, List<String> loadArgs) {
            List<Integer> extraBatches = a.containsKey("load-batch-sizes")
                    ? Arrays.stream(a.get("load-batch-sizes").split(",")).map(Integer::parseInt).toList() : List.of();
            List<Variant> variants = new ArrayList<>();
            for (int b : extraBatches) {
                List<String> more = new ArrayList<>(loadArgs);
                more.addAll(List.of("--batch-size", String.valueOf(b)));
                variants.add(new Variant("load --batch-size " + b, List.of(), null, more));
            }
            if (a.containsKey("load-jvm-args")) {
                // several variants separated by ';', e.g. '-XX:TieredStopAtLevel=1;-XX:+UseParallelGC'
                for (String jvm : a.get("load-jvm-args").split(";")) {
                    variants.add(new Variant("load, JVM " + jvm.trim(), List.of(jvm.trim().split("\\s+")), null, loadArgs));
                }
            }
            if (a.containsKey("baseline-cp")) {
                variants.add(new Variant("load, classes of " + a.get("baseline-cp") + " first", List.of(), a.get("baseline-cp"), loadArgs));
            }
            return variants;
        }
    }

    /** The entity's tables created afresh (after the migrations), {@code bench_copy} dropped. */
    private static void createTables(DataSource ds, EntitySpec spec) throws SQLException {
        Migrations.migrate(ds);
        WriterBenchmark.dropTables(ds, spec);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS bench_copy");
        }
        EntityTables.ensure(ds, spec);
    }

    /** The set-up: M current rows written by the writer, vacuumed, and cloned into {@code bench_copy}; prints its time. */
    private static void writeCurrentRows(DataSource ds, EntitySpec spec, BenchWriter writer, Random rnd, int rows) throws SQLException {
        long t0 = System.nanoTime();
        for (int from = 0; from < rows; from += 100_000) {
            List<Event> batch = new ArrayList<>();
            for (int i = from; i < Math.min(rows, from + 100_000); i++) {
                batch.add(WriterBenchmark.event(i, WriterBenchmark.BASE, 0, rnd, i));
            }
            writer.apply(spec, batch, 2);
        }
        WriterBenchmark.vacuum(ds, spec);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE bench_copy (LIKE bench_customer INCLUDING ALL)");
            String cols = String.join(", ", columns(ds));
            st.execute("INSERT INTO bench_copy (" + cols + ") SELECT " + cols + " FROM bench_customer");
            st.execute("VACUUM ANALYZE bench_copy");
        }
        System.out.printf(Locale.ROOT, "setup: %,d current rows in %.1f s; bench_copy cloned%n", rows, (System.nanoTime() - t0) / 1e9);
    }

    /** What a load reads: its config, the change set's file and an empty file. */
    private record Inputs(Path config, Path file, Path empty) {
    }

    /** Writes the change set's file, an empty file and the config into {@code dir}; prints the file's size. */
    private static Inputs writeInputs(Path dir, List<Event> changes, Settings s) throws IOException {
        Path file = dir.resolve("changes.jsonl");
        writeJsonl(file, changes);
        Path empty = dir.resolve("empty.jsonl");
        Files.writeString(empty, "");
        Path config = dir.resolve("dimstream.yml");
        Files.writeString(config, config(s.jdbc()));
        System.out.printf(Locale.ROOT, "file: %,d changes over %,d current rows, %,d bytes; load's default connections: %d; "
                + "cores: %d%n", s.n(), s.rows(), Files.size(file), s.loadParallel(), s.cores());
        return new Inputs(config, file, empty);
    }

    /** The seconds of each method in each run ({@code loadB}: one row per variant), and the load average after each run. */
    private record Times(double[] load, double[] fixed, double[][] loadB, double[] w1, double[] wp, double[] copy, double[] loadavg) {
        Times(int runs, int variants) {
            this(new double[runs], new double[runs], new double[variants][runs], new double[runs], new double[runs], new double[runs],
                    new double[runs]);
        }
    }

    /** One run: the load on an empty file, the default load and its variants, the writer on 1 and N connections, the COPY. */
    private static void measure(DataSource ds, EntitySpec spec, BenchWriter writer, List<Event> changes, Inputs in, Settings s,
                                int run, Times t) throws Exception {
        List<Variant> variants = s.variants();
        int n = s.n();
        t.fixed()[run] = runLoad(s.starter(), in.config(), in.empty(), DEFAULT);
        // the variants before the default load on odd runs with --rotate true: no variant always
        // finds the table and caches as the previous measurement left them
        boolean variantsFirst = s.rotate() && run % 2 == 1;
        for (int b = 0; b < variants.size() && variantsFirst; b++) {
            t.loadB()[b][run] = measureLoad(ds, spec, s.starter(), in.config(), in.file(), variants.get(b), CHANGES_AT, n);
        }
        WriterBenchmark.checkpoint(ds);
        t.load()[run] = runLoad(s.starter(), in.config(), in.file(), new Variant("load", List.of(), null, s.loadArgs()));
        byte[] versions = versionRows(ds, CHANGES_AT);
        expect(ds, CHANGES_AT, n);
        undo(ds, spec, CHANGES_AT);
        for (int b = 0; b < variants.size() && !variantsFirst; b++) {
            t.loadB()[b][run] = measureLoad(ds, spec, s.starter(), in.config(), in.file(), variants.get(b), CHANGES_AT, n);
        }
        WriterBenchmark.checkpoint(ds);
        t.w1()[run] = timeWriter(writer, spec, changes, 1);
        undo(ds, spec, CHANGES_AT);
        WriterBenchmark.checkpoint(ds);
        t.wp()[run] = timeWriter(writer, spec, changes, s.loadParallel());
        undo(ds, spec, CHANGES_AT);
        WriterBenchmark.checkpoint(ds);
        t.copy()[run] = timeCopy(ds, columns(ds), versions);
        t.loadavg()[run] = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void printRun(Settings s, int run, Times t) {
        StringBuilder more = new StringBuilder();
        for (int b = 0; b < s.variants().size(); b++) {
            more.append(String.format(Locale.ROOT, ", %s %.3f s", s.variants().get(b).label(), t.loadB()[b][run]));
        }
        System.out.printf(Locale.ROOT, "  run %d: load %.3f s (empty file %.3f s)%s, writer %.3f s, writer x%d %.3f s, "
                + "binary COPY of %,d rows %.3f s; load average %.1f%n", run + 1, t.load()[run], t.fixed()[run], more, t.w1()[run],
                s.loadParallel(), t.wp()[run], 2 * s.n(), t.copy()[run], t.loadavg()[run]);
    }

    /** Each method's median, the ratios between them, and the load averages. */
    private static void printReport(Settings s, Times t) {
        int n = s.n();
        int loadParallel = s.loadParallel();
        List<Variant> variants = s.variants();
        line("load (default settings, whole process)", n, t.load());
        line("load on an empty file (fixed part)", 0, t.fixed());
        for (int b = 0; b < variants.size(); b++) {
            line(variants.get(b).label(), n, t.loadB()[b]);
        }
        line("writer, 1 connection", n, t.w1());
        line("writer, " + loadParallel + " connections", n, t.wp());
        line("binary COPY of 2 x N version rows", n, t.copy());
        WriterBenchmark.ratio(n, "load / writer 1 conn", t.w1(), t.load());
        WriterBenchmark.ratio(n, "load / writer " + loadParallel + " conn", t.wp(), t.load());
        WriterBenchmark.ratio(n, "load / binary COPY", t.copy(), t.load());
        for (int b = 0; b < variants.size(); b++) {
            String v = variants.get(b).label();
            WriterBenchmark.ratio(n, v + " / writer 1 conn", t.w1(), t.loadB()[b]);
            WriterBenchmark.ratio(n, v + " / writer " + loadParallel, t.wp(), t.loadB()[b]);
            WriterBenchmark.ratio(n, v + " / COPY", t.copy(), t.loadB()[b]);
            WriterBenchmark.ratio(n, v + " / load", t.load(), t.loadB()[b]);
        }
        WriterBenchmark.ratio(n, "writer 1 conn / binary COPY", t.copy(), t.w1());
        System.out.printf(Locale.ROOT, "load average (1 min) after each run: %s%n", Arrays.toString(t.loadavg()));
    }

    private static void line(String what, int n, double[] secs) {
        double med = WriterBenchmark.median(secs);
        System.out.printf(Locale.ROOT, "%-44s median %8.3f s %s%n", what, med,
                n == 0 ? "" : String.format(Locale.ROOT, "%,10.0f changes/s", n / med));
    }

    static String config(String jdbc) {
        return """
                postgres:
                  url: "%s"
                entities:
                  - name: bench_customer
                    topic: bench.customers
                    table: bench_customer
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text, loyalty_tier: text, last_login: bigint}
                """.formatted(jdbc);
    }

    /** The events as native JSON lines, as a user's export would hold them. */
    static void writeJsonl(Path file, List<Event> events) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Event e : events) {
                Map<String, Object> d = e.data();
                w.write("{\"op\":\"upsert\",\"event_time\":\"" + e.eventTime() + "\",\"data\":{");
                boolean first = true;
                for (Map.Entry<String, Object> f : d.entrySet()) {
                    if (!first) {
                        w.write(',');
                    }
                    first = false;
                    w.write('"' + f.getKey() + "\":");
                    w.write(f.getValue() instanceof String s ? '"' + s + '"' : String.valueOf(f.getValue()));
                }
                w.write("}}\n");
            }
        }
    }

    /** One load after a CHECKPOINT, checked to have done the N changes, then undone (untimed). */
    private static double measureLoad(DataSource ds, EntitySpec spec, Starter starter, Path config, Path file, Variant v, Instant t, int n)
            throws Exception {
        WriterBenchmark.checkpoint(ds);
        double s = runLoad(starter, config, file, v);
        expect(ds, t, n);
        undo(ds, spec, t);
        return s;
    }

    /** A way to run the load: a label, JVM options, a class path entry put first (or null), load's own options. */
    record Variant(String label, List<String> jvmArgs, String cpFirst, List<String> args) {
    }

    private static final Variant DEFAULT = new Variant("load", List.of(), null, List.of());

    /**
     * {@code dimstream load} in a child process: {@code launcher load ...} itself (the repository's
     * {@code ./dimstream}, run from the root as {@code e2e/bench.sh} does: its JVM options and packaged jars,
     * {@code DIMSTREAM_SKIP_BUILD=1}, a variant's JVM options in {@code JAVA_OPTS}), or, when the launcher is null
     * ({@code --launcher false}, or no packaged jars) or the variant puts classes first, a JVM on the harness's
     * class path with {@code --child-jvm-args} (the launcher's options for {@code load} by default; before
     * 2026-12-03 only {@code -Xmx512m}) and {@code MALLOC_ARENA_MAX=2}; seconds from start to exit.
     */
    static double runLoad(Starter starter, Path config, Path input, Variant v) throws IOException, InterruptedException {
        Path launcher = starter.launcher();
        List<String> cmd = new ArrayList<>();
        boolean viaLauncher = launcher != null && v.cpFirst() == null;
        if (viaLauncher) {
            cmd.add(launcher.toString());
        } else {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(starter.childJvm());
            cmd.addAll(v.jvmArgs()); // after them: the JVM takes the last of an option given twice
            String cp = System.getProperty("java.class.path");
            cmd.addAll(List.of("-cp", v.cpFirst() == null ? cp : v.cpFirst() + File.pathSeparator + cp, "io.dimstream.cli.DimstreamCli"));
        }
        cmd.addAll(List.of("load", "--config", config.toString(), "--entity", "bench_customer", "--input", input.toString()));
        cmd.addAll(v.args());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (viaLauncher) {
            pb.environment().put("DIMSTREAM_SKIP_BUILD", "1");
            pb.environment().put("JAVA_OPTS", String.join(" ", v.jvmArgs()));
        } else {
            pb.environment().put("MALLOC_ARENA_MAX", "2"); // what the launcher exports
        }
        long t = System.nanoTime();
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("load failed (" + cmd + "):\n" + new String(out, StandardCharsets.UTF_8));
        }
        double s = (System.nanoTime() - t) / 1e9;
        String text = new String(out, StandardCharsets.UTF_8);
        if (text.contains("rejected") && !text.matches("(?s).*rejected\\s+0\\b.*")) {
            throw new IllegalStateException("load refused rows:\n" + text);
        }
        return s;
    }

    static double timeWriter(BenchWriter w, EntitySpec spec, List<Event> events, int parallel) throws SQLException {
        long t = System.nanoTime();
        ApplyResult r = w.apply(spec, events, parallel);
        double s = (System.nanoTime() - t) / 1e9;
        if (r.changed() != events.size() || r.rowsInserted() != events.size() || r.rowsUpdated() != events.size()) {
            throw new IllegalStateException("writer did not do " + events.size() + " changes: " + r);
        }
        return s;
    }

    /** The load did exactly N changes at t: N versions opened at t, N closed at t. */
    static void expect(DataSource ds, Instant t, int n) throws SQLException {
        try (Connection c = ds.getConnection(); var p = c.prepareStatement(
                "SELECT count(*) FILTER (WHERE valid_from = ? AND valid_to IS NULL), count(*) FILTER (WHERE valid_to = ?) FROM bench_customer")) {
            p.setObject(1, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            p.setObject(2, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (rs.getLong(1) != n || rs.getLong(2) != n) {
                    throw new IllegalStateException("expected " + n + " versions opened and closed at " + t + ", got " + rs.getLong(1)
                            + " and " + rs.getLong(2));
                }
            }
        }
    }

    /** The versions the change set wrote (closed and opened at t) as binary COPY data, keys prefixed with 'K' (new keys). */
    static byte[] versionRows(DataSource ds, Instant t) throws SQLException, IOException {
        List<String> cols = columns(ds);
        String select = String.join(", ", cols.stream().map(col -> col.equals("customer_id") ? "'K' || customer_id" : col).toList());
        String ts = "TIMESTAMPTZ '" + t + "'";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Connection c = ds.getConnection()) {
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT " + select + " FROM bench_customer WHERE valid_from = " + ts
                    + " OR valid_to = " + ts + ") TO STDOUT (FORMAT binary)", out);
        }
        return out.toByteArray();
    }

    /** bench_customer's columns but the generated ones (is_current), in order. */
    static List<String> columns(DataSource ds) throws SQLException {
        List<String> cols = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT column_name FROM information_schema.columns WHERE table_name = 'bench_customer' "
                     + "AND table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY ordinal_position")) {
            while (rs.next()) {
                cols.add(rs.getString(1));
            }
        }
        return cols;
    }

    /** Binary COPY of the version rows into bench_copy, one commit, timed; then removed and vacuumed, untimed. */
    static double timeCopy(DataSource ds, List<String> columns, byte[] data) throws SQLException, IOException {
        double s;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long t = System.nanoTime();
            c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY bench_copy (" + String.join(", ", columns) + ") FROM STDIN (FORMAT binary)",
                    new ByteArrayInputStream(data));
            c.commit();
            s = (System.nanoTime() - t) / 1e9;
            try (Statement st = c.createStatement()) {
                st.executeUpdate("DELETE FROM bench_copy WHERE customer_id LIKE 'K%'");
            }
            c.commit();
        }
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("VACUUM bench_copy");
        }
        return s;
    }

    /** Undoes the change set (untimed), then vacuums so the next measurement finds the same table. */
    static void undo(DataSource ds, EntitySpec spec, Instant t) throws SQLException {
        Growth.undo(ds, t);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("VACUUM bench_customer");
            s.execute("VACUUM bench_customer_events");
        }
    }

    private LoadBenchmark() {
    }
}
