package io.dimstream.admin.diff;

import io.dimstream.admin.asof.Zones;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.Diff;
import io.dimstream.db.read.DiffSummary;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /diff/{entity}?from=&to=&tz=}: keys added, removed and changed between two instants.
 * Without {@code to} it compares up to now (the injected clock, to the second), without
 * {@code from} a day before {@code to}: a bare {@code /diff/customer} is "yesterday vs now". On top,
 * a summary over every key (never truncated): keys added, removed, changed, and per attribute column
 * how many keys changed it. Each key links to its history page zoomed to the window between the
 * two instants.
 */
public final class DiffPage {

    /** Most keys listed; {@code truncated} says when there were more. */
    public static final int MAX_ENTRIES = 1000;

    /** One key of the diff: its values before and after (null on the side it is missing). */
    public record Entry(Map<String, Object> key, String link, Map<String, Object> before, Map<String, Object> after,
                        List<String> changedColumns) {
    }

    /** The default distance of {@code from} before {@code to}. */
    public static final Duration DEFAULT_SPAN = Duration.ofHours(24);

    /** One attribute column of the summary and how many keys changed it. */
    public record ColumnCount(String column, long keys) {
    }

    /** The counts of the whole diff (every key, never truncated). */
    public record Summary(long added, long removed, long changed, List<ColumnCount> columns) {
    }

    public record Model(String entity, Instant from, Instant to, String zone, String fromLocal, String toLocal,
                        List<String> attributeColumns, Summary summary, List<Entry> added, List<Entry> removed,
                        List<Entry> changed, boolean truncated) {
    }

    private final HistoryQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final Clock clock;

    public DiffPage(HistoryQueries queries, EntityCatalog catalog, PageRenderer pages, Clock clock) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
        this.clock = clock;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant to = Params.instant("to", ctx.queryParam("to"), zone, clock.instant().truncatedTo(ChronoUnit.SECONDS));
        Instant from = Params.instant("from", ctx.queryParam("from"), zone, to.minus(DEFAULT_SPAN));
        if (!from.isBefore(to)) {
            throw new BadRequest("from: must be before to (got from " + from + ", to " + to + ")");
        }
        DiffSummary s = queries.diffSummary(e, from, to);
        List<ColumnCount> perColumn = new ArrayList<>();
        s.changedByColumn().forEach((c, n) -> perColumn.add(new ColumnCount(c, n)));
        Summary summary = new Summary(s.added(), s.removed(), s.changed(), perColumn);
        Diff d = queries.diff(e, from, to, MAX_ENTRIES);
        String window = "&from=" + enc(from.toString()) + "&to=" + enc(to.toString());
        List<Entry> added = new ArrayList<>();
        for (VersionRow r : d.added()) {
            added.add(new Entry(r.key(), link(r, window), null, r.attributes(), List.of()));
        }
        List<Entry> removed = new ArrayList<>();
        for (VersionRow r : d.removed()) {
            removed.add(new Entry(r.key(), link(r, window), r.attributes(), null, List.of()));
        }
        List<Entry> changed = new ArrayList<>();
        for (Diff.Change c : d.changed()) {
            changed.add(new Entry(c.key(), link(c.after(), window), c.before().attributes(), c.after().attributes(),
                    c.changedColumns()));
        }
        return new Model(e.name(), from, to, zone.getId(), ValueText.local(from, zone), ValueText.local(to, zone), e.attributes(),
                summary, added, removed, changed, d.truncated());
    }

    /** The key's history query string ({@code k=} per key column, as HistoryPage reads it) and the diff's window. */
    private static String link(VersionRow r, String window) {
        StringBuilder b = new StringBuilder();
        for (Object v : r.key().values()) {
            b.append(b.length() == 0 ? "?" : "&").append("k=").append(enc(ValueText.text(v)));
        }
        return b.append(window).toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "diff.jte", "diff", Map.of("model", model(ctx), "zones", Zones.ALL));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }

    static Map<String, Object> copy(Map<String, Object> m) {
        return m == null ? null : new LinkedHashMap<>(m);
    }
}
