package io.dimstream.app.replay;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.RetiredTables;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code service.replay.keep-replaced-tables}: on a daemon thread, at the start and then every
 * {@code every}, drops the tables shadow replays left behind ({@link RetiredTables}) whose job
 * finished longer ago than the setting, audited as user {@code system}. Several instances may run
 * it at once: a drop finds a table another instance dropped already gone and does nothing.
 */
public final class RetiredTablesCleanup implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetiredTablesCleanup.class);

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "dimstream-retired-tables");
        t.setDaemon(true);
        return t;
    });

    private RetiredTablesCleanup() {
    }

    public static RetiredTablesCleanup start(DataSource ds, List<EntitySpec> entities, Duration keep, Duration every) {
        RetiredTablesCleanup c = new RetiredTablesCleanup();
        c.executor.scheduleWithFixedDelay(() -> {
            try {
                for (RetiredTables.Retired r : RetiredTables.dropOlderThan(ds, entities, keep, Instant.now())) {
                    LOG.info("dropped {} and {} ({} of replay job {}, {} bytes): kept since {}, longer than keep-replaced-tables {}",
                            r.table(), r.memoryTable(), r.kind(), r.job(), r.bytes(), r.since(), keep);
                }
            } catch (Exception e) {
                LOG.warn("cannot drop retired replay tables (tried again in {}): {}", every, e.getMessage());
            }
        }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return c;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
