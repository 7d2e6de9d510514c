package io.dimstream.admin.dashboard;

import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.ValueText;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /**
     * The window the charts show, where it ends, and when the URL named none, why: {@code note}
     * says so in words (null for a window the URL named).
     */
    public record Choice(Window window, Instant end, String note) {
    }

    /** The charts of every entity over {@code window} ending at {@code end}, and the service's state. */
    public record View(Instant now, Window window, Instant end, String note, List<Window> windows, ServiceActivity service,
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

    public View build(Choice choice) throws SQLException {
        Instant now = clock.instant();
        List<EntityCharts> out = new ArrayList<>();
        for (EntitySpec e : catalog.specs()) {
            out.add(new EntityCharts(e.name(), charts(EntityTrends.of(ds, e.name(), choice.window(), choice.end()), choice.window())));
        }
        return new View(now, choice.window(), choice.end(), choice.note(), List.of(Window.values()),
                ServiceActivity.read(ds, now, STUCK_AFTER), out);
    }

    /** {@code /api/dashboard/trends}: the buckets themselves, per entity in the catalog's order. */
    public record Api(String window, Instant end, String note, ServiceActivity service, Map<String, List<Bucket>> entities) {
    }

    public Api api(Choice choice) throws SQLException {
        Map<String, List<Bucket>> out = new LinkedHashMap<>();
        for (EntitySpec e : catalog.specs()) {
            out.put(e.name(), EntityTrends.of(ds, e.name(), choice.window(), choice.end()));
        }
        return new Api(choice.window().param, choice.end(), choice.note(), ServiceActivity.read(ds, clock.instant(), STUCK_AFTER), out);
    }

    /**
     * The window {@code asked} ending now; with none asked, the one that {@link #fit}s the sink's
     * batches of every entity ({@code sink_batches}, kept a day).
     */
    public Choice choose(Window asked) throws SQLException {
        Instant now = clock.instant();
        if (asked != null) {
            return new Choice(asked, asked.endFor(now), null);
        }
        Instant first = null;
        Instant last = null;
        for (EntitySpec e : catalog.specs()) {
            Optional<EntityTrends.Activity> a = EntityTrends.activity(ds, e.name());
            if (a.isPresent()) {
                first = first == null || a.get().first().isBefore(first) ? a.get().first() : first;
                last = last == null || a.get().last().isAfter(last) ? a.get().last() : last;
            }
        }
        return fit(first, last, now);
    }

    /**
     * The smallest window that holds the batches from {@code first} to {@code last}, ending now, or,
     * when the last batch is more than a tenth of the window before now, a tenth of the window after
     * it (so data of long ago is not a sliver at the left edge or off the chart); the 7-day window
     * when none holds them all. No batch at all: the last 24 h.
     */
    static Choice fit(Instant first, Instant last, Instant now) {
        if (last == null) {
            return new Choice(Window.H24, Window.H24.endFor(now),
                    "Showing the last 24h: no batch of the sink is recorded (they are kept a day).");
        }
        Window[] all = Window.values();
        for (Window w : all) {
            Instant after = last.plus(w.length.dividedBy(10));
            boolean toNow = !after.isBefore(now);
            Instant end = w.endFor(toNow ? now : after);
            boolean holds = !first.isBefore(end.minus(w.length));
            if (holds || w == all[all.length - 1]) {
                String span = "the sink's batches, from " + ValueText.seconds(first) + " to " + ValueText.seconds(last);
                String why = holds ? "the smallest window that holds " + span : "the longest window; it holds the latest of " + span;
                String note = toNow
                        ? "Showing the last " + w.param + ": " + why + "."
                        : "Showing " + w.param + " ending at " + ValueText.seconds(end) + ", not now (" + ValueText.seconds(now)
                                + "): the latest batch of the sink is at " + ValueText.seconds(last) + ", and this is " + why + ".";
                return new Choice(w, end, note);
            }
        }
        throw new IllegalStateException("unreachable: the last window always fits");
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
