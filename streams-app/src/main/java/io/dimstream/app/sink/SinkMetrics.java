package io.dimstream.app.sink;

import io.dimstream.db.write.ApplyResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The streaming sink's meters (DESIGN section 4, "Metrics"), registered on the registry it is
 * given ({@code PrometheusMeterRegistry} in the service, {@code SimpleMeterRegistry} in tests):
 *
 * <ul>
 *   <li>{@value #BATCH_SIZE} (distribution summary, tag {@code entity}): change records per
 *       committed batch;</li>
 *   <li>{@value #APPLY} (timer, tag {@code entity}): one batch's PostgreSQL transaction, apply
 *       and offset update and commit;</li>
 *   <li>{@value #LAG} (gauge, tags {@code topic}, {@code partition}): end offset of the partition
 *       minus the next offset stored in PostgreSQL, for each partition this instance owns;</li>
 *   <li>{@value #REJECTS} (counter, tag {@code entity}): records written to
 *       {@code dimstream.sink_rejects};</li>
 *   <li>{@value #QUARANTINE} (counter, tag {@code entity}): events the writer quarantined;</li>
 *   <li>{@value #ERASED} (counter, tag {@code entity}; Prometheus {@code dimstream_events_erased_total}): events of
 *       erased keys the writer dropped ({@code io.dimstream.db.write.ErasedKeys}: a tombstone of {@code dimstream erase});</li>
 *   <li>{@value #ROWS_CHANGED} (counter, tag {@code entity}): version rows inserted, updated or
 *       deleted;</li>
 *   <li>{@value #EVENTS} (counter, tags {@code entity}, {@code class}): events by how the
 *       writer classified them (new, changed, deleted, unchanged, late, duplicate);</li>
 *   <li>{@value #DISAGREEMENTS} (counter, tags {@code entity}, {@code class}): per committed
 *       batch and class, how far the topology's count of that class (the {@code class} field of the
 *       change records) is from the writer's count for the same events ({@code ClassDisagreement});
 *       registered at its first disagreement;</li>
 *   <li>{@value #VALIDATED} (counter, tags {@code entity}, {@code reason}): change records the sink
 *       validated again instead of taking the topology's typed event as written: {@code other-shape}
 *       (typed for a shape of the entity this instance does not have, e.g. a column added by another
 *       instance meanwhile); registered at its first such record;</li>
 *   <li>{@value #FAILURES} (counter, tags {@code entity}, {@code kind}): batch transactions of a
 *       partition that failed for a reason neither transient nor a record's ({@code other}, or
 *       {@code data} when a refused value escaped the isolation of records, e.g. in a snapshot marker's deletes);</li>
 *   <li>{@value #STOPPED} (counter, tag {@code entity}): partitions stopped because their stored
 *       offset left the changes topic's log; {@value #GAPS} (counter, tag {@code entity}): offsets
 *       skipped past such a gap (recorded in {@code dimstream.sink_gaps});</li>
 *   <li>{@value #REGRESSED} (counter, tag {@code entity}): times a partition's stored offset was found
 *       behind what this instance had committed: PostgreSQL lost acknowledged commits (an asynchronous
 *       failover, a restore), whose changes are read and applied again ({@code StoredOffsetMoved});</li>
 *   <li>{@value #RUNNING} (gauge): 1 while the sink's thread runs, 0 once it stopped or failed;
 *       {@value #STUCK} (gauge): partitions with records left and no progress for longer than
 *       {@code sink.stuck-after}, stopped ones included.</li>
 * </ul>
 * Thread-safe: the sink's thread records, a scrape reads.
 */
public final class SinkMetrics {

    public static final String BATCH_SIZE = "dimstream.sink.batch.size";
    public static final String APPLY = "dimstream.sink.apply";
    public static final String LAG = "dimstream.sink.lag";
    public static final String REJECTS = "dimstream.sink.rejects";
    public static final String QUARANTINE = "dimstream.quarantine";
    public static final String ROWS_CHANGED = "dimstream.rows.changed";
    public static final String ERASED = "dimstream.events.erased";
    public static final String EVENTS = "dimstream.sink.events";
    public static final String DISAGREEMENTS = "dimstream.sink.class.disagreements";
    public static final String VALIDATED = "dimstream.sink.records.validated";
    public static final String FAILURES = "dimstream.sink.partition.failures";
    public static final String STOPPED = "dimstream.sink.partitions.stopped";
    public static final String GAPS = "dimstream.sink.gap.offsets";
    public static final String REGRESSED = "dimstream.sink.offsets.regressed";
    public static final String RUNNING = "dimstream.sink.running";
    public static final String STUCK = "dimstream.sink.partitions.stuck";

    private final MeterRegistry registry;
    private final Map<TopicPartition, LagGauge> lags = new ConcurrentHashMap<>();

    private record LagGauge(AtomicLong value, Gauge gauge) {
    }

    public SinkMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Records one committed batch of {@code records} change records of {@code entity}. */
    public void batchCommitted(String entity, int records, Duration took, ApplyResult result, int rejects) {
        DistributionSummary.builder(BATCH_SIZE).description("change records per committed sink batch")
                .baseUnit("records").tag("entity", entity).register(registry).record(records);
        Timer.builder(APPLY).description("one sink batch: apply, offsets, commit").tag("entity", entity)
                .register(registry).record(took);
        counter(REJECTS, entity, "records the sink could not apply, kept in dimstream.sink_rejects").increment(rejects);
        counter(QUARANTINE, entity, "events beyond the lateness horizon, kept in dimstream.quarantine")
                .increment(result.quarantined());
        counter(ERASED, entity, "events of erased keys dropped by their tombstone (dimstream erase)").increment(result.erased());
        counter(ROWS_CHANGED, entity, "version rows inserted, updated or deleted")
                .increment(result.rowsInserted() + result.rowsUpdated() + result.rowsDeleted());
        events(entity, "new", result.newKeys());
        events(entity, "changed", result.changed());
        events(entity, "deleted", result.deleted());
        events(entity, "unchanged", result.unchanged());
        events(entity, "late", result.late());
        events(entity, "duplicate", result.duplicates());
    }

    /** Records a committed batch's class disagreements ({@link ClassDisagreement}); nothing when they agree. */
    public void classDisagreements(String entity, java.util.Map<io.dimstream.app.change.ChangeClass, Integer> byClass) {
        byClass.forEach((cls, n) -> Counter.builder(DISAGREEMENTS)
                .description("events the topology and the writer classified differently, by the topology's class count")
                .tag("entity", entity).tag("class", cls.name().toLowerCase(java.util.Locale.ROOT))
                .register(registry).increment(n));
    }

    /** Records a committed batch's change records validated again, by why ({@link SinkTransaction.Committed}); nothing when none. */
    public void recordsValidated(String entity, Map<String, Integer> byReason) {
        byReason.forEach((reason, n) -> Counter.builder(VALIDATED)
                .description("change records the sink validated again instead of taking the typed form as written, by why")
                .tag("entity", entity).tag("reason", reason).register(registry).increment(n));
    }

    private Counter counter(String name, String entity, String description) {
        return Counter.builder(name).description(description).tag("entity", entity).register(registry);
    }

    private void events(String entity, String changeClass, int n) {
        Counter.builder(EVENTS).description("events applied by the sink, by class").tag("entity", entity)
                .tag("class", changeClass).register(registry).increment(n);
    }

    /**
     * Registers the gauges read from the sink's published status ({@value #RUNNING}, {@value #STUCK});
     * held strongly (a gauge holds its object weakly by default, and a method reference would be
     * collected at once).
     */
    public void bindStatus(java.util.function.Supplier<io.dimstream.app.sink.SinkStatus> status) {
        Gauge.builder(RUNNING, status, s -> {
            io.dimstream.app.sink.SinkStatus.State st = s.get().state();
            return st == io.dimstream.app.sink.SinkStatus.State.RUNNING || st == io.dimstream.app.sink.SinkStatus.State.STARTING ? 1 : 0;
        }).description("1 while the sink's thread runs").strongReference(true).register(registry);
        Gauge.builder(STUCK, status, s -> s.get().partitions().stream().filter(p -> p.stuck()).count())
                .description("partitions with records left and no progress for longer than sink.stuck-after")
                .strongReference(true).register(registry);
    }

    public void partitionFailure(String entity, String kind) {
        Counter.builder(FAILURES).description("failed batch transactions of a partition, neither transient nor a record's fault")
                .tag("entity", entity).tag("kind", kind).register(registry).increment();
    }

    /** A partition's stored offset was behind what this instance committed: PostgreSQL lost commits. */
    public void offsetsRegressed(String entity) {
        counter(REGRESSED, entity, "stored sink offsets found behind what this instance committed: PostgreSQL lost commits, "
                + "applied again").increment();
    }

    public void partitionStopped(String entity) {
        counter(STOPPED, entity, "partitions stopped because their stored offset left the changes topic's log").increment();
    }

    public void gap(String entity, long offsets) {
        counter(GAPS, entity, "changes-topic offsets skipped past a gap (dimstream.sink_gaps)").increment(offsets);
    }

    /** Sets the lag of a partition this instance owns (registering its gauge on first use). */
    public void lag(TopicPartition tp, long lag) {
        lags.computeIfAbsent(tp, this::newLagGauge).value().set(lag);
    }

    /** Drops the gauge of a partition this instance no longer owns. */
    public void forget(TopicPartition tp) {
        LagGauge g = lags.remove(tp);
        if (g != null) {
            registry.remove(g.gauge());
        }
    }

    private LagGauge newLagGauge(TopicPartition tp) {
        AtomicLong v = new AtomicLong(-1);
        Gauge g = Gauge.builder(LAG, v, a -> a.get() < 0 ? Double.NaN : a.get())
                .description("end offset minus the next offset the sink stored in PostgreSQL")
                .baseUnit("records").tag("topic", tp.topic()).tag("partition", Integer.toString(tp.partition()))
                .register(registry);
        return new LagGauge(v, g);
    }

    /**
     * Binds the Kafka client's own metrics (fetch rates, records lag, rebalance times, ...) to the
     * registry via Micrometer's {@link KafkaClientMetrics}; close the result with the consumer.
     */
    public AutoCloseable bindKafkaClient(Consumer<?, ?> consumer) {
        KafkaClientMetrics m = new KafkaClientMetrics(consumer);
        m.bindTo(registry);
        return m;
    }
}
