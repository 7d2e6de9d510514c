package io.dimstream.admin.asof;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.admin.web.Values;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.Page;
import io.dimstream.db.read.VersionRow;
import io.javalin.http.Context;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /asof/{entity}}: the table as of an instant (DESIGN section 3), paged, filtered by a key
 * prefix, sorted by key ascending or descending; {@code /asof/{entity}/csv} streams the whole
 * snapshot. The sort is one of two whitelisted words, the prefix a bound parameter.
 */
public final class AsOfPage {

    public static final int PAGE_SIZE = 50;
    static final int MAX_PAGE = HistoryQueries.MAX_LIMIT;

    /** The two sort orders; anything else is refused. */
    public enum Sort {
        KEY_ASC("key_asc"), KEY_DESC("key_desc");

        private final String param;

        Sort(String param) {
            this.param = param;
        }

        public String param() {
            return param;
        }

        static Sort parse(String raw) {
            if (raw == null || raw.isBlank()) {
                return KEY_ASC;
            }
            for (Sort s : values()) {
                if (s.param.equals(raw)) {
                    return s;
                }
            }
            throw new BadRequest("sort: must be key_asc or key_desc, got \"" + raw + "\"");
        }
    }

    /** The page's model and the JSON twin's body; {@code rows} hold key and attribute values. */
    public record Model(String entity, Instant at, String zone, String atLocal, String prefix, String sort, int page,
                        boolean hasMore, List<String> columns, List<Map<String, Object>> rows) {
    }

    private final HistoryQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final Clock clock;

    public AsOfPage(HistoryQueries queries, EntityCatalog catalog, PageRenderer pages, Clock clock) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
        this.clock = clock;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant at = Params.instant("at", ctx.queryParam("at"), zone, clock.instant());
        String prefix = ctx.queryParam("prefix");
        Sort sort = Sort.parse(ctx.queryParam("sort"));
        int page = Params.page("page", ctx.queryParam("page"), MAX_PAGE);
        Page p = queries.asOf(e, at, prefix, sort == Sort.KEY_DESC, (page - 1) * PAGE_SIZE, PAGE_SIZE);
        List<String> columns = new ArrayList<>(e.dataColumns());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (VersionRow r : p.rows()) {
            Map<String, Object> m = new LinkedHashMap<>(r.key());
            m.putAll(r.attributes());
            m.put(e.system().validFrom(), r.validFrom());
            m.put(e.system().validTo(), r.validTo());
            rows.add(m);
        }
        columns.add(e.system().validFrom());
        columns.add(e.system().validTo());
        return new Model(e.name(), at, zone.getId(), Values.local(at, zone), prefix == null ? "" : prefix, sort.param(), page,
                p.hasMore(), columns, rows);
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "asof.jte", "asof", Map.of("model", model(ctx), "zones", Zones.ALL));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }

    /**
     * The whole snapshot as CSV (RFC 4180, header line first), written to the response as the
     * rows come from the database cursor: constant memory whatever the table's size.
     */
    public void csv(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant at = Params.instant("at", ctx.queryParam("at"), zone, clock.instant());
        List<String> columns = new ArrayList<>(e.dataColumns());
        columns.add(e.system().validFrom());
        columns.add(e.system().validTo());
        ctx.contentType("text/csv; charset=utf-8");
        ctx.header("Content-Disposition", "attachment; filename=\"" + e.name().replaceAll("[^A-Za-z0-9_.-]", "_")
                + "-as-of-" + at.toString().replace(':', '-') + ".csv\"");
        try {
            Writer w = new BufferedWriter(new OutputStreamWriter(ctx.outputStream(), StandardCharsets.UTF_8), 64 * 1024);
            Csv.line(w, columns);
            queries.streamAsOf(e, at, r -> {
                List<String> cells = new ArrayList<>(columns.size());
                r.key().values().forEach(v -> cells.add(Values.text(v)));
                r.attributes().values().forEach(v -> cells.add(Values.text(v)));
                cells.add(Values.text(r.validFrom()));
                cells.add(Values.text(r.validTo()));
                try {
                    Csv.line(w, cells);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            w.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException("writing the CSV of " + e.name(), ex);
        }
    }
}
