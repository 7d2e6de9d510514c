package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end-to-end latencies of a {@link RollingRestartBenchmark} run: per second of send time the
 * events sent and their p50, p99 and max latency; per source and changes partition the longest
 * time it made no progress while one of its events was waiting ({@link #longestIdle}).
 */
final class RestartSeries {

    /** A restart, {@code at} seconds after the feed started. */
    record Mark(double at, String label) {
    }

    /** One second of send time: events sent in it, their latencies in ms. */
    record Second(int s, int events, long p50, long p99, long max) {
    }

    private final List<Second> seconds;
    /** per partition: the longest idle stretch in ms, and when it began (seconds since the feed started). */
    private final List<long[]> idleSource;
    private final List<long[]> idleChanges;

    private RestartSeries(List<Second> seconds, List<long[]> idleSource, List<long[]> idleChanges) {
        this.seconds = seconds;
        this.idleSource = idleSource;
        this.idleChanges = idleChanges;
    }

    /** Every event's latency: the poll that saw its change committed minus its send time. */
    static RestartSeries of(SteadyFeed feed, Map<Long, Long> changeToSource, OffsetPoller poller, long t0, int partitions) {
        int n = feed.produced();
        long[] committed = new long[n];
        int[] changesPartition = new int[n];
        Map<Long, Integer> indexBySource = feed.indexBySource();
        for (Map.Entry<Long, Long> e : changeToSource.entrySet()) {
            int index = indexBySource.get(e.getValue());
            long change = e.getKey();
            changesPartition[index] = (int) (change >>> 40);
            committed[index] = poller.committedAt(changesPartition[index], change & ((1L << 40) - 1));
        }
        List<List<long[]>> bySecond = new ArrayList<>();
        List<List<long[]>> bySource = lists(partitions);
        List<List<long[]>> byChanges = lists(partitions);
        for (int i = 0; i < n; i++) {
            long[] sendCommit = {feed.sendNanos(i), committed[i]};
            int s = (int) ((sendCommit[0] - t0) / 1_000_000_000L);
            while (bySecond.size() <= s) {
                bySecond.add(new ArrayList<>());
            }
            bySecond.get(s).add(sendCommit);
            bySource.get((int) (feed.located(i) >>> 40)).add(sendCommit);
            byChanges.get(changesPartition[i]).add(sendCommit);
        }
        List<Second> seconds = new ArrayList<>();
        for (int s = 0; s < bySecond.size(); s++) {
            long[] l = bySecond.get(s).stream().mapToLong(x -> x[1] - x[0]).sorted().toArray();
            if (l.length > 0) {
                seconds.add(new Second(s, l.length, LatencyBenchmark.ms(l, 0.50), LatencyBenchmark.ms(l, 0.99), l[l.length - 1] / 1_000_000));
            }
        }
        return new RestartSeries(seconds, bySource.stream().map(e -> idleSince(e, t0)).toList(),
                byChanges.stream().map(e -> idleSince(e, t0)).toList());
    }

    private static long[] idleSince(List<long[]> events, long t0) {
        long[] idle = idle(events);
        return new long[] {idle[0], idle[0] == 0 ? 0 : (idle[1] - t0) / 1_000_000_000L};
    }

    private static List<List<long[]>> lists(int n) {
        List<List<long[]>> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(new ArrayList<>());
        }
        return l;
    }

    /**
     * Of one partition's events ({send, commit} nanos): the longest stretch, in ms, with an event
     * waiting (sent, not yet committed) and none committed. Between two consecutive commit times
     * c and c', the events waiting are those sent before c' and committed at c' or later; the
     * stretch runs from the later of c and the earliest of their sends, to c'.
     */
    static long longestIdle(List<long[]> events) {
        return idle(events)[0];
    }

    /** {@link #longestIdle} in ms, and the nanoTime its stretch began (0 without events). */
    static long[] idle(List<long[]> events) {
        if (events.isEmpty()) {
            return new long[] {0, 0};
        }
        long[][] byCommit = events.toArray(new long[0][]);
        Arrays.sort(byCommit, Comparator.comparingLong((long[] e) -> e[1]).reversed());
        long longest = 0;
        long from = 0;
        long minSend = Long.MAX_VALUE; // earliest send among the events committed at the current commit time or later
        int i = 0;
        while (i < byCommit.length) {
            long commit = byCommit[i][1];
            while (i < byCommit.length && byCommit[i][1] == commit) {
                minSend = Math.min(minSend, byCommit[i][0]);
                i++;
            }
            long previous = i < byCommit.length ? byCommit[i][1] : Long.MIN_VALUE;
            long start = Math.max(previous, minSend);
            if (commit - start > longest) {
                longest = commit - start;
                from = start;
            }
        }
        return new long[] {longest / 1_000_000, from};
    }

    /** The TSV (s, events, p50, p99, max in ms; restarts as comments) and the SVG plot beside it. */
    void write(Path plot, List<Mark> marks, long barMs, int rate) throws IOException {
        StringBuilder tsv = new StringBuilder("# RollingRestartBenchmark: end-to-end latency (send -> the sink's offset committed past its change)"
                + " per second of send time, " + rate + " events/s; load average at the end (/proc/loadavg): "
                + Files.readString(Path.of("/proc/loadavg")).trim() + "\n");
        for (Mark m : marks) {
            tsv.append(String.format(Locale.ROOT, "# restart at %.1f s: %s%n", m.at(), m.label()));
        }
        tsv.append("second\tevents\tp50_ms\tp99_ms\tmax_ms\n");
        for (Second s : seconds) {
            tsv.append(String.format(Locale.ROOT, "%d\t%d\t%d\t%d\t%d%n", s.s(), s.events(), s.p50(), s.p99(), s.max()));
        }
        Files.writeString(Path.of(plot.toString().replaceFirst("\\.svg$", "") + ".tsv"), tsv);
        Files.writeString(plot, RestartPlot.svg(seconds, marks, barMs, rate));
        System.out.println("wrote " + plot + " and its .tsv");
    }

    private static String idleText(List<long[]> idle) {
        return idle.stream().map(x -> x[0] + " ms from s " + x[1]).toList().toString();
    }

    /** Prints the figures and the bars; throws when a partition was idle for the session timeout or longer. */
    void report(long barMs, int sessionTimeoutSeconds) {
        long worstP99 = seconds.stream().mapToLong(Second::p99).max().orElse(0);
        long maxAll = seconds.stream().mapToLong(Second::max).max().orElse(0);
        List<Integer> over = seconds.stream().filter(s -> s.p99() >= barMs).map(Second::s).toList();
        System.out.printf(Locale.ROOT, "per-second p99: worst %d ms, max latency %d ms over %d seconds; seconds with p99 >= %d ms: %s (bar: %s)%n",
                worstP99, maxAll, seconds.size(), barMs, over, over.isEmpty() ? "met" : "MISSED");
        System.out.printf(Locale.ROOT, "longest idle with events waiting (ms, from second s): source partitions %s, changes partitions %s%n",
                idleText(idleSource), idleText(idleChanges));
        long idle = Math.max(idleSource.stream().mapToLong(x -> x[0]).max().orElse(0), idleChanges.stream().mapToLong(x -> x[0]).max().orElse(0));
        if (idle >= sessionTimeoutSeconds * 1000L) {
            throw new IllegalStateException("a partition made no progress for " + idle + " ms with events waiting: not under the session timeout ("
                    + sessionTimeoutSeconds + " s)");
        }
        System.out.printf(Locale.ROOT, "no partition idle as long as the session timeout (%d s): the longest %d ms%n", sessionTimeoutSeconds, idle);
    }
}
