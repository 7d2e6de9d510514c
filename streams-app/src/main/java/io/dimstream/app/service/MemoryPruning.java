package io.dimstream.app.service;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.write.MemoryPruner;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schedule of the event memory's pruning: every {@code service.prune-interval}, on a daemon
 * thread of its own, each entity's remembered events beyond its lateness horizon are dropped by
 * {@link MemoryPruner} (the SQL is the writer's, in db), with the entity's shape as it is at that
 * turn ({@link EntityShapes}: a column added while running is the anchors' too). A failure is logged
 * and retried at the next turn. {@link #close()} stops the thread.
 */
final class MemoryPruning implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryPruning.class);

    private final ScheduledExecutorService executor;

    private MemoryPruning(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** Starts pruning {@code specs} every {@code interval}, the first time one interval from now. */
    static MemoryPruning start(MemoryPruner pruner, EntityShapes shapes, Duration interval) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-pruner");
            t.setDaemon(true);
            return t;
        });
        long every = interval.toMillis();
        executor.scheduleWithFixedDelay(() -> prune(pruner, shapes), every, every, TimeUnit.MILLISECONDS);
        return new MemoryPruning(executor);
    }

    /** One turn: each entity in order, a failing one logged and left for the next turn. */
    static void prune(MemoryPruner pruner, EntityShapes shapes) {
        for (String entity : shapes.entities()) {
            try {
                EntitySpec spec = shapes.reread(entity);
                long removed = pruner.prune(spec);
                if (removed > 0) {
                    LOG.info("pruned {} remembered events of {} beyond its lateness horizon", removed, spec.name());
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("pruning the event memory of {} failed (will retry): {}", entity, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
