package io.dimstream.app.health;

import io.dimstream.app.sink.SinkStatus;
import io.dimstream.app.topology.StreamThreadSupervisor;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's health, for {@code /health/live} and {@code /health/ready} on the metrics port.
 *
 * <p><b>Live</b> (restarting the process would help): the sink's thread has not died, no entity's
 * Kafka Streams client is in {@code ERROR} (or shutting down for good) and no stream thread died of a
 * fatal cause.
 * <b>Ready</b> (events flow): live, and the sink has no stuck or stopped partition and is not
 * waiting for PostgreSQL, every Kafka Streams client (one per entity, or shared: {@code streams-client}) is {@code RUNNING} or {@code REBALANCING} with no stream
 * thread replaced after a transient failure (a schema registry outage, say) within the last minute
 * ({@link StreamThreadSupervisor#RESET_AFTER}), the sink has not been inside one wave of PostgreSQL
 * transactions for longer than {@link #APPLY_SLOW} (its thread blocked on a hung server publishes nothing
 * else meanwhile), and PostgreSQL and the Kafka cluster answered the last probe. A stuck partition or an unreachable database
 * makes the service not ready but leaves it live: a restart cures neither.
 *
 * <p>PostgreSQL and Kafka are probed on a thread of their own every {@code every} (with their own
 * timeouts), so a request never waits on a dead server; the reports read the last results. A probe
 * result older than three periods counts as down (the probing thread itself is stuck).
 */
public final class HealthMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);

    /**
     * A sink inside one wave of transactions longer than this is not ready: it writes nothing, and a
     * batch takes a fraction of a second to a few seconds when PostgreSQL answers. A legitimately slow
     * batch (waiting behind a replay's or a load's exclusive writer lock) shows as not ready meanwhile,
     * which is true: nothing is written then either.
     */
    static final Duration APPLY_SLOW = Duration.ofSeconds(30);

    private final Supplier<SinkStatus> sink;
    private final Supplier<List<StreamsClientState>> streams;
    private final Map<String, Callable<String>> probes;
    private final Duration every;
    private final Map<String, Probed> last = new java.util.concurrent.ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;

    private record Probed(boolean up, String detail, Instant at) {
    }

    /**
     * @param sink         the sink's published status
     * @param streams      each Kafka Streams client: its state and its stream threads' deaths
     * @param probes       by name ("postgres", "kafka"): each returns a one-line detail or throws
     * @param every        how often the probes run
     */
    public HealthMonitor(Supplier<SinkStatus> sink, Supplier<List<StreamsClientState>> streams,
                         Map<String, Callable<String>> probes, Duration every) {
        this.sink = sink;
        this.streams = streams;
        this.probes = Map.copyOf(probes);
        this.every = every;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-health");
            t.setDaemon(true);
            return t;
        });
        probes.keySet().forEach(name -> last.put(name, new Probed(false, "not probed yet", Instant.now())));
        scheduler.scheduleWithFixedDelay(this::probeAll, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void probeAll() {
        probes.forEach((name, probe) -> {
            Probed before = last.get(name);
            Probed now;
            try {
                now = new Probed(true, probe.call(), Instant.now());
            } catch (Exception e) {
                now = new Probed(false, failure(e), Instant.now());
            }
            last.put(name, now);
            if (before != null && before.up() != now.up() && !"not probed yet".equals(before.detail())) {
                if (now.up()) {
                    LOG.info("health: {} is reachable again ({})", name, now.detail());
                } else {
                    LOG.warn("health: {} is unreachable: {}", name, now.detail());
                }
            }
        });
    }

    /**
     * A probe's failure in one line: the exception and, when it has a cause, its innermost cause
     * ({@code PSQLException: An I/O error occurred while sending to the backend. (EOFException: null)}):
     * the outer says what failed, the inner why.
     */
    static String failure(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String outer = e.getClass().getSimpleName() + ": " + e.getMessage();
        return root == e ? outer : outer + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }

    /** Restarting the process would help when this is down. */
    public HealthReport live() {
        Map<String, HealthReport.Check> checks = new LinkedHashMap<>();
        SinkStatus s = sink.get();
        checks.put("sink", s.state() == SinkStatus.State.FAILED
                ? HealthReport.Check.down("the sink's thread died: " + s.failure().orElse("?"))
                : HealthReport.Check.up(s.state().name().toLowerCase(java.util.Locale.ROOT)));
        checks.put("streams", streamsCheck(HealthMonitor::streamsLive));
        return HealthReport.of(checks);
    }

    /** Events flow when this is up. */
    public HealthReport ready() {
        Map<String, HealthReport.Check> checks = new LinkedHashMap<>();
        checks.put("sink", sinkReady(sink.get()));
        checks.put("streams", streamsCheck(HealthMonitor::streamsReady));
        Instant stale = Instant.now().minus(every.multipliedBy(3));
        probes.keySet().stream().sorted(Comparator.comparing((String n) -> !"postgres".equals(n)).thenComparing(n -> n))
                .forEach(name -> {
                    Probed p = last.get(name);
                    checks.put(name, p.at().isBefore(stale) && p.up()
                            ? HealthReport.Check.down("no probe answer since " + p.at())
                            : new HealthReport.Check(p.up(), p.detail()));
                });
        return HealthReport.of(checks);
    }

    /**
     * One check over every Kafka Streams client: UP when each is; its detail the clients' common detail
     * ({@code RUNNING}), or each client's own when they differ ({@link StreamsClientState#label}), those down first.
     */
    private HealthReport.Check streamsCheck(Function<StreamsClientState, HealthReport.Check> check) {
        List<StreamsClientState> clients = streams.get();
        Map<String, HealthReport.Check> byClient = new LinkedHashMap<>();
        clients.stream().sorted(Comparator.comparing(StreamsClientState::label)).forEach(c -> byClient.put(c.label(), check.apply(c)));
        boolean up = byClient.values().stream().allMatch(HealthReport.Check::up);
        Set<String> details = byClient.values().stream().map(HealthReport.Check::detail).collect(Collectors.toSet());
        if (details.size() == 1) {
            return new HealthReport.Check(up, details.iterator().next());
        }
        return new HealthReport.Check(up, byClient.entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<String, HealthReport.Check> e) -> e.getValue().up()))
                .map(e -> e.getKey() + ": " + e.getValue().detail()).collect(Collectors.joining("; ")));
    }

    private static HealthReport.Check streamsLive(StreamsClientState c) {
        Optional<Throwable> fatal = c.threads().fatal();
        if (fatal.isPresent()) {
            return HealthReport.Check.down("a stream thread died of a fatal cause: " + fatal.get());
        }
        KafkaStreams.State st = c.state();
        if (st == KafkaStreams.State.ERROR || st == KafkaStreams.State.PENDING_ERROR) {
            return HealthReport.Check.down(st.name());
        }
        return HealthReport.Check.up(st.name());
    }

    private static HealthReport.Check streamsReady(StreamsClientState c) {
        HealthReport.Check live = streamsLive(c);
        StreamThreadSupervisor.Health t = c.threads();
        if (!live.up()) {
            return live;
        }
        if (t.status() == StreamThreadSupervisor.Status.RECOVERING) {
            return HealthReport.Check.down("a stream thread died of a transient cause at " + t.lastFailure().orElse(null)
                    + " and was replaced (" + t.failures() + " deaths so far): " + t.lastCause().orElse("?"));
        }
        KafkaStreams.State st = c.state();
        return st == KafkaStreams.State.RUNNING || st == KafkaStreams.State.REBALANCING
                ? HealthReport.Check.up(st.name()) : HealthReport.Check.down(st.name());
    }

    private static HealthReport.Check sinkReady(SinkStatus s) {
        if (s.state() == SinkStatus.State.FAILED) {
            return HealthReport.Check.down("the sink's thread died: " + s.failure().orElse("?"));
        }
        if (s.state() == SinkStatus.State.STOPPED) {
            return HealthReport.Check.down("stopped");
        }
        if (s.database().isPresent()) {
            return HealthReport.Check.down("waiting for PostgreSQL: " + s.database().get());
        }
        if (s.applying().isPresent()) {
            Duration inside = Duration.between(s.applying().get().since(), Instant.now());
            if (inside.compareTo(APPLY_SLOW) > 0) {
                return HealthReport.Check.down("no answer from PostgreSQL for " + inside.toSeconds() + " s, inside the transaction applying "
                        + s.applying().get().what());
            }
        }
        List<String> problems = s.partitions().stream()
                .filter(p -> p.stuck() || p.stopped().isPresent())
                .map(p -> p.topic() + "-" + p.partition() + (p.stopped().isPresent() ? " stopped: " + p.stopped().get()
                        : " stuck for " + p.sinceProgress().toSeconds() + " s with " + Math.max(p.lag(), p.buffered())
                        + " records left" + p.failing().map(f -> ": " + f).orElse("")))
                .collect(Collectors.toList());
        if (!problems.isEmpty()) {
            return HealthReport.Check.down(String.join("; ", problems));
        }
        long failing = s.partitions().stream().filter(p -> p.failing().isPresent()).count();
        return HealthReport.Check.up(s.partitions().size() + " partitions" + (failing > 0 ? ", " + failing + " retrying" : ""));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
