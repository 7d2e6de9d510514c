package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Samples of {@code dimstream.sink_offsets} for a changes topic, every 5 ms: when each partition's
 * offset moved ({@link LatencyBenchmark}). The sink commits its offsets in the same transaction as
 * the rows, so an offset here means the rows before it are committed.
 */
final class OffsetPoller implements Runnable {
    private final Databases.Handle db;
    private final String topic;
    private final int partitions;
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** per partition: (nanoTime, next_offset) each time it moved. */
    private final List<List<long[]>> moves = new ArrayList<>();
    private final long[] current;
    private Thread thread;
    private volatile Exception failure;

    OffsetPoller(Databases.Handle db, String topic, int partitions) {
        this.db = db;
        this.topic = topic;
        this.partitions = partitions;
        this.current = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            moves.add(new ArrayList<>());
        }
    }

    void start() {
        thread = new Thread(this, "sink-offset-poller");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement q = c.prepareStatement("SELECT partition, next_offset FROM dimstream.sink_offsets WHERE topic = ?")) {
            q.setString(1, topic);
            while (running.get()) {
                try (ResultSet rs = q.executeQuery()) {
                    long now = System.nanoTime();
                    synchronized (this) {
                        while (rs.next()) {
                            int p = rs.getInt(1);
                            long next = rs.getLong(2);
                            if (next > current[p]) {
                                current[p] = next;
                                moves.get(p).add(new long[] {now, next});
                            }
                        }
                    }
                } catch (SQLException e) {
                    if (!e.getMessage().contains("does not exist")) { // before the service migrated
                        throw e;
                    }
                }
                Thread.sleep(5);
            }
        } catch (Exception e) {
            failure = e;
        }
    }

    synchronized long appliedTotal() {
        return Arrays.stream(current).sum();
    }

    synchronized boolean covers(Map<Long, Long> changeToSource) {
        if (failure != null) {
            throw new IllegalStateException("the offset poller failed", failure);
        }
        long[] need = nextOffsets(changeToSource, partitions);
        for (int p = 0; p < partitions; p++) {
            if (current[p] < need[p]) {
                return false;
            }
        }
        return true;
    }

    /** Per changes partition, the offset after its last change among {@code changes}' keys (0: none). */
    static long[] nextOffsets(Map<Long, Long> changes, int partitions) {
        long[] need = new long[partitions];
        for (long change : changes.keySet()) {
            int p = (int) (change >>> 40);
            need[p] = Math.max(need[p], (change & ((1L << 40) - 1)) + 1);
        }
        return need;
    }

    /** The first sample at which partition p's committed offset passed {@code offset}. */
    synchronized long committedAt(int p, long offset) {
        List<long[]> m = moves.get(p);
        int lo = 0;
        int hi = m.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (m.get(mid)[1] > offset) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (m.isEmpty() || m.get(lo)[1] <= offset) {
            throw new IllegalStateException("partition " + p + " offset " + offset + " was never committed");
        }
        return m.get(lo)[0];
    }

    void stop() throws InterruptedException {
        running.set(false);
        thread.join();
    }
}
