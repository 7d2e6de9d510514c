package io.dimstream.bench;

import static io.dimstream.bench.WriterBenchmark.checkpoint;
import static io.dimstream.bench.WriterBenchmark.copyCeiling;
import static io.dimstream.bench.WriterBenchmark.events;
import static io.dimstream.bench.WriterBenchmark.keys;
import static io.dimstream.bench.WriterBenchmark.naive;
import static io.dimstream.bench.WriterBenchmark.ratio;
import static io.dimstream.bench.WriterBenchmark.report;
import static io.dimstream.bench.WriterBenchmark.timeApply;
import static io.dimstream.bench.WriterBenchmark.vacuum;

import io.dimstream.db.entity.EntitySpec;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import javax.sql.DataSource;

/**
 * The measured runs on the table the set-up wrote: every batch size, each run of every method,
 * and the report of each batch size. Every change set takes the next event time ({@code round})
 * and the next event sequence numbers ({@code seq}).
 */
final class WriterRuns {
    /** The seconds of each method in each run of one batch size ({@code dbt}: one row per dbt mode). */
    private record Times(double[] ceil, double[] one, double[] par, double[] bare, double[][] dbt, double[] naive) {
        Times(int runs, int dbtModes) {
            this(new double[runs], new double[runs], new double[runs], new double[runs], new double[dbtModes][runs], new double[runs]);
        }
    }

    private final WriterBenchmark.Settings s;
    private final DataSource ds;
    private final EntitySpec spec;
    private final BenchWriter writer;
    private final Random rnd;
    private final Instant base = WriterBenchmark.BASE;
    private int round = 1;
    private long seq;

    WriterRuns(WriterBenchmark.Settings s, DataSource ds, EntitySpec spec, BenchWriter writer, Random rnd) {
        this.s = s;
        this.ds = ds;
        this.spec = spec;
        this.writer = writer;
        this.rnd = rnd;
        this.seq = s.rows();
    }

    /** The header, every batch size measured and reported, then dbt's tables dropped. */
    void all() throws SQLException {
        System.out.printf(Locale.ROOT, "%-10s %-44s %10s %12s %12s%n", "batch", "method", "median s", "changes/s", "x ceiling");
        for (int b : s.batches()) {
            Times times = new Times(s.runs(), s.dbtModes().size());
            for (int run = 0; run < s.runs(); run++) {
                measure(b, run, times);
                vacuum(ds, spec, s.parentStats());
                printRun(run, times);
            }
            printBatch(b, times);
        }
        if (s.dbt()) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS bench_dbt_snapshot, bench_dbt_source");
            }
        }
    }

    /** One run of every method on {@code b}-change batches. */
    private void measure(int b, int run, Times t) throws SQLException {
        int rows = s.rows();
        // every measurement starts right after a CHECKPOINT: none runs while the
        // checkpointer is busy with the previous one's WAL, and each pays the
        // full-page images of its first touch of a page
        checkpoint(ds);
        t.ceil()[run] = copyCeiling(ds, spec, b, round);
        checkpoint(ds);
        t.one()[run] = timeApply(writer, spec, keys(rnd, rows, b), base, round++, rnd, seq, 1);
        seq += b;
        checkpoint(ds);
        t.par()[run] = timeApply(writer, spec, keys(rnd, rows, b), base, round++, rnd, seq, s.parallel());
        seq += b;
        checkpoint(ds);
        t.bare()[run] = Peers.Bare.apply(ds, spec.name(), "bench_customer", events(keys(rnd, rows, b), base, round++, rnd, seq), s.workMem());
        seq += b;
        if (s.dbt()) {
            measureDbt(b, run, t);
        }
        if (s.naive()) {
            checkpoint(ds);
            t.naive()[run] = naive(ds, spec, keys(rnd, rows, b), base, round++, rnd);
        }
    }

    /** dbt's snapshot for each {@code --dbt-hard-deletes} mode, on the versions the writer just wrote. */
    private void measureDbt(int b, int run, Times t) throws SQLException {
        List<String> dbtModes = s.dbtModes();
        // dbt's snapshot and source tables made from the writer's table as it is now
        // (untimed): dbt runs on the same versions the writer just ran on
        Peers.Dbt.cloneFrom(ds, "bench_customer", "bench_dbt_snapshot", "bench_dbt_source", s.dbtIndexes());
        for (int m = 0; m < dbtModes.size(); m++) {
            // the upstream table changes (untimed), then dbt snapshots it
            Peers.Dbt.applyToSource(ds, "bench_dbt_source", events(keys(rnd, s.rows(), b), base, round++, rnd, seq));
            seq += b;
            checkpoint(ds);
            t.dbt()[m][run] = Peers.Dbt.snapshot(ds, "bench_dbt_snapshot", "bench_dbt_source",
                    "invalidate".equals(dbtModes.get(m)), s.workMem());
        }
    }

    private void printRun(int run, Times t) {
        StringBuilder dbtRun = new StringBuilder();
        for (int m = 0; m < s.dbtModes().size() && s.dbt(); m++) {
            dbtRun.append(String.format(Locale.ROOT, ", dbt %s %.3f s", s.dbtModes().get(m), t.dbt()[m][run]));
        }
        System.out.printf(Locale.ROOT, "  run %d: ceiling %.3f s, writer %.3f s, writer x%d %.3f s, bare %.3f s%s%n", run + 1,
                t.ceil()[run], t.one()[run], s.parallel(), t.par()[run], t.bare()[run], dbtRun);
    }

    /** Each method's median and its ratios to the peers, for one batch size. */
    private void printBatch(int b, Times t) {
        List<String> dbtModes = s.dbtModes();
        int parallel = s.parallel();
        report(b, "COPY of 2 x batch rows (ceiling)", t.ceil(), t.ceil());
        report(b, "writer, 1 connection", t.one(), t.ceil());
        report(b, "writer, " + parallel + " connections", t.par(), t.ceil());
        report(b, "bare close + insert, 1 connection", t.bare(), t.ceil());
        for (int m = 0; m < dbtModes.size() && s.dbt(); m++) {
            report(b, "dbt snapshot (check all, " + dbtModes.get(m) + ")" + (s.dbtIndexes() ? " +idx" : ""), t.dbt()[m], t.ceil());
        }
        if (s.naive()) {
            report(b, "row-at-a-time UPDATE+INSERT", t.naive(), t.ceil());
        }
        // each ratio taken within one run (same table, same minute), then the median
        ratio(b, "writer 1 conn / bare", t.bare(), t.one());
        ratio(b, "writer " + parallel + " conn / bare", t.bare(), t.par());
        for (int m = 0; m < dbtModes.size() && s.dbt(); m++) {
            ratio(b, "writer 1 conn / dbt " + dbtModes.get(m), t.dbt()[m], t.one());
            ratio(b, "writer " + parallel + " conn / dbt " + dbtModes.get(m), t.dbt()[m], t.par());
        }
    }
}
