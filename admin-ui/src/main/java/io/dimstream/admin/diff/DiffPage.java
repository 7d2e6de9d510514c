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
 * Without {@code to} it compares up to the table's latest change when that is before now (so a
 * table whose data stopped changing long ago, or whose event times are in the past, still shows its
 * last changes; on a live table that is about now), else up to now (the injected clock, to the
 * second): an empty table, a latest change not before now, or none after {@code from}; without {@code from}, a day before {@code to}: a bare
 * {@code /diff/customer} is "the last day of changes". The page says which it chose and why. On top,
 * a summary over every key (never truncated): keys added, removed, changed, and per attribute column
 * how many keys changed it. Each key links to its history page zoomed to the window between the
 * two instants and a tenth of it after (a version starting at {@code to} is drawn).
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
                        List<Entry> changed, boolean truncated, String defaultNote) {
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
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Instant givenFrom = Params.instant("from", ctx.queryParam("from"), zone, null);
        Instant givenTo = Params.instant("to", ctx.queryParam("to"), zone, null);
        Instant latest = givenTo == null ? latestChange(e) : null;
        boolean atLatest = latest != null && latest.isBefore(now) && (givenFrom == null || givenFrom.isBefore(latest));
        Instant to = givenTo != null ? givenTo : atLatest ? latest : now;
        Instant from = givenFrom != null ? givenFrom : to.minus(DEFAULT_SPAN);
        if (!from.isBefore(to)) {
            throw new BadRequest("from: must be before to (got from " + from + ", to " + to + ")");
        }
        DiffSummary s = queries.diffSummary(e, from, to);
        List<ColumnCount> perColumn = new ArrayList<>();
        s.changedByColumn().forEach((c, n) -> perColumn.add(new ColumnCount(c, n)));
        Summary summary = new Summary(s.added(), s.removed(), s.changed(), perColumn);
        Diff d = queries.diff(e, from, to, MAX_ENTRIES);
        // the history window: the diff's, and a tenth of it after to, so a change at to (the default) is drawn
        Instant linkTo = to.plus(Duration.between(from, to).dividedBy(10)).truncatedTo(ChronoUnit.SECONDS);
        String window = "&from=" + enc(from.toString()) + "&to=" + enc(linkTo.toString());
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
                summary, added, removed, changed, d.truncated(), defaultNote(givenFrom == null, givenTo == null, latest, atLatest, to, now));
    }

    /**
     * The table's latest change (its greatest valid_from, a delete included), up to the next whole
     * second so the form's second-precision fields hold it; null for an empty table.
     */
    private Instant latestChange(EntitySpec e) throws SQLException {
        Instant last = queries.steps(e, clock.instant()).last();
        if (last == null) {
            return null;
        }
        Instant whole = last.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(last) ? last : whole.plusSeconds(1);
    }

    /** Why the instants the URL did not give are what they are, in words; null when it gave both. */
    static String defaultNote(boolean fromDefault, boolean toDefault, Instant latest, boolean atLatest, Instant to, Instant now) {
        if (!fromDefault && !toDefault) {
            return null;
        }
        String day = fromDefault ? "From is a day before to." : "";
        if (!toDefault) {
            return day;
        }
        String why;
        if (atLatest) {
            why = "To is the table's latest change, at " + ValueText.time(to) + " (now is " + ValueText.time(now)
                    + "): the table is the same from then to now, so this shows its last day of changes.";
        } else if (latest == null) {
            why = "To is now: the table is empty.";
        } else if (!latest.isBefore(now)) {
            why = "To is now: the table's latest change, at " + ValueText.time(latest) + ", is not before now.";
        } else {
            why = "To is now: the table has no change after from.";
        }
        return (day + " " + why).strip();
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
