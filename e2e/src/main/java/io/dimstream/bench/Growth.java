package io.dimstream.bench;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;

/**
 * "How cost grows" ({@code WriterBenchmark --growth 1000000,10000000}): the table is grown through
 * the writer to each size in versions (a share {@code --history} of the keys, 0.3 by default, with
 * a second version), and at each size the writer (one and {@code --parallel} connections), the bare
 * close + insert and the COPY ceiling apply {@code --batch}-change batches (100,000 by default),
 * warm, and with {@code --cold true} also after the OS page cache was dropped. Each measured batch
 * is undone afterwards, untimed (its versions deleted, the versions it closed reopened, its event
 * memory rows deleted), so every run of a size sees the same table. Writes an SVG of changes/s
 * against table size ({@code --plot}, default {@code docs/benchmarks-growth.svg}) and the run's points
 * beside it ({@code .tsv}); {@code --plot-with A.tsv,B.tsv} draws earlier runs' points in the same plot,
 * {@code --replot A.tsv,B.tsv} draws only those (nothing measured).
 */
final class Growth {

    private final DataSource ds;
    private final EntitySpec spec;
    private final BenchWriter writer;
    private final Random rnd;
    private final int parallel;
    private final int runs;
    /** Changes per measured batch ({@code --batch}). */
    private final int b;
    private final String workMem;
    private final Instant base = WriterBenchmark.BASE;
    /** Keys in the table so far. */
    private int keys = 0;
    private int round = 2; // 0: first versions, 1: the history versions; measured batches from 2 on
    private long seq = 0;

    private Growth(DataSource ds, EntitySpec spec, BenchWriter writer, Random rnd, int parallel, int runs, int b, String workMem) {
        this.ds = ds;
        this.spec = spec;
        this.writer = writer;
        this.rnd = rnd;
        this.parallel = parallel;
        this.runs = runs;
        this.b = b;
        this.workMem = workMem;
    }

    record Point(long versions, String variant, double changesPerSecond) {
    }

    static void run(Map<String, String> a, DataSource ds, EntitySpec spec, BenchWriter writer, Random rnd, int parallel, int runs)
            throws Exception {
        List<Long> sizes = Arrays.stream(a.get("growth").split(",")).map(Long::parseLong).sorted().toList();
        double history = Double.parseDouble(a.getOrDefault("history", "0.3"));
        int b = Integer.parseInt(a.getOrDefault("batch", "100000"));
        boolean cold = "true".equals(a.get("cold"));
        String workMem = a.getOrDefault("work-mem", "64MB");
        Path plot = Path.of(a.getOrDefault("plot", "docs/benchmarks-growth.svg"));
        List<Point> earlier = readPoints(a.get("plot-with"));
        Growth growth = new Growth(ds, spec, writer, rnd, parallel, runs, b, workMem);
        List<Point> points = new ArrayList<>();
        for (long target : sizes) {
            long versions = growth.growTo(target, history);
            for (String mode : cold ? List.of("warm", "cold") : List.of("warm")) {
                points.addAll(growth.measure(versions, mode));
            }
            writePlot(plot, points, earlier, b);
        }
    }

    /**
     * Grows the table through the writer to about {@code target} versions (a share {@code history}
     * of the new keys with a second version), vacuums it and prints its size; returns its versions.
     */
    private long growTo(long target, double history) throws SQLException {
        int k = (int) Math.round(target / (1 + history));
        if (k % 7919 == 0) {
            k++; // WriterBenchmark.keys steps by 7919: keep it coprime with the key count
        }
        long t0 = System.nanoTime();
        for (int from = keys; from < k; from += 100_000) {
            List<Event> batch = new ArrayList<>();
            for (int i = from; i < Math.min(k, from + 100_000); i++) {
                batch.add(WriterBenchmark.event(i, base, 0, rnd, seq++));
            }
            writer.apply(spec, batch, parallel);
        }
        List<Event> batch = new ArrayList<>();
        for (int i = keys; i < k; i++) {
            if (i % 100 < Math.round(history * 100)) {
                batch.add(WriterBenchmark.event(i, base, 1, rnd, seq++));
                if (batch.size() == 100_000) {
                    writer.apply(spec, batch, parallel);
                    batch = new ArrayList<>();
                }
            }
        }
        if (!batch.isEmpty()) {
            writer.apply(spec, batch, parallel);
        }
        keys = k;
        WriterBenchmark.vacuum(ds, spec);
        return stats(ds, (System.nanoTime() - t0) / 1e9);
    }

