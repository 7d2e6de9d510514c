package io.dimstream.app.replay;

import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJobStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replay gauges read from {@code dimstream.replay_jobs} ({@link ReplayJobStats}), for the entities
 * this instance serves: registered once, for every entity (and state) at 0, each reading the last
 * snapshot, which a daemon thread refreshes every {@code interval}: a scrape never queries
 * PostgreSQL, and a failed refresh keeps the previous values (logged).
 *
 * <ul>
 *   <li>{@value #JOBS} {@code {entity, state}} (Prometheus {@code dimstream_replay_jobs_current}):
 *       jobs in each state ({@code queued}, {@code running}, ...), from the table;</li>
 *   <li>{@value #EVENTS_READ}, {@value #ROWS_CHANGED}, {@value #LAG} {@code {entity}}
 *       ({@code dimstream_replay_running_events_read}, {@code _rows_changed}, {@code _lag}): summed
 *       over the entity's RUNNING jobs, the lag being the events of their ranges not read yet.</li>
 * </ul>
 * The values come from the shared table, so every instance serving an entity reports the same:
 * aggregate them with {@code max}, not {@code sum}.
 */
public final class ReplayMeters implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayMeters.class);

    public static final String JOBS = "dimstream.replay.jobs.current";
    public static final String EVENTS_READ = "dimstream.replay.running.events.read";
    public static final String ROWS_CHANGED = "dimstream.replay.running.rows.changed";
    public static final String LAG = "dimstream.replay.running.lag";

    private final DataSource ds;
    private final List<String> entities;
    private volatile ReplayJobStats last;
    private ScheduledExecutorService executor;

    public ReplayMeters(DataSource ds, List<String> entities, MeterRegistry registry) {
        this.ds = ds;
        this.entities = List.copyOf(entities);
        this.last = new ReplayJobStats(java.util.Map.of(), java.util.Map.of());
        for (String e : this.entities) {
            for (JobState s : JobState.values()) {
                Gauge.builder(JOBS, this, m -> m.last.jobs().getOrDefault(e, java.util.Map.of()).getOrDefault(s, 0L))
                        .description("replay jobs in each state (from dimstream.replay_jobs)")
                        .tag("entity", e).tag("state", s.name().toLowerCase(Locale.ROOT)).register(registry);
            }
            running(registry, EVENTS_READ, e, "events read so far by the entity's running replay jobs", ReplayJobStats.Running::eventsRead);
            running(registry, ROWS_CHANGED, e, "version rows the entity's running replay jobs changed so far", ReplayJobStats.Running::rowsChanged);
            running(registry, LAG, e, "events of the entity's running replay jobs' ranges not read yet (events_total - events_read)",
                    ReplayJobStats.Running::lag);
        }
    }

    private void running(MeterRegistry registry, String name, String entity, String description, ToDoubleFunction<ReplayJobStats.Running> value) {
        Gauge.builder(name, this, m -> value.applyAsDouble(m.last.running().getOrDefault(entity, ReplayJobStats.Running.NONE)))
                .description(description).tag("entity", entity).register(registry);
    }

    /** Reads the table now (the scheduled refresh, and tests). */
    public void refresh() throws SQLException {
        last = ReplayJobStats.read(ds, entities);
    }

    /** Refreshes now and then every {@code interval} on a daemon thread. */
    public ReplayMeters start(Duration interval) {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-replay-meters");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(() -> {
            try {
                refresh();
            } catch (SQLException | RuntimeException e) {
                LOG.warn("replay gauges: cannot read dimstream.replay_jobs (the gauges keep their last values): {}", e.getMessage());
            }
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
