package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What the benchmarks of a running service ({@link LatencyBenchmark}, {@link ResumeBenchmark},
 * {@link RollingRestartBenchmark}) share besides the child JVM ({@link ServiceProcess}) and the
 * feed ({@link SteadyFeed}): a clean database, waiting for the sink to catch up, a median.
 */
final class ServiceBench {

    private ServiceBench() {
    }

    /** Drops the benchmark's table (and its events table) and dimstream's schema: the service starts on an empty database. */
    static void reset(String jdbc, String table) throws SQLException {
        try (Databases.Handle db = Databases.open(jdbc, null, null, 2);
             Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_events CASCADE");
            s.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
        }
    }

    /**
     * Waits (at most 10 minutes) until the sink has committed every change of the {@code events}
     * produced (each of the benchmark feed's events is one change): the changes topic read whole,
     * then {@code dimstream.sink_offsets} polled until every partition is past its last change.
     */
    static void awaitCaughtUp(Databases.Handle db, String bootstrap, String changesTopic, int partitions, int events)
            throws SQLException, InterruptedException {
        long[] need = OffsetPoller.nextOffsets(LatencyBenchmark.readChanges(bootstrap, changesTopic, partitions, events), partitions);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement q = c.prepareStatement("SELECT partition, next_offset FROM dimstream.sink_offsets WHERE topic = ?")) {
            q.setString(1, changesTopic);
            while (true) {
                long[] at = new long[partitions];
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        at[rs.getInt(1)] = rs.getLong(2);
                    }
                }
                boolean caughtUp = true;
                for (int p = 0; p < partitions; p++) {
                    caughtUp &= at[p] >= need[p];
                }
                if (caughtUp) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the sink did not catch up within 10 minutes: committed " + Arrays.toString(at)
                            + ", changes up to " + Arrays.toString(need));
                }
                Thread.sleep(200);
            }
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