    /** The runs of one mode (warm or cold) at the table's size, their report, and the plot's points of them. */
    private List<Point> measure(long versions, String mode) throws SQLException, IOException, InterruptedException {
        boolean c = mode.equals("cold");
        double[] ceil = new double[runs];
        double[] one = new double[runs];
        double[] par = new double[runs];
        double[] bare = new double[runs];
        for (int run = 0; run < runs; run++) {
            prepare(ds, c);
            ceil[run] = WriterBenchmark.copyCeiling(ds, spec, b, round++);
            prepare(ds, c);
            int r = round++;
            one[run] = WriterBenchmark.timeApply(writer, spec, WriterBenchmark.keys(rnd, keys, b), base, r, rnd, seq, 1);
            seq += b;
            undo(ds, base.plusSeconds(3600L * r));
            prepare(ds, c);
            r = round++;
            par[run] = WriterBenchmark.timeApply(writer, spec, WriterBenchmark.keys(rnd, keys, b), base, r, rnd, seq, parallel);
            seq += b;
            undo(ds, base.plusSeconds(3600L * r));
            prepare(ds, c);
            r = round++;
            bare[run] = Peers.Bare.apply(ds, spec.name(), "bench_customer",
                    WriterBenchmark.events(WriterBenchmark.keys(rnd, keys, b), base, r, rnd, seq), workMem);
            seq += b;
            undo(ds, base.plusSeconds(3600L * r));
            WriterBenchmark.vacuum(ds, spec);
            System.out.printf(Locale.ROOT, "  %,d versions %s run %d: ceiling %.3f s, writer %.3f s, writer x%d %.3f s, bare %.3f s%n",
                    versions, mode, run + 1, ceil[run], one[run], parallel, par[run], bare[run]);
        }
        String m = " (" + mode + ")";
        WriterBenchmark.report(b, "COPY of 2 x batch rows (ceiling)" + m, ceil, ceil);
        WriterBenchmark.report(b, "writer, 1 connection" + m, one, ceil);
        WriterBenchmark.report(b, "writer, " + parallel + " connections" + m, par, ceil);
        WriterBenchmark.report(b, "bare close + insert, 1 connection" + m, bare, ceil);
        WriterBenchmark.ratio(b, "writer 1 conn / bare" + m, bare, one);
        WriterBenchmark.ratio(b, "writer " + parallel + " conn / bare" + m, bare, par);
        return List.of(new Point(versions, "COPY ceiling" + m, b / WriterBenchmark.median(ceil)),
                new Point(versions, "writer, 1 connection" + m, b / WriterBenchmark.median(one)),
                new Point(versions, "writer, " + parallel + " connections" + m, b / WriterBenchmark.median(par)),
                new Point(versions, "bare close + insert" + m, b / WriterBenchmark.median(bare)));
    }

    /**
     * Writes the plot, with the points of earlier runs ({@code --plot-with FILE.tsv,...}: sizes measured
     * on their own, e.g. a 30M table grown in a run of its own) drawn with this run's, and this run's
     * points beside it as {@code PLOT.tsv} (versions, variant, changes/s: the medians printed above).
     */
    static void writePlot(Path plot, List<Point> points, List<Point> earlier, int batch) throws IOException {
        List<Point> all = new ArrayList<>(earlier);
        all.addAll(points);
        all.sort(Comparator.comparingLong(Point::versions));
        Files.createDirectories(plot.toAbsolutePath().getParent());
        Files.writeString(plot, svg(all, batch));
        if (points.isEmpty()) {
            System.out.println("plot written: " + plot.toAbsolutePath() + " (" + all.size() + " points of earlier runs)");
            return;
        }
        StringBuilder tsv = new StringBuilder("versions\tvariant\tchanges_per_second\n");
        for (Point p : points) {
            tsv.append(p.versions()).append('\t').append(p.variant()).append('\t')
                    .append(String.format(Locale.ROOT, "%.0f", p.changesPerSecond())).append('\n');
        }
        Path tsvFile = Path.of(plot.toString().replaceFirst("\\.svg$", "") + ".tsv");
        Files.writeString(tsvFile, tsv);
        System.out.println("plot written: " + plot.toAbsolutePath() + " (" + all.size() + " points; this run's in " + tsvFile + ")");
    }

    /** The points of earlier runs' {@code .tsv} files (comma-separated paths), none when null. */
    static List<Point> readPoints(String files) throws IOException {
        List<Point> out = new ArrayList<>();
        if (files == null) {
            return out;
        }
        for (String f : files.split(",")) {
            List<String> lines = Files.readAllLines(Path.of(f.trim()));
            for (int i = 1; i < lines.size(); i++) { // line 1: the header
                String[] c = lines.get(i).split("\t");
                try {
                    out.add(new Point(Long.parseLong(c[0]), c[1], Double.parseDouble(c[2])));
                } catch (RuntimeException e) {
                    // a plot silently missing points would mislead: refuse the file, naming the line
                    throw new IllegalArgumentException(f.trim() + " line " + (i + 1) + ": not versions<TAB>variant<TAB>changes/s: "
                            + lines.get(i), e);
                }
            }
        }
        return out;
    }

    /** {@code --replot FILE.tsv,... --plot OUT.svg}: the plot of earlier runs' points only, nothing measured. */
    static void replot(Map<String, String> a) throws IOException {
        writePlot(Path.of(a.getOrDefault("plot", "docs/benchmarks-growth.svg")), List.of(), readPoints(a.get("replot")),
                Integer.parseInt(a.getOrDefault("batch", "100000")));
    }

