package io.dimstream.app.service;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.retention.HistoryRetainer;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.write.MemoryPruner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schedule of the event memory's pruning and of history retention: every
 * {@code service.prune-interval}, on a daemon thread of its own, each entity's remembered events
 * beyond its lateness horizon are dropped by {@link MemoryPruner} (the SQL is the writer's, in db),
 * then, for an entity with {@code history-retention} or {@code history-grain}, its old versions are
 * retired by {@link HistoryRetainer} and counted in {@value #RETIRED}{@code {entity,cause}} (cause
 * {@code retention}, {@code grain} or {@code superseded}). Each runs with the entity's shape as it is
 * at that turn ({@link EntityShapes}: a column added while running is the anchors' too). A failure is
 * logged and retried at the next turn. {@link #close()} stops the thread.
 */
final class MemoryPruning implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryPruning.class);

    /**
     * Versions retention removed: Prometheus {@code dimstream_versions_retired_total}. One counter
     * for the three causes, so that a sum says how much history left the database and the cause tag
     * which policy took it; "retired" and not "deleted", since the grain's also extends the versions
     * it keeps.
     */
    static final String RETIRED = "dimstream.versions.retired";

    private final ScheduledExecutorService executor;

    /** Set by {@link #close()}: a turn cut short by the stop is no failure to warn of. */
    private volatile boolean stopping;

    private MemoryPruning(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** Starts pruning every {@code interval}, the first time one interval from now. */
    static MemoryPruning start(MemoryPruner pruner, HistoryRetainer retainer, EntityShapes shapes, Duration interval, MeterRegistry registry) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-pruner");
            t.setDaemon(true);
            return t;
        });
        MemoryPruning pruning = new MemoryPruning(executor);
        long every = interval.toMillis();
        executor.scheduleWithFixedDelay(() -> prune(pruner, retainer, shapes, registry, () -> pruning.stopping), every, every,
                TimeUnit.MILLISECONDS);
        return pruning;
    }

    /** One turn, as {@link #prune(MemoryPruner, HistoryRetainer, EntityShapes, MeterRegistry, BooleanSupplier)} with no stop. */
    static void prune(MemoryPruner pruner, HistoryRetainer retainer, EntityShapes shapes, MeterRegistry registry) {
        prune(pruner, retainer, shapes, registry, () -> false);
    }

    /**
     * One turn: each entity in order, pruned then retained; a failing step logged and left for the
     * next turn. Once {@code stopping} says the service stops, a failure (the stop interrupts the
     * statement, the pool closes under it) ends the turn with a DEBUG line, not a WARN of a retry that
     * never comes.
     */
    static void prune(MemoryPruner pruner, HistoryRetainer retainer, EntityShapes shapes, MeterRegistry registry, BooleanSupplier stopping) {
        for (String entity : shapes.entities()) {
            EntitySpec spec;
            try {
                spec = shapes.reread(entity);
                long removed = pruner.prune(spec);
                if (removed > 0) {
                    LOG.info("pruned {} remembered events of {} beyond its lateness horizon", removed, spec.name());
                }
            } catch (SQLException | RuntimeException e) {
                if (stopping.getAsBoolean()) {
                    LOG.debug("pruning the event memory of {} stopped with the service: {}", entity, e.getMessage());
                    return;
                }
                LOG.warn("pruning the event memory of {} failed (will retry): {}", entity, e.getMessage());
                continue;
            }
            if (stopping.getAsBoolean()) {
                return;
            }
            retain(retainer, spec, registry, stopping);
        }
    }

    private static void retain(HistoryRetainer retainer, EntitySpec spec, MeterRegistry registry, BooleanSupplier stopping) {
        if (!spec.retention().any()) {
            return;
        }
        try {
            HistoryRetainer.Retired r = retainer.retain(spec);
            retired(registry, spec.name(), "retention").increment(r.versions());
            retired(registry, spec.name(), "grain").increment(r.grained());
            retired(registry, spec.name(), "superseded").increment(r.superseded());
            if (!r.equals(HistoryRetainer.Retired.NONE)) {
                LOG.info("retention of {}: {} versions deleted, {} thinned by the grain, {} superseded rows deleted, {} remembered events "
                        + "dropped", spec.name(), r.versions(), r.grained(), r.superseded(), r.events());
            }
        } catch (SQLException | RuntimeException e) {
            if (stopping.getAsBoolean()) {
                LOG.debug("history retention of {} stopped with the service: {}", spec.name(), e.getMessage());
                return;
            }
            LOG.warn("history retention of {} failed (will retry): {}", spec.name(), e.getMessage());
        }
    }

    static Counter retired(MeterRegistry registry, String entity, String cause) {
        return Counter.builder(RETIRED).description("versions history retention removed, by cause (retention, grain, superseded)")
                .tag("entity", entity).tag("cause", cause).register(registry);
    }

    @Override
    public void close() {
        stopping = true;
        executor.shutdownNow();
    }
}
