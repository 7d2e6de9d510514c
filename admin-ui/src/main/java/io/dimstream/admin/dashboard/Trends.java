package io.dimstream.admin.dashboard;

import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.status.EntityTrends;
import io.dimstream.db.status.EntityTrends.Bucket;
import io.dimstream.db.status.EntityTrends.Window;
import io.dimstream.db.status.ServiceActivity;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The dashboard's charts (per entity, over a window) and the service's state read from
 * PostgreSQL, shown above the polled table. Built from {@link EntityTrends} and {@link ServiceActivity}.
 */
public final class Trends {

    /** The service's {@code sink.stuck-after} default: the admin does not read the service's config. */
    public static final Duration STUCK_AFTER = Duration.ofMinutes(5);

    /** One entity's charts. */
    public record EntityCharts(String entity, List<LineChart> charts) {
        public EntityCharts {
            charts = List.copyOf(charts);
        }
    }

    /** The charts of every entity over {@code window} ending at {@code end}, and the service's state. */
    public record View(Instant now, Window window, Instant end, List<Window> windows, ServiceActivity service,
                       List<EntityCharts> entities) {
        public View {
            windows = List.copyOf(windows);
            entities = List.copyOf(entities);
        }

        /** "12 s ago", "3 min ago", "2 h ago": how long before {@code now} {@code t} was. */
        public String ago(Instant t) {
            long s = Math.max(0, Duration.between(t, now).getSeconds());
            return s < 120 ? s + " s ago" : s < 7200 ? s / 60 + " min ago" : s / 3600 + " h ago";
        }
    }

    private final DataSource ds;
    private final EntityCatalog catalog;
    private final Clock clock;

    public Trends(DataSource ds, EntityCatalog catalog, Clock clock) {
        this.ds = ds;
        this.catalog = catalog;
        this.clock = clock;
    }

    public View build(Window window) throws SQLException {
        Instant now = clock.instant();
        Instant end = window.endFor(now);
        List<EntityCharts> out = new ArrayList<>();
        for (EntitySpec e : catalog.specs()) {
            out.add(new EntityCharts(e.name(), charts(EntityTrends.of(ds, e.name(), window, end), window)));
        }
        return new View(now, window, end, List.of(Window.values()), ServiceActivity.read(ds, now, STUCK_AFTER), out);
    }

    /** {@code /api/dashboard/trends}: the buckets themselves, per entity in the catalog's order. */
    public record Api(String window, Instant end, ServiceActivity service, java.util.Map<String, List<Bucket>> entities) {
    }

    public Api api(Window window) throws SQLException {
        Instant now = clock.instant();
        Instant end = window.endFor(now);
        java.util.Map<String, List<Bucket>> out = new java.util.LinkedHashMap<>();
        for (EntitySpec e : catalog.specs()) {
            out.put(e.name(), EntityTrends.of(ds, e.name(), window, end));
        }
        return new Api(window.param, end, ServiceActivity.read(ds, now, STUCK_AFTER), out);
    }

    /** The five charts of one entity's buckets. */
    static List<LineChart> charts(List<Bucket> buckets, Window window) {
        List<Instant> starts = buckets.stream().map(Bucket::start).toList();
        boolean dates = window.length.compareTo(Duration.ofDays(1)) > 0;
        return List.of(
                LineChart.of("Events by class", "events", starts, List.of(
                        series("new", "series-new", buckets, Bucket::newKeys),
                        series("changed", "series-changed", buckets, Bucket::changed),
                        series("deleted", "series-deleted", buckets, Bucket::deleted),
                        series("late", "series-late", buckets, Bucket::late),
                        series("unchanged", "series-unchanged", buckets, Bucket::unchanged),
                        series("duplicate", "series-duplicate", buckets, Bucket::duplicates)), dates),
                LineChart.of("Rows changed", "rows", starts, List.of(
                        series("rows changed", "series-rows", buckets, Bucket::rowsChanged)), dates),
                LineChart.of("Sink lag", "records", starts, List.of(
                        series("max lag", "series-lag", buckets, Bucket::maxLag)), dates),
                LineChart.of("Batch duration", "ms", starts, List.of(
                        series("median", "series-p50", buckets, b -> b.p50ApplyMs() == null ? null : (long) b.p50ApplyMs()),
                        series("max", "series-max", buckets, b -> b.maxApplyMs() == null ? null : (long) b.maxApplyMs())), dates),
                LineChart.of("Set aside", "records", starts, List.of(
                        series("rejected", "series-rejected", buckets, Bucket::rejected),
                        series("DLQ", "series-dlq", buckets, Bucket::dlqInflow),
                        series("quarantined", "series-quarantined", buckets, Bucket::quarantineInflow)), dates));
    }

    private static LineChart.Series series(String name, String css, List<Bucket> buckets, Function<Bucket, Long> f) {
        return new LineChart.Series(name, css, buckets.stream().map(f).toList());
    }
}
