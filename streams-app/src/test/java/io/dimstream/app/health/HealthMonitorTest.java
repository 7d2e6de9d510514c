package io.dimstream.app.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.sink.SinkStatus;
import io.dimstream.app.topology.StreamThreadSupervisor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/** Live and ready from the parts' states, with the probes and states played by the test. */
class HealthMonitorTest {

    private final AtomicReference<SinkStatus> sink = new AtomicReference<>(running(partition(false, Optional.empty(), Optional.empty())));
    private final AtomicReference<KafkaStreams.State> streams = new AtomicReference<>(KafkaStreams.State.RUNNING);
    private final AtomicReference<StreamThreadSupervisor.Health> threads = new AtomicReference<>(
            new StreamThreadSupervisor.Health(StreamThreadSupervisor.Status.OK, 0, Optional.empty(), Optional.empty(), Optional.empty()));
    /** A second entity's client, {@code orders}, when a test sets it. */
    private final AtomicReference<StreamsClientState> orders = new AtomicReference<>();
    private final AtomicReference<String> postgres = new AtomicReference<>("answered in 2 ms");

    private static SinkStatus.Partition partition(boolean stuck, Optional<String> failing, Optional<String> stopped) {
        return new SinkStatus.Partition("dimstream.customer.changes", 1, "customer", 120, stuck ? 40 : 0, stuck ? 40 : 0, failing,
                stopped, Duration.ofSeconds(stuck ? 400 : 1), stuck);
    }

    private static SinkStatus running(SinkStatus.Partition... parts) {
        return new SinkStatus(SinkStatus.State.RUNNING, Optional.empty(), Optional.empty(), List.of(parts));
    }

    private HealthMonitor monitor() {
        Map<String, Callable<String>> probes = new LinkedHashMap<>();
        probes.put("postgres", () -> {
            String v = postgres.get();
            if (v == null) {
                throw new java.sql.SQLException("Connection refused", "08001");
            }
            return v;
        });
        probes.put("kafka", () -> "1 broker");
        return new HealthMonitor(sink::get, () -> {
            StreamsClientState customer = new StreamsClientState("customer", List.of("customer"), streams.get(), threads.get());
            return orders.get() == null ? List.of(customer) : List.of(customer, orders.get());
        }, probes, Duration.ofMillis(50));
    }

    private static Map<String, HealthReport.Check> checks(Object... nameUpDetail) {
        Map<String, HealthReport.Check> m = new LinkedHashMap<>();
        for (int i = 0; i < nameUpDetail.length; i += 3) {
            m.put((String) nameUpDetail[i], new HealthReport.Check((Boolean) nameUpDetail[i + 1], (String) nameUpDetail[i + 2]));
        }
        return m;
    }

    @Test
    void everythingRunningIsLiveAndReady() {
        try (HealthMonitor h = monitor()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            assertThat(h.ready()).isEqualTo(new HealthReport(true, checks("sink", true, "1 partitions", "streams", true, "RUNNING",
                    "postgres", true, "answered in 2 ms", "kafka", true, "1 broker")));
            assertThat(h.live()).isEqualTo(new HealthReport(true, checks("sink", true, "running", "streams", true, "RUNNING")));
            assertThat(h.ready().toJson()).isEqualTo(Map.of("status", "UP", "checks", Map.of(
                    "sink", Map.of("status", "UP", "detail", "1 partitions"),
                    "streams", Map.of("status", "UP", "detail", "RUNNING"),
                    "postgres", Map.of("status", "UP", "detail", "answered in 2 ms"),
                    "kafka", Map.of("status", "UP", "detail", "1 broker"))));
        }
    }

