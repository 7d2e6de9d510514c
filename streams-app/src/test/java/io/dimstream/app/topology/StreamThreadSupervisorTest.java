package io.dimstream.app.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.topology.StreamThreadSupervisor.Health;
import io.dimstream.app.topology.StreamThreadSupervisor.Status;
import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class StreamThreadSupervisorTest {

    private static final Instant T0 = Instant.parse("2026-01-05T10:00:00Z");

    /** A clock the test moves, and the backoffs the supervisor slept, instead of sleeping. */
    private final MutableClock clock = new MutableClock(T0);
    private final List<Duration> slept = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final StreamThreadSupervisor supervisor = new StreamThreadSupervisor(registry, "customer", Duration.ofSeconds(1), Duration.ofSeconds(5),
            Duration.ofMinutes(1), clock, d -> {
                slept.add(d);
                clock.advance(d);
            });

    private static StreamsException registryDown() {
        // what a stream thread dies of when the processing exception handler answers FAIL
        return new StreamsException("Exception caught in process", new StreamsException("Fatal user code error",
                new SchemaRegistryUnavailableException("schema registry unavailable for writer schema id 1: 503")));
    }

    @Test
    void transientCausesReplaceTheThreadAfterABackoffThatGrowsToItsCapAndStartsOverAfterAQuietMinute() {
        List<StreamThreadExceptionResponse> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(supervisor.handle(registryDown()));
        }
        answers.add(supervisor.handle(new StreamsException("task timed out", new TimeoutException("broker gone"))));
        assertThat(answers).containsOnly(StreamThreadExceptionResponse.REPLACE_THREAD).hasSize(6);
        assertThat(slept).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(5),
                Duration.ofSeconds(5), Duration.ofSeconds(5));

        Health recovering = supervisor.health();
        assertThat(recovering).isEqualTo(new Health(Status.RECOVERING, 6, Optional.of(T0.plusSeconds(17)),
                Optional.of("org.apache.kafka.common.errors.TimeoutException: broker gone"), Optional.empty()));

        clock.advance(Duration.ofMinutes(2));
        assertThat(supervisor.health().status()).isEqualTo(Status.OK);
        assertThat(supervisor.handle(registryDown())).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(slept.get(slept.size() - 1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(failures()).isEqualTo(Map.of(
                "io.dimstream.schemas.registry.SchemaRegistryUnavailableException", 6.0,
                "org.apache.kafka.common.errors.TimeoutException", 1.0));
        assertThat(supervisor.fatal()).isEmpty();
    }

    @Test
    void anyOtherCauseShutsTheClientDownCountedAndKeptAsFatal() {
        IllegalStateException bug = new IllegalStateException("key state of unknown format version 7");
        StreamsException death = new StreamsException("Exception caught in process", bug);

        assertThat(supervisor.handle(death)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);

        assertThat(slept).isEmpty();
        assertThat(supervisor.fatal()).containsSame(death);
        assertThat(supervisor.health()).isEqualTo(new Health(Status.FAILED, 1, Optional.of(T0),
                Optional.of("java.lang.IllegalStateException: key state of unknown format version 7"), Optional.of(death)));
        assertThat(failures()).isEqualTo(Map.of("java.lang.IllegalStateException", 1.0));
        // a later transient failure of another thread does not clear the fatal one
        assertThat(supervisor.handle(registryDown())).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(supervisor.health().status()).isEqualTo(Status.FAILED);
        assertThat(supervisor.fatal()).containsSame(death);
    }

    @Test
    void eachDistinctCauseIsLoggedOnceAtErrorThenAtDebug() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.err;
        // slf4j-simple writes to System.err, read when a logger is first used: a fresh name each run
        System.setErr(new java.io.PrintStream(err, true));
        try {
            supervisor.handle(registryDown());
            supervisor.handle(registryDown());
            supervisor.handle(registryDown());
            supervisor.handle(new StreamsException("x", new IllegalStateException("bug")));
        } finally {
            System.setErr(original);
        }
        String log = err.toString();
        assertThat(log.lines().filter(l -> l.contains("ERROR") && l.contains("transient cause")).count()).isEqualTo(1);
        assertThat(log.lines().filter(l -> l.contains("ERROR") && l.contains("not transient")).count()).isEqualTo(1);
        assertThat(log).contains("SchemaRegistryUnavailableException: schema registry unavailable for writer schema id 1: 503");
    }

    private Map<String, Double> failures() {
        Map<String, Double> m = new TreeMap<>();
        for (Counter c : registry.find(StreamThreadSupervisor.FAILURES).counters()) {
            assertThat(c.getId().getTag("client")).isEqualTo("customer");
            m.put(c.getId().getTag("cause"), c.count());
        }
        return m;
    }

    private static final class MutableClock extends Clock {
        private Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