    /** Prints the table's size and B-tree sizes; returns its versions (exact count). */
    static long stats(DataSource ds, double setupS) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM bench_customer), (SELECT count(*) FROM bench_customer WHERE valid_to IS NULL), "
                     // summed over the partitions when the table is partitioned (pg_partition_tree lists nothing for a plain table)
                     + "coalesce((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree('bench_customer')), pg_relation_size('bench_customer')), "
                     + "coalesce((SELECT sum(pg_indexes_size(relid)) FROM pg_partition_tree('bench_customer')), pg_indexes_size('bench_customer')), "
                     + "coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('bench_customer_events')), "
                     + "pg_total_relation_size('bench_customer_events'))")) {
            rs.next();
            long v = rs.getLong(1);
            System.out.printf(Locale.ROOT, "table: %,d versions, %,d keys; heap %,d MB, indexes %,d MB, event memory %,d MB (grown in %.0f s)%n",
                    v, rs.getLong(2), rs.getLong(3) >> 20, rs.getLong(4) >> 20, rs.getLong(5) >> 20, setupS);
            return v;
        }
    }

    /** A CHECKPOINT, and for a cold measurement the OS page cache dropped (needs root; PostgreSQL's own buffers stay). */
    static void prepare(DataSource ds, boolean cold) throws SQLException, IOException, InterruptedException {
        WriterBenchmark.checkpoint(ds);
        if (cold) {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
        }
    }

    /** Undoes an in-order batch applied at time t (untimed): its versions deleted, those it closed reopened, its memory rows deleted. */
    static void undo(DataSource ds, Instant t) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement del = c.prepareStatement("DELETE FROM bench_customer WHERE valid_from = ?");
                 PreparedStatement reopen = c.prepareStatement("UPDATE bench_customer SET valid_to = NULL WHERE valid_to = ?");
                 PreparedStatement mem = c.prepareStatement("DELETE FROM bench_customer_events WHERE event_time = ?")) {
                Timestamp ts = Timestamp.from(t);
                del.setTimestamp(1, ts);
                del.executeUpdate();
                reopen.setTimestamp(1, ts);
                reopen.executeUpdate();
                mem.setTimestamp(1, ts);
                mem.executeUpdate();
            }
            c.commit();
        }
    }

    private static final String[] COLORS = {"#555555", "#1f77b4", "#2ca02c", "#d62728"};

    /**
     * A line chart of changes/s against table size (log scale), one line per variant; cold
     * variants dashed. Hand-written SVG text: a few dozen elements, no plotting library needed.
     */
    static String svg(List<Point> points, int batch) {
        Map<String, List<Point>> lines = new LinkedHashMap<>();
        for (Point p : points) {
            lines.computeIfAbsent(p.variant(), x -> new ArrayList<>()).add(p);
        }
        double minX = Math.log10(points.stream().mapToLong(Point::versions).min().orElse(1));
        double maxX = Math.log10(points.stream().mapToLong(Point::versions).max().orElse(10));
        if (maxX - minX < 0.5) {
            minX -= 0.25;
            maxX += 0.25;
        }
        double maxY = points.stream().mapToDouble(Point::changesPerSecond).max().orElse(1);
        double step = SvgChart.step(maxY);
        maxY = Math.ceil(maxY / step) * step;
        SvgChart c = new SvgChart(760, 420, 70, 250, 40, 60, String.format(Locale.ROOT,
                "Changes/s of %,d-change batches against table size (WriterBenchmark --growth)", batch)).yGrid(maxY, step);
        int left = c.left;
        int top = c.top;
        double pw = c.pw;
        double ph = c.ph;
        for (long v : points.stream().map(Point::versions).distinct().toList()) {
            double px = left + (Math.log10(v) - minX) / (maxX - minX) * pw;
            c.add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>%n", px, top, px, top + ph);
            c.add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1fM</text>%n", px, top + ph + 18, v / 1e6);
        }
        c.axisLabels("versions in the table (log scale)", "changes/s");
        List<String> variants = new ArrayList<>();
        int legendY = top + 10;
        for (Map.Entry<String, List<Point>> e : lines.entrySet()) {
            boolean dashed = e.getKey().contains("cold");
            // a variant's warm and cold lines share a color, cold dashed
            String variant = e.getKey().replace(" (warm)", "").replace(" (cold)", "");
            if (!variants.contains(variant)) {
                variants.add(variant);
            }
            String color = COLORS[variants.indexOf(variant) % COLORS.length];
            StringBuilder pts = new StringBuilder();
            for (Point p : e.getValue()) {
                double px = left + (Math.log10(p.versions()) - minX) / (maxX - minX) * pw;
                double py = top + ph - p.changesPerSecond() / maxY * ph;
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                c.add("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", px, py, color);
            }
            c.add("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                    pts.toString().trim(), color, dashed ? " stroke-dasharray=\"6,4\"" : "");
            c.add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                    left + pw + 15, legendY, left + pw + 40, legendY, color, dashed ? " stroke-dasharray=\"6,4\"" : "");
            c.add("<text x=\"%.1f\" y=\"%d\">%s</text>%n", left + pw + 46, legendY + 4, e.getKey());
            legendY += 20;
        }
        return c.end();
    }
}
