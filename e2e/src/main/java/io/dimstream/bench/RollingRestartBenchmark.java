package io.dimstream.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A rolling restart of two {@code dimstream run} instances under a steady load (issue 34; not a test).
 *
 * <p>Two services in child JVMs ({@link ServiceProcess}): the same config and application id,
 * data directories of their own and distinct {@code --instance-id}s (static members), the broker
 * in this JVM, {@code --rate} events/s ({@link SteadyFeed}) for the whole run. After
 * {@code --warmup-seconds}, each instance is restarted in turn, {@code --pause-seconds} after each is running again:
 * round 1 SIGTERM (its exit awaited, then started again), round 2 SIGKILL (started again at
 * once). Then the feed stops and the services catch up.
 *
 * <p>Measured as {@link LatencyBenchmark} measures: an event's end-to-end latency is the first
 * poll ({@link OffsetPoller}, every 5 ms) that saw the sink's offset in
 * {@code dimstream.sink_offsets} past its change, minus its send time. Reported per second of send
 * time: events, p50, p99, max ({@link RestartSeries}), as a TSV and an SVG plot with the restarts
 * marked ({@code --plot}, default {@code docs/benchmarks-rolling-restart.svg}, the TSV beside it).
 * Per source and changes partition: the longest time it made no progress (none of its events
 * reached the table) while one of its events was waiting; asserted under
 * {@code --session-timeout-seconds} (45, Kafka's default, what a static member's absence may last
 * before its partitions move). At the end the table must equal the reference model of every
 * event produced, whole rows. Bar: p99 under 2 s in every second.
 *
 * <p>Usage: {@code e2e/bench.sh RollingRestartBenchmark --jdbc URL --rate 2000 --warmup-seconds 60
 * --pause-seconds 30}.
 */
public final class RollingRestartBenchmark {

    private static final String TOPIC = "bench.rolling";
    private static final String[] NAMES = {"a", "b"};
    private static final String TABLE = "bench_rolling_customer";

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        int rate = Integer.parseInt(a.getOrDefault("rate", "2000"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "100000"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup-seconds", "60"));
        int pause = Integer.parseInt(a.getOrDefault("pause-seconds", "30"));
        int sessionTimeout = Integer.parseInt(a.getOrDefault("session-timeout-seconds", "45"));
        long barMs = Long.parseLong(a.getOrDefault("bar-ms", "2000"));
        Path plot = Path.of(a.getOrDefault("plot", "docs/benchmarks-rolling-restart.svg"));
        try (ServiceBench stage = ServiceBench.open(a, "rolling", TOPIC, "rolling-bench", TABLE)) {
            // one after the other: two instances starting at once race to create the changes and DLQ topics
            ServiceProcess[] services = new ServiceProcess[2];
            for (int i = 0; i < 2; i++) {
                services[i] = stage.start(NAMES[i], "--instance-id", "rolling-bench-" + NAMES[i]);
                services[i].awaitRunning();
            }
            OffsetPoller poller = new OffsetPoller(stage.db, stage.changesTopic, stage.partitions);
            poller.start();
            StageSampler stages = new StageSampler(stage.kafka.bootstrapServers(), TOPIC, stage.changesTopic, stage.partitions, poller);
            stages.start();
            SteadyFeed feed = SteadyFeed.start(stage.kafka.bootstrapServers(), TOPIC, rate, keys, 13, -1);
            long t0 = System.nanoTime();
            ServiceProcess.log("producing %,d events/s; warm-up %d s", rate, warmup);
            Thread.sleep(warmup * 1000L);
            List<RestartSeries.Mark> marks = restartInTurn(services, feed, pause, t0);
            feed.stop();
            ServiceProcess.log("stopped producing after %,d events; awaiting the catch-up", feed.produced());
            Map<Long, Long> changeToSource = LatencyBenchmark.readChanges(stage.kafka.bootstrapServers(), stage.changesTopic,
                    stage.partitions, feed.produced());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!poller.covers(changeToSource)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the sink did not catch up within 10 minutes of the feed's end; see " + stage.dir);
                }
                Thread.sleep(100);
            }
            poller.stop();
            stages.stop();
            stages.report();
            RestartSeries series = RestartSeries.of(feed, changeToSource, poller, t0, stage.partitions);
            series.write(plot, marks, barMs, rate);
            int rows = feed.assertTableExact(stage.db.dataSource(), stage.spec);
            for (ServiceProcess s : services) {
                s.terminate();
            }
            System.out.printf(Locale.ROOT, "the table equals the reference model of all %,d events (%,d rows)%n", feed.produced(), rows);
            series.report(barMs, sessionTimeout);
        }
    }

    /** Round 1: SIGTERM each (exit awaited, started again); round 2: SIGKILL each (started again at once); {@code pause} s after each runs again. */
    private static List<RestartSeries.Mark> restartInTurn(ServiceProcess[] services, SteadyFeed feed, int pause, long t0)
            throws Exception {
        List<RestartSeries.Mark> marks = new ArrayList<>();
        for (boolean kill : new boolean[] {false, true}) {
            for (int i = 0; i < services.length; i++) {
                feed.check();
                String name = NAMES[i];
                double at = (System.nanoTime() - t0) / 1e9;
                if (kill) {
                    services[i].kill();
                    marks.add(new RestartSeries.Mark(at, "SIGKILL " + name));
                } else {
                    double took = services[i].terminate();
                    ServiceProcess.log("%s stopped %.1f s after SIGTERM", name, took);
                    marks.add(new RestartSeries.Mark(at, "SIGTERM " + name));
                }
                services[i] = services[i].restart();
                long started = System.nanoTime();
                services[i].awaitRunning();
                ServiceProcess.log("%s running again %.1f s after its start", name, (System.nanoTime() - started) / 1e9);
                Thread.sleep(pause * 1000L);
            }
        }
        return marks;
    }
}
