package io.dimstream.bench;

import static io.dimstream.bench.WriterBenchmark.BASE;
import static io.dimstream.bench.WriterBenchmark.checkpoint;
import static io.dimstream.bench.WriterBenchmark.median;

import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Transaction time's cost to the writer (issue 32; not a test): two tables of the writer
 * benchmark's entity, {@code bench_tt_on} ({@code transaction-time: true}, the default) and
 * {@code bench_tt_off} ({@code transaction-time: false}: today's table exactly), written with the
 * same {@code --rows} current rows, then given the same change sets, round after round, each
 * round's order alternated (on first, then off first), each apply right after a {@code CHECKPOINT},
 * both tables vacuumed after each round (untimed). Two series:
 * <ul>
 *   <li>in order: {@code --batch} changes of distinct existing keys, each a close + an insert;</li>
 *   <li>late: the same, of which {@code --late-percent} are late events of keys the round before
 *       changed, each falling into the key's closed version before its open one: the closed row's
 *       end is rewritten (with transaction time, its old image goes to {@code bench_tt_on_superseded})
 *       and a row born closed is inserted.</li>
 * </ul>
 * Each round's ratio is taken within the round (on seconds / off seconds), then the median; the
 * storage (the tables' sizes with their indexes, the side table per superseded row) is measured
 * after the set-up and after each series.
 * Usage: {@code e2e/bench.sh TransactionTimeBenchmark --jdbc URL --rows 1000000 --batch 100000 --rounds 6
 * --late-percent 10 --parallel 1} (docs/benchmarks.md, "Transaction time").
 */
public final class TransactionTimeBenchmark {

    /** The settings of a run from the command line (the class comment names them). */
    private record Settings(String jdbc, int rows, int batch, int rounds, int latePercent, int parallel, String workMem) {

        static Settings of(Map<String, String> a) {
            return new Settings(
                    a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres"),
                    Integer.parseInt(a.getOrDefault("rows", "1000000")),
                    Integer.parseInt(a.getOrDefault("batch", "100000")),
                    Integer.parseInt(a.getOrDefault("rounds", "6")),
                    Integer.parseInt(a.getOrDefault("late-percent", "10")),
                    Integer.parseInt(a.getOrDefault("parallel", "1")),
                    a.getOrDefault("work-mem", "64MB"));
        }
    }

    /** A table's storage: with its indexes and TOAST, its heap alone, its indexes, its rows and their average width. */
    private record Size(long total, long heap, long indexes, long rows, double avgRowBytes) {
    }

    private final Settings s;
    private final DataSource ds;
    private final BenchWriter writer;
    private final EntitySpec on;
    private final EntitySpec off;
    private final Random rnd = new Random(42);
    private int round = 1;
    private long seq;
    /** The in-order keys of the round before and its round number: the late events' keys and time. */
    private int[] prevKeys;
    private int prevRound;

    private TransactionTimeBenchmark(Settings s, DataSource ds) {
        this.s = s;
        this.ds = ds;
        this.writer = new BenchWriter(ds, new Scd2Writer(ds, s.workMem()));
        EntitySpec base = WriterBenchmark.spec(false);
        this.on = base.toBuilder().name("bench_tt_on").table("bench_tt_on").transactionTime(true).build();
        this.off = base.toBuilder().name("bench_tt_off").table("bench_tt_off").transactionTime(false).build();
    }

    public static void main(String[] args) throws Exception {
        Settings s = Settings.of(WriterBenchmark.parseArgs(args));
        if (s.latePercent() < 0 || s.latePercent() > 50) {
            throw new IllegalArgumentException("--late-percent must be 0-50 (the late keys are the round before's in-order keys)");
        }
        try (Databases.Handle h = Databases.open(s.jdbc(), null, null, s.parallel() + 2)) {
            new TransactionTimeBenchmark(s, h.dataSource()).run();
        }
    }

    private void run() throws SQLException {
        Migrations.migrate(ds);
        for (EntitySpec e : List.of(on, off)) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + e.table() + ", " + e.table() + "_events, " + e.supersededTable() + " CASCADE");
            }
            EntityTables.ensure(ds, e);
        }
        setup();
        Size onSetup = size(on.table());
        Size offSetup = size(off.table());
        series("in order", 0);
        Size onInOrder = size(on.table());
        Size offInOrder = size(off.table());
        Size supersededBefore = size(on.supersededTable());
        int late = series("late " + s.latePercent() + "%", s.latePercent());
        Size onLate = size(on.table());
        Size offLate = size(off.table());
        Size superseded = size(on.supersededTable());
        System.out.println("storage (after VACUUM ANALYZE; total = pg_total_relation_size, heap = pg_relation_size):");
        printTables("after the set-up", onSetup, offSetup);
        printTables("after the in-order series", onInOrder, offInOrder);
        printTables("after the late series", onLate, offLate);
        long rows = superseded.rows() - supersededBefore.rows();
        System.out.printf(Locale.ROOT, "  %s: %,d rows for %,d late events; %,d bytes (heap %,d, index %,d): %.0f bytes per superseded row "
                        + "(heap %.0f, index %.0f; average row %.0f bytes)%n", on.supersededTable(), rows, late, superseded.total(),
                superseded.heap(), superseded.indexes(), (superseded.total() - supersededBefore.total()) / (double) rows,
                (superseded.heap() - supersededBefore.heap()) / (double) rows, (superseded.indexes() - supersededBefore.indexes()) / (double) rows,
                superseded.avgRowBytes());
    }

    /** {@code --rows} current rows written into both tables by the writer, chunk by chunk, the same events. */
    private void setup() throws SQLException {
        double onS = 0;
        double offS = 0;
        for (int from = 0; from < s.rows(); from += 100_000) {
            List<Event> chunk = new ArrayList<>();
            for (int i = from; i < Math.min(s.rows(), from + 100_000); i++) {
                chunk.add(WriterBenchmark.event(i, BASE, 0, rnd, i));
            }
            boolean onFirst = (from / 100_000) % 2 == 0;
            for (boolean isOn : List.of(onFirst, !onFirst)) {
                long t = System.nanoTime();
                writer.apply(isOn ? on : off, new ArrayList<>(chunk), s.parallel());
                double secs = (System.nanoTime() - t) / 1e9;
                onS += isOn ? secs : 0;
                offS += isOn ? 0 : secs;
            }
        }
        seq = s.rows();
        vacuum();
        System.out.printf(Locale.ROOT, "setup: %,d current rows written by the writer into each table (%d connection(s), alternating per "
                + "100k chunk): on %.1f s, off %.1f s, on/off %.2fx%n", s.rows(), s.parallel(), onS, offS, onS / offS);
    }

    /**
     * {@code --rounds} rounds of one change set each, applied to both tables in alternating order.
     *
     * @return the late events of the series
     */
    private int series(String name, int latePercent) throws SQLException {
        if (latePercent > 0 && prevKeys == null) {
            apply(changeSet(0), new boolean[] {true, false}, 0); // untimed: the late events need keys changed before
            vacuum();
        }
        double[] onS = new double[s.rounds()];
        double[] offS = new double[s.rounds()];
        int late = 0;
        for (int r = 0; r < s.rounds(); r++) {
            int lateEvents = s.batch() * latePercent / 100;
            List<Event> batch = changeSet(lateEvents);
            boolean onFirst = r % 2 == 0;
            double[] secs = apply(batch, new boolean[] {onFirst, !onFirst}, lateEvents);
            onS[r] = secs[0];
            offS[r] = secs[1];
            late += lateEvents;
            vacuum();
            System.out.printf(Locale.ROOT, "  %s round %d (%s first): on %.3f s, off %.3f s, on/off %.2fx%n", name, r + 1,
                    onFirst ? "on" : "off", onS[r], offS[r], onS[r] / offS[r]);
        }
        double[] ratios = new double[s.rounds()];
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = onS[r] / offS[r];
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "%s, %,d changes per round (%,d late), %d connection(s): on median %.3f s (%,.0f changes/s), "
                        + "off median %.3f s (%,.0f changes/s); on/off per round median %.2fx (sorted: %s)%n", name, s.batch(),
                s.batch() * latePercent / 100, s.parallel(), median(onS), s.batch() / median(onS), median(offS), s.batch() / median(offS),
                median(ratios), Arrays.stream(sorted).mapToObj(x -> String.format(Locale.ROOT, "%.2f", x)).toList());
        printByOrder(name, ratios);
        return late;
    }

    /**
     * The ratio's median over the rounds where on went first and over those where off went first,
     * and their geometric mean: whatever favours the second apply of a round (or the first) cancels
     * out of it.
     */
    private static void printByOrder(String name, double[] ratios) {
        double[] onFirst = new double[(ratios.length + 1) / 2];
        double[] offFirst = new double[ratios.length / 2];
        for (int r = 0; r < ratios.length; r++) {
            if (r % 2 == 0) {
                onFirst[r / 2] = ratios[r];
            } else {
                offFirst[r / 2] = ratios[r];
            }
        }
        if (offFirst.length == 0) {
            return;
        }
        System.out.printf(Locale.ROOT, "%s: on/off median %.2fx in the rounds on went first, %.2fx off first; geometric mean of both %.2fx%n",
                name, median(onFirst), median(offFirst), Math.sqrt(median(onFirst) * median(offFirst)));
    }

    /**
     * The next change set: {@code lateEvents} late events of the round before's keys, each at half an
     * hour before that round's time (inside the key's closed version), and in-order changes of other
     * distinct keys at this round's time, {@code --batch} events in all.
     */
    private List<Event> changeSet(int lateEvents) {
        int n = s.batch();
        Set<Integer> lateKeys = new HashSet<>();
        List<Event> batch = new ArrayList<>(n);
        Instant lateTime = BASE.plusSeconds(3600L * prevRound - 1800);
        for (int i = 0; i < lateEvents; i++) {
            lateKeys.add(prevKeys[i]);
        }
        int[] candidates = WriterBenchmark.keys(rnd, s.rows(), n + lateEvents);
        int[] inOrder = Arrays.stream(candidates).filter(k -> !lateKeys.contains(k)).limit(n - lateEvents).toArray();
        Instant now = BASE.plusSeconds(3600L * round);
        for (int k : inOrder) {
            batch.add(event(k, now, "r" + round, seq++));
        }
        for (int i = 0; i < lateEvents; i++) {
            batch.add(event(prevKeys[i], lateTime, "late" + round, seq++));
        }
        prevKeys = inOrder;
        prevRound = round++;
        return batch;
    }

    private Event event(int key, Instant time, String marker, long seq) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("customer_id", String.format(Locale.ROOT, "C%08d", key));
        d.put("email", "user" + key + "." + marker + "@example.com");
        d.put("full_name", "Customer " + key);
        d.put("country", List.of("DE", "FR", "US", "JP").get(rnd.nextInt(4)));
        d.put("city", "City " + rnd.nextInt(1000));
        d.put("loyalty_tier", List.of("bronze", "silver", "gold").get(rnd.nextInt(3)));
        d.put("last_login", 1_700_000_000L + rnd.nextInt(10_000_000));
        return Event.upsert(time, d, seq, Source.kafka("bench", 0, seq));
    }

    /**
     * The batch applied to both tables in the order given ({@code order[0]}: on first), each right
     * after a CHECKPOINT; both results must be the same and of the expected counts.
     *
     * @return the seconds of on, then off
     */
    private double[] apply(List<Event> batch, boolean[] order, int lateEvents) throws SQLException {
        double[] secs = new double[2];
        ApplyResult[] results = new ApplyResult[2];
        for (boolean isOn : order) {
            int i = isOn ? 0 : 1;
            checkpoint(ds);
            long t = System.nanoTime();
            results[i] = writer.apply(isOn ? on : off, new ArrayList<>(batch), s.parallel());
            secs[i] = (System.nanoTime() - t) / 1e9;
        }
        ApplyResult r = results[0];
        int n = batch.size();
        if (!r.equals(results[1]) || r.late() != lateEvents || r.changed() != n - lateEvents || r.rowsInserted() != n
                || r.rowsUpdated() != n || r.rowsDeleted() != 0) {
            throw new IllegalStateException("a change set did not do " + n + " changes (" + lateEvents + " late) on both tables: on "
                    + results[0] + ", off " + results[1]);
        }
        return secs;
    }

    private void vacuum() throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (EntitySpec e : List.of(on, off)) {
                st.execute("VACUUM ANALYZE " + e.table());
                st.execute("VACUUM ANALYZE " + e.table() + "_events");
            }
            st.execute("VACUUM ANALYZE " + on.supersededTable());
        }
        checkpoint(ds);
    }

    private Size size(String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('" + table + "'), pg_relation_size('" + table + "'), "
                     + "pg_indexes_size('" + table + "'), (SELECT count(*) FROM " + table + "), "
                     + "(SELECT coalesce(avg(pg_column_size(v.*)), 0) FROM " + table + " v)")) {
            rs.next();
            return new Size(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getDouble(5));
        }
    }

    private static void printTables(String when, Size on, Size off) {
        System.out.printf(Locale.ROOT, "  %s: %,d rows each; total on %,d / off %,d bytes (+%.1f bytes per row, +%.1f%%), heap on %,d / off %,d "
                        + "(+%.1f per row), indexes on %,d / off %,d; average row on %.1f / off %.1f bytes%n", when, on.rows(), on.total(),
                off.total(), (on.total() - off.total()) / (double) on.rows(), 100.0 * (on.total() - off.total()) / off.total(), on.heap(),
                off.heap(), (on.heap() - off.heap()) / (double) on.rows(), on.indexes(), off.indexes(), on.avgRowBytes(), off.avgRowBytes());
    }
}
