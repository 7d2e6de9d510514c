package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code dimstream run} in a child JVM with the harness's class path (the benchmarks that measure
 * the service as it runs: {@link LatencyBenchmark}, {@link ResumeBenchmark},
 * {@link RollingRestartBenchmark}): started on a config file and a data directory, its stdout and
 * stderr in {@code <dir>/<name>-<n>.out/.err} (n counts the starts of that name), waited for until
 * it prints {@code running:}, stopped with SIGTERM or SIGKILL. Each start is a new
 * {@code ServiceProcess}; a restart on the same data directory is {@link #restart()}. A harness that
 * fails half-way kills the children still alive with {@link #killAll()} before its broker stops
 * ({@link ServiceBench#close()}), so no service outlives it. (A shutdown hook does not do: with
 * the embedded broker in the JVM, a SIGTERMed harness ended without running one.)
 */
final class ServiceProcess {

    private static final List<Process> STARTED = new ArrayList<>();

    private final Path config;
    private final Path dir;
    private final String name;
    private final String applicationId;
    private final int partitions;
    private final String javaOpts;
    private final List<String> moreRunArgs;
    private final int start;
    private final Process process;
    private final Path out;

    private ServiceProcess(Path config, Path dir, String name, String applicationId, int partitions, String javaOpts,
                           List<String> moreRunArgs, int start) throws IOException {
        this.config = config;
        this.dir = dir;
        this.name = name;
        this.applicationId = applicationId;
        this.partitions = partitions;
        this.javaOpts = javaOpts;
        this.moreRunArgs = List.copyOf(moreRunArgs);
        this.start = start;
        this.out = dir.resolve(name + "-" + start + ".out");
        List<String> args = new ArrayList<>(List.of("run", "--config", config.toString(), "--data-dir", dir.resolve(name).toString(),
                "--application-id", applicationId, "--partitions", Integer.toString(partitions), "--metrics-port", "-1"));
        args.addAll(moreRunArgs);
        this.process = dimstream(javaOpts, args, out, dir.resolve(name + "-" + start + ".err")).start();
        synchronized (STARTED) {
            STARTED.add(process);
        }
    }

    /**
     * {@code dimstream ARGS} in a child JVM on the harness's class path, {@code javaOpts} (blank: none)
     * before it, stdout and stderr to the files named, with what the launcher ({@code ./dimstream},
     * {@code bin/dimstream}) sets in the environment unless it has it: the one way the harnesses
     * start a verb as an operator would.
     */
    static ProcessBuilder dimstream(String javaOpts, List<String> args, Path out, Path err) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (!javaOpts.isBlank()) {
            cmd.addAll(Arrays.asList(javaOpts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.dimstream.cli.DimstreamCli"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
        return pb;
    }

    /**
     * Starts {@code dimstream run --config CONFIG --data-dir DIR/NAME --application-id ID
     * --partitions N --metrics-port -1 MORE...}, {@code javaOpts} (blank: none) before the class path.
     */
    static ServiceProcess start(Path config, Path dir, String name, String applicationId, int partitions, String javaOpts,
                                String... moreRunArgs) throws IOException {
        return new ServiceProcess(config, dir, name, applicationId, partitions, javaOpts, List.of(moreRunArgs), 1);
    }

    /** The same command again, on the same data directory (this one must have exited). */
    ServiceProcess restart() throws IOException {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") is still running");
        }
        return new ServiceProcess(config, dir, name, applicationId, partitions, javaOpts, moreRunArgs, start + 1);
    }

    Process process() {
        return process;
    }

    long pid() {
        return process.pid();
    }

    /** Its stdout (stderr beside it, {@code .err}). */
    Path output() {
        return out;
    }

    /** Whether the child has printed {@code running:} (Kafka Streams and the sink started). */
    boolean hasPrintedRunning() throws IOException {
        return Files.exists(out) && Files.readString(out).contains("running:");
    }

    /** Waits until the child has printed {@code running:} (Kafka Streams and the sink started), at most 3 minutes. */
    void awaitRunning() throws IOException, InterruptedException {
        awaitRunning(name, process, out);
    }

    /**
     * Waits until {@code process}, whose stdout goes to {@code out}, has printed {@code running:}, at
     * most 3 minutes; for the harnesses that start {@code dimstream} children of their own kind
     * ({@code SoakBenchmark}'s service and admin).
     */
    static void awaitRunning(String name, Process process, Path out) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + out);
            }
            if (Files.exists(out) && Files.readString(out).contains("running:")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(name + " did not start within 3 minutes; see " + out);
    }

    /** SIGKILL ({@link Process#destroyForcibly()} on Linux), and waits until the process is gone. */
    void kill() throws InterruptedException {
        log("SIGKILL to %s, pid %d", name, process.pid());
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") still alive 30 s after SIGKILL");
        }
    }

    /** SIGTERM, and waits until the service has stopped (at most 2 minutes); returns the seconds it took. */
    double terminate() throws InterruptedException {
        log("SIGTERM to %s, pid %d", name, process.pid());
        long t0 = System.nanoTime();
        process.destroy();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") did not stop within 2 minutes of SIGTERM; see " + out);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** SIGKILL to every child this JVM started that is still alive, waiting for each to be gone. */
    static void killAll() throws InterruptedException {
        List<Process> alive;
        synchronized (STARTED) {
            alive = STARTED.stream().filter(Process::isAlive).toList();
        }
        for (Process p : alive) {
            log("SIGKILL to the service still running, pid %d", p.pid());
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** A timestamped line on stdout: what the harness did when. */
    static void log(String format, Object... args) {
        System.out.println(Instant.now() + " " + String.format(Locale.ROOT, format, args));
    }
}