    @Test
    void aStuckPartitionOrAnUnreachableDatabaseMakesItNotReadyButLeavesItLive() {
        try (HealthMonitor h = monitor()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            sink.set(running(partition(true, Optional.of("ERROR: column \"city\" does not exist (SQL state 42703)"), Optional.empty())));
            postgres.set(null);
            await().atMost(Duration.ofSeconds(5)).until(() -> !h.ready().checks().get("postgres").up());

            assertThat(h.ready()).isEqualTo(new HealthReport(false, checks(
                    "sink", false, "dimstream.customer.changes-1 stuck for 400 s with 40 records left: ERROR: column \"city\" does not"
                            + " exist (SQL state 42703)",
                    "streams", true, "RUNNING",
                    "postgres", false, "SQLException: Connection refused",
                    "kafka", true, "1 broker")));
            assertThat(h.live().up()).isTrue();
        }
    }

    @Test
    void aDeadSinkThreadOrAFatalStreamThreadMakesItNotLive() {
        try (HealthMonitor h = monitor()) {
            sink.set(new SinkStatus(SinkStatus.State.FAILED, Optional.of("java.lang.OutOfMemoryError: Java heap space"), Optional.empty(),
                    List.of()));
            threads.set(new StreamThreadSupervisor.Health(StreamThreadSupervisor.Status.FAILED, 1, Optional.of(java.time.Instant.EPOCH),
                    Optional.of("org.apache.kafka.common.errors.TopicAuthorizationException: not authorized"),
                    Optional.of(new org.apache.kafka.common.errors.TopicAuthorizationException("not authorized"))));

            assertThat(h.live()).isEqualTo(new HealthReport(false, checks(
                    "sink", false, "the sink's thread died: java.lang.OutOfMemoryError: Java heap space",
                    "streams", false, "a stream thread died of a fatal cause: org.apache.kafka.common.errors.TopicAuthorizationException:"
                            + " not authorized")));
            assertThat(h.ready().up()).isFalse();
        }
    }

