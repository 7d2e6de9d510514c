package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How fast {@code dimstream run} resumes after SIGKILL under a steady load (issue 34; not a test).
 *
 * <p>One service in a child JVM ({@link ServiceProcess}; default settings, default static
 * membership: the instance id derives from the host and the data directory), the broker in this
 * JVM, {@code --rate} events/s ({@link SteadyFeed}) produced for the whole run. After a warm-up,
 * {@code --kills} times: SIGKILL, the service started again at once on the same data directory,
 * and the seconds measured from the kill until <em>rows land again</em>: until, for every source
 * partition, the first event produced to it after the kill is a version in the table (found by its
 * key and {@code valid_from}, which names the event). That is stricter than the sink's offsets
 * moving: those could move with records classified before the kill. Each restart also reports when
 * the new JVM printed {@code running:} and when the first of those events landed. Between kills the
 * service runs {@code --between-seconds}. At the end the feed stops, the service catches up, and
 * the table must equal the reference model of every event produced, whole rows.
 *
 * <p>Usage: {@code e2e/bench.sh ResumeBenchmark --jdbc URL --kills 5 --rate 1000}; bar: median at
 * most 15 s.
 */
public final class ResumeBenchmark {

    private static final String TOPIC = "bench.resume";
    private static final String TABLE = "bench_resume_customer";

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        int kills = Integer.parseInt(a.getOrDefault("kills", "5"));
        int rate = Integer.parseInt(a.getOrDefault("rate", "1000"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "100000"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup-seconds", "30"));
        int between = Integer.parseInt(a.getOrDefault("between-seconds", "30"));
        double bar = Double.parseDouble(a.getOrDefault("bar-seconds", "15"));
        try (ServiceBench stage = ServiceBench.open(a, "resume", TOPIC, "resume-bench", TABLE)) {
            ServiceProcess service = stage.start("service");
            service.awaitRunning();
            SteadyFeed feed = SteadyFeed.start(stage.kafka.bootstrapServers(), TOPIC, rate, keys, 11, -1);
            ServiceProcess.log("producing %,d events/s; warm-up %d s", rate, warmup);
            Thread.sleep(warmup * 1000L);
            double[] resumed = new double[kills];
            for (int k = 0; k < kills; k++) {
                feed.check();
                long killedAt = System.nanoTime();
                service.kill();
                int firstAfter = feed.produced(); // sent after the process was gone
                service = service.restart();
                Resume r = awaitResumed(stage.db, feed, service, killedAt, firstAfter, stage.partitions);
                resumed[k] = r.allPartitions();
                System.out.printf(Locale.ROOT, "kill %d: rows land again %.1f s after the SIGKILL (first partition %.1f s; "
                        + "the new JVM printed running: at %.1f s)%n", k + 1, r.allPartitions(), r.firstPartition(), r.running());
                if (k < kills - 1) {
                    Thread.sleep(between * 1000L);
                }
            }
            feed.stop();
            ServiceProcess.log("stopped producing after %,d events; awaiting the catch-up", feed.produced());
            stage.awaitCaughtUp(feed.produced());
            int rows = feed.assertTableExact(stage.db.dataSource(), stage.spec);
            double median = ServiceBench.median(resumed);
            System.out.printf(Locale.ROOT, "RESUME after SIGKILL at %,d events/s, rows landing again after each kill: %s s; median %.1f s "
                            + "(bar %.0f s: %s); the table equals the reference model of all %,d events (%,d rows)%n",
                    rate, Arrays.stream(resumed).mapToObj(x -> String.format(Locale.ROOT, "%.1f", x)).toList(), median,
                    bar, median <= bar ? "met" : "MISSED", feed.produced(), rows);
            service.terminate();
        }
    }

    /** Seconds from the kill: rows of every source partition landed, of the first one, the new JVM running. */
    record Resume(double allPartitions, double firstPartition, double running) {
    }

    /**
     * Waits (at most 5 minutes) until, for every source partition, the first event produced to it
     * at or after index {@code firstAfter} is a version in the table.
     */
    static Resume awaitResumed(Databases.Handle db, SteadyFeed feed, ServiceProcess service, long killedAt, int firstAfter,
                               int partitions) throws Exception {
        int[] watched = new int[partitions];
        Arrays.fill(watched, -1);
        long deadline = killedAt + TimeUnit.MINUTES.toNanos(5);
        double running = Double.NaN;
        double first = Double.NaN;
        boolean[] landed = new boolean[partitions];
        int landedCount = 0;
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement q = c.prepareStatement("SELECT 1 FROM " + TABLE + " WHERE customer_id = ? AND valid_from = ?")) {
            int scan = firstAfter;
            while (landedCount < partitions) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("rows of only " + landedCount + " of " + partitions
                            + " source partitions landed within 5 minutes of the kill; see " + service.output());
                }
                if (!service.process().isAlive()) {
                    throw new IllegalStateException("the restarted service exited; see " + service.output());
                }
                if (Double.isNaN(running) && service.hasPrintedRunning()) {
                    running = (System.nanoTime() - killedAt) / 1e9;
                }
                // the first event after the kill on each partition, once acknowledged
                while (scan < feed.produced() && feed.located(scan) >= 0) {
                    int p = (int) (feed.located(scan) >>> 40);
                    if (watched[p] < 0) {
                        watched[p] = scan;
                    }
                    scan++;
                }
                for (int p = 0; p < partitions; p++) {
                    if (watched[p] >= 0 && !landed[p] && inTable(q, feed, watched[p])) {
                        landed[p] = true;
                        landedCount++;
                        if (landedCount == 1) {
                            first = (System.nanoTime() - killedAt) / 1e9;
                        }
                    }
                }
                Thread.sleep(50);
            }
        }
        return new Resume((System.nanoTime() - killedAt) / 1e9, first, running);
    }

    private static boolean inTable(PreparedStatement q, SteadyFeed feed, int event) throws SQLException {
        q.setString(1, feed.keyOf(event));
        q.setTimestamp(2, Timestamp.from(Instant.ofEpochSecond(SteadyFeed.validFromEpochSecond(event))));
        try (ResultSet rs = q.executeQuery()) {
            return rs.next();
        }
    }
}
