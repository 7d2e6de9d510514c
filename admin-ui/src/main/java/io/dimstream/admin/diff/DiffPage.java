package io.dimstream.admin.diff;

import io.dimstream.admin.asof.Zones;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.Diff;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code /diff/{entity}?from=&to=&tz=}: keys added, removed and changed between two instants. */
public final class DiffPage {

    /** Most keys listed; {@code truncated} says when there were more. */
    public static final int MAX_ENTRIES = 1000;

    /** One key of the diff: its values before and after (null on the side it is missing). */
    public record Entry(Map<String, Object> key, String link, Map<String, Object> before, Map<String, Object> after,
                        List<String> changedColumns) {
    }

    public record Model(String entity, Instant from, Instant to, String zone, String fromLocal, String toLocal,
                        List<String> attributeColumns, List<Entry> added, List<Entry> removed, List<Entry> changed,
                        boolean truncated) {
    }

    private final HistoryQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public DiffPage(HistoryQueries queries, EntityCatalog catalog, PageRenderer pages) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant from = Params.instant("from", ctx.queryParam("from"), zone, null);
        Instant to = Params.instant("to", ctx.queryParam("to"), zone, null);
        if (from == null || to == null) {
            return new Model(e.name(), from, to, zone.getId(), from == null ? "" : ValueText.local(from, zone),
                    to == null ? "" : ValueText.local(to, zone), e.attributes(), List.of(), List.of(), List.of(), false);
        }
        if (!from.isBefore(to)) {
            throw new BadRequest("from: must be before to (got from " + from + ", to " + to + ")");
        }
        Diff d = queries.diff(e, from, to, MAX_ENTRIES);
        List<Entry> added = new ArrayList<>();
        for (VersionRow r : d.added()) {
            added.add(new Entry(r.key(), link(r), null, r.attributes(), List.of()));
        }
        List<Entry> removed = new ArrayList<>();
        for (VersionRow r : d.removed()) {
            removed.add(new Entry(r.key(), link(r), r.attributes(), null, List.of()));
        }
        List<Entry> changed = new ArrayList<>();
        for (Diff.Change c : d.changed()) {
            changed.add(new Entry(c.key(), link(c.after()), c.before().attributes(), c.after().attributes(), c.changedColumns()));
        }
        return new Model(e.name(), from, to, zone.getId(), ValueText.local(from, zone), ValueText.local(to, zone), e.attributes(),
                added, removed, changed, d.truncated());
    }

    private static String link(VersionRow r) {
        StringBuilder b = new StringBuilder();
        for (Object v : r.key().values()) {
            b.append(b.length() == 0 ? "?" : "&").append("k=")
                    .append(java.net.URLEncoder.encode(ValueText.text(v), java.nio.charset.StandardCharsets.UTF_8));
        }
        return b.toString();
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