    @Test
    void aStreamThreadReplacedAfterATransientFailureMakesItNotReadyButLeavesItLive() {
        try (HealthMonitor h = monitor()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            threads.set(new StreamThreadSupervisor.Health(StreamThreadSupervisor.Status.RECOVERING, 3,
                    Optional.of(java.time.Instant.parse("2026-12-01T10:00:00Z")),
                    Optional.of("io.dimstream.schemas.registry.SchemaRegistryUnavailableException: connection refused"), Optional.empty()));
            assertThat(h.ready().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "a stream thread died of a"
                    + " transient cause at 2026-12-01T10:00:00Z and was replaced (3 deaths so far): io.dimstream.schemas.registry."
                    + "SchemaRegistryUnavailableException: connection refused"));
            assertThat(h.live().up()).isTrue();
        }
    }

    @Test
    void aProbeFailureSaysWhatFailedAndWhy() {
        assertThat(HealthMonitor.failure(new java.sql.SQLException("Connection refused", "08001")))
                .isEqualTo("SQLException: Connection refused");
        assertThat(HealthMonitor.failure(new java.sql.SQLException("An I/O error occurred while sending to the backend.", "08006",
                new java.io.IOException("wrapped", new java.io.EOFException()))))
                .isEqualTo("SQLException: An I/O error occurred while sending to the backend. (EOFException: null)");
    }

    @Test
    void oneEntitysClientRecoveringIsNamedWithTheOthersStates() {
        try (HealthMonitor h = monitor()) {
            orders.set(new StreamsClientState("orders", List.of("orders"), KafkaStreams.State.RUNNING, threads.get()));
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            assertThat(h.ready().checks().get("streams")).isEqualTo(new HealthReport.Check(true, "RUNNING"));
            orders.set(new StreamsClientState("orders", List.of("orders"), KafkaStreams.State.RUNNING, new StreamThreadSupervisor.Health(
                    StreamThreadSupervisor.Status.RECOVERING, 1, Optional.of(java.time.Instant.parse("2026-12-01T10:00:00Z")),
                    Optional.of("io.dimstream.schemas.registry.SchemaRegistryUnavailableException: 500"), Optional.empty())));
            assertThat(h.ready().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "orders: a stream thread died of a"
                    + " transient cause at 2026-12-01T10:00:00Z and was replaced (1 deaths so far): io.dimstream.schemas.registry."
                    + "SchemaRegistryUnavailableException: 500; customer: RUNNING"));
            assertThat(h.live()).isEqualTo(new HealthReport(true, checks("sink", true, "running", "streams", true, "RUNNING")));
            orders.set(new StreamsClientState("orders", List.of("orders"), KafkaStreams.State.ERROR, threads.get()));
            assertThat(h.live().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "orders: ERROR; customer: RUNNING"));
        }
    }

    @Test
    void aSharedClientIsNamedWithTheEntitiesItRuns() {
        try (HealthMonitor h = monitor()) {
            orders.set(new StreamsClientState("shop", List.of("orders", "items", "payments", "refunds", "carts"), KafkaStreams.State.ERROR,
                    threads.get()));
            assertThat(h.live().checks().get("streams")).isEqualTo(new HealthReport.Check(false,
                    "shop (orders, items, payments, +2 more): ERROR; customer: RUNNING"));
            orders.set(new StreamsClientState("crm", List.of("accounts", "contacts"), KafkaStreams.State.ERROR, threads.get()));
            assertThat(h.live().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "crm (accounts, contacts): ERROR; customer: RUNNING"));
        }
    }

    @Test
    void streamsInErrorIsNotLiveAndRebalancingIsStillReady() {
        try (HealthMonitor h = monitor()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            streams.set(KafkaStreams.State.REBALANCING);
            assertThat(h.ready().up()).isTrue();
            streams.set(KafkaStreams.State.ERROR);
            assertThat(h.live().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "ERROR"));
            assertThat(h.ready().checks().get("streams")).isEqualTo(new HealthReport.Check(false, "ERROR"));
        }
    }

    @Test
    void aSinkWaitingForPostgresAndAStoppedPartitionAreNotReady() {
        try (HealthMonitor h = monitor()) {
            sink.set(new SinkStatus(SinkStatus.State.RUNNING, Optional.empty(), Optional.of("applying 5 records of t-0 failed: refused"),
                    List.of()));
            assertThat(h.ready().checks().get("sink"))
                    .isEqualTo(new HealthReport.Check(false, "waiting for PostgreSQL: applying 5 records of t-0 failed: refused"));
            sink.set(running(partition(false, Optional.empty(), Optional.of("stored offset 6 is outside the partition's log"))));
            assertThat(h.ready().checks().get("sink")).isEqualTo(new HealthReport.Check(false,
                    "dimstream.customer.changes-1 stopped: stored offset 6 is outside the partition's log"));
        }
    }

    @Test
    void aSinkInsideOneTransactionLongerThanTheBoundIsNotReadyNamingWhatItApplies() {
        try (HealthMonitor h = monitor()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> h.ready().up());
            SinkStatus before = running(partition(false, Optional.empty(), Optional.empty()));
            // the sink's thread entered a wave 1 s ago: at work, ready
            sink.set(new SinkStatus(before.state(), before.failure(), before.database(), before.partitions(), Optional.of(
                    new SinkStatus.Applying("500 records of dimstream.customer.changes-1", java.time.Instant.now().minusSeconds(1)))));
            assertThat(h.ready().checks().get("sink")).isEqualTo(new HealthReport.Check(true, "1 partitions"));
            // 45 s later it has not come back (a hung primary holds its commit): its published partitions look
            // fine, as they did when it entered, but the sink writes nothing
            sink.set(new SinkStatus(before.state(), before.failure(), before.database(), before.partitions(), Optional.of(
                    new SinkStatus.Applying("500 records of dimstream.customer.changes-1", java.time.Instant.now().minusSeconds(45)))));
            assertThat(h.ready()).isEqualTo(new HealthReport(false, checks(
                    "sink", false, "no answer from PostgreSQL for 45 s, inside the transaction applying 500 records of "
                            + "dimstream.customer.changes-1",
                    "streams", true, "RUNNING",
                    "postgres", true, "answered in 2 ms",
                    "kafka", true, "1 broker")));
            assertThat(h.live().up()).isTrue();
        }
    }
}
