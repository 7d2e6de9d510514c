package io.dimstream.app.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what becomes of a Kafka Streams thread that died (its uncaught exception handler), and
 * keeps what happened for the health endpoints.
 *
 * <ul>
 *   <li>A transient cause ({@link TransientFailures}: the schema registry away, a Kafka timeout):
 *       REPLACE_THREAD, after a backoff that grows with each consecutive failure ({@code first},
 *       doubling, at most {@code max}; a failure more than {@code resetAfter} after the previous one
 *       starts again at {@code first}). The backoff blocks the dying thread, which is what keeps a
 *       failing registry from being asked in a tight loop; it is interruptible and a few seconds at
 *       most, far below the consumer's {@code max.poll.interval.ms}.</li>
 *   <li>Anything else: SHUTDOWN_CLIENT. Every record-level failure is dead-lettered by the processing
 *       and production exception handlers, so what reaches here is not the record's fault (a bug, an
 *       authorization or configuration error, a broken state directory) and a new thread would only
 *       meet it again. Kafka Streams goes to ERROR, {@link #fatal()} holds the cause, and health says
 *       FAILED.</li>
 * </ul>
 * One supervisor per Kafka Streams client (an entity's own, or one entities share: {@code streams-client}).
 * Every death counts in {@value #FAILURES} tagged {@code client} (the client's name) and {@code cause}
 * (the class of the innermost cause),
 * and each distinct cause (its chain of exception classes) is logged once at ERROR with its stack
 * trace, then at DEBUG, so a registry outage does not flood the log. Thread-safe: Kafka Streams calls
 * {@link #handle} on the dying thread, the health endpoints read {@link #health()} from theirs.
 */
public final class StreamThreadSupervisor implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(StreamThreadSupervisor.class);

    /** Counter name; Prometheus: {@code dimstream_stream_thread_failures_total}. */
    public static final String FAILURES = "dimstream.stream.thread.failures";
    /** 1 s, doubling: 1, 2, 4 s. */
    public static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    /** A few seconds at most per attempt, so the dying thread is never blocked for long. */
    public static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /** A minute without a failure: the next one is a new episode, backed off from {@link #FIRST_BACKOFF} again. */
    public static final Duration RESET_AFTER = Duration.ofMinutes(1);

    /** What the health endpoints see. */
    public enum Status {
        /** No thread died within {@link #RESET_AFTER} (or ever). */
        OK,
        /** A thread died of a transient cause within {@link #RESET_AFTER} and was replaced. */
        RECOVERING,
        /** A thread died of a cause that is not transient; the client was shut down. */
        FAILED
    }

    /**
     * @param failures    thread deaths so far, all causes
     * @param lastFailure when the last one happened
     * @param lastCause   its innermost cause, as {@code class: message}
     * @param fatal       the failure that shut the client down, if one did
     */
    public record Health(Status status, long failures, Optional<Instant> lastFailure, Optional<String> lastCause,
                         Optional<Throwable> fatal) {
    }

    /** Sleeps the dying thread; a seam for tests. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final MeterRegistry registry;
    private final String client;
    private final Duration first;
    private final Duration max;
    private final Duration resetAfter;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Throwable> fatal = new AtomicReference<>();
    /** All mutable state below is guarded by {@code this}. */
    private long failures;
    private int consecutive;
    private Instant lastFailure;
    private String lastCause;

    /** @param client the name of the Kafka Streams client this supervises (its failures are counted under it) */
    public StreamThreadSupervisor(MeterRegistry registry, String client) {
        this(registry, client, FIRST_BACKOFF, MAX_BACKOFF, RESET_AFTER, Clock.systemUTC(), d -> Thread.sleep(d.toMillis()));
    }

    StreamThreadSupervisor(MeterRegistry registry, String client, Duration first, Duration max, Duration resetAfter, Clock clock,
            Sleeper sleeper) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.client = Objects.requireNonNull(client, "client");
        this.first = first;
        this.max = max;
        this.resetAfter = resetAfter;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        Throwable root = innermost(exception);
        Optional<Throwable> transientCause = TransientFailures.transientCause(exception);
        Throwable tagged = transientCause.orElse(root);
        Counter.builder(FAILURES)
                .description("Kafka Streams threads that died, by Kafka Streams client and the class of their cause")
                .tag("client", client)
                .tag("cause", tagged.getClass().getName())
                .register(registry).increment();
        Duration backoff;
        synchronized (this) {
            Instant now = clock.instant();
            consecutive = lastFailure != null && Duration.between(lastFailure, now).compareTo(resetAfter) > 0 ? 1 : consecutive + 1;
            failures++;
            lastFailure = now;
            lastCause = tagged.getClass().getName() + ": " + tagged.getMessage();
            backoff = backoff(consecutive);
        }
        String thread = Thread.currentThread().getName();
        if (transientCause.isEmpty()) {
            fatal.compareAndSet(null, exception);
            log(exception, "Kafka Streams thread {} failed ({}); the cause is not transient, so the Kafka Streams client "
                    + client + " is shut down (it goes to ERROR; the other clients go on)", thread);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        log(exception, "Kafka Streams thread {} failed of a transient cause ({}); replacing it after " + backoff.toMillis()
                + " ms (failure " + consecutive + " in a row)", thread);
        try {
            sleeper.sleep(backoff);
        } catch (InterruptedException e) {
            // being closed: the client will not start the replacement anyway; keep the interrupt for it
            Thread.currentThread().interrupt();
        }
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** The backoff before the replacement of the {@code n}th failure in a row. */
    Duration backoff(int n) {
        long ms = first.toMillis() << Math.min(n - 1, 20);
        return Duration.ofMillis(Math.min(ms, max.toMillis()));
    }

    /** The failure that shut the Kafka Streams client down, if one did. */
    public Optional<Throwable> fatal() {
        return Optional.ofNullable(fatal.get());
    }

    /** When the last stream thread died, if one did. */
    public synchronized Optional<Instant> lastFailure() {
        return Optional.ofNullable(lastFailure);
    }

    public synchronized Health health() {
        Status status;
        if (fatal.get() != null) {
            status = Status.FAILED;
        } else if (lastFailure != null && Duration.between(lastFailure, clock.instant()).compareTo(resetAfter) <= 0) {
            status = Status.RECOVERING;
        } else {
            status = Status.OK;
        }
        return new Health(status, failures, Optional.ofNullable(lastFailure), Optional.ofNullable(lastCause), fatal());
    }

    private void log(Throwable exception, String message, String thread) {
        String cause = innermost(exception).toString();
        if (logged.add(chain(exception))) {
            LOG.error(message + " (logged once for this cause, then at DEBUG)", thread, cause, exception);
        } else {
            LOG.debug(message, thread, cause, exception);
        }
    }

    /** The classes of the cause chain, outermost first: what makes two failures "the same cause". */
    private static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        int depth = 0;
        for (Throwable t = e; t != null && depth < 32; t = t.getCause(), depth++) {
            b.append(t.getClass().getName()).append('<');
        }
        return b.toString();
    }

    private static Throwable innermost(Throwable e) {
        Throwable t = e;
        int depth = 0;
        while (t.getCause() != null && t.getCause() != t && depth++ < 32) {
            t = t.getCause();
        }
        return t;
    }
}
