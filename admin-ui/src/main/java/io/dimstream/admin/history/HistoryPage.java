package io.dimstream.admin.history;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /history/{entity}}: a key search (prefix of the first key column, {@code q=}) and, for a
 * whole key ({@code k=} once per key column, in key order), its history. JSON twin under {@code /api}.
 */
public final class HistoryPage {

    /** Keys listed for a search. */
    static final int SEARCH_LIMIT = 50;

    /** The page's model and the JSON twin's body. */
    public record Model(String entity, List<String> keyColumns, String query, List<KeyHit> keys, boolean moreKeys,
                        HistoryView history, String message) {
    }

    /** A key found by the search, with its link's query string. */
    public record KeyHit(Map<String, Object> key, String label, String link) {
    }

    private final HistoryQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public HistoryPage(HistoryQueries queries, EntityCatalog catalog, PageRenderer pages) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        List<String> k = ctx.queryParams("k");
        String q = ctx.queryParam("q");
        List<KeyHit> hits = List.of();
        boolean more = false;
        HistoryView history = null;
        String message = null;
        if (!k.isEmpty()) {
            if (k.size() != e.key().size()) {
                throw new BadRequest("k: entity " + e.name() + " has " + e.key().size() + " key column(s) " + e.key()
                        + "; give k= once for each, in that order (got " + k.size() + ")");
            }
            List<VersionRow> rows;
            try {
                rows = queries.history(e, new ArrayList<>(k));
            } catch (IllegalArgumentException ex) {
                throw new BadRequest("k: " + ex.getMessage());
            }
            if (rows.isEmpty()) {
                message = "No version of key " + String.join(", ", k) + ".";
            } else {
                history = HistoryView.of(e, rows);
            }
        } else {
            List<Map<String, Object>> found = queries.findKeys(e, q, SEARCH_LIMIT + 1);
            more = found.size() > SEARCH_LIMIT;
            hits = found.stream().limit(SEARCH_LIMIT).map(HistoryPage::hit).toList();
            if (hits.isEmpty()) {
                message = q == null || q.isEmpty() ? "The table is empty." : "No key starts with \"" + q + "\".";
            }
        }
        return new Model(e.name(), e.key(), q == null ? "" : q, hits, more, history, message);
    }

    private static KeyHit hit(Map<String, Object> key) {
        List<String> parts = key.values().stream().map(io.dimstream.admin.web.ValueText::text).toList();
        StringBuilder link = new StringBuilder();
        for (String p : parts) {
            link.append(link.length() == 0 ? "?" : "&").append("k=").append(java.net.URLEncoder.encode(p,
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        return new KeyHit(new LinkedHashMap<>(key), String.join(" / ", parts), link.toString());
    }

    public void page(Context ctx) throws SQLException {
        Model m = model(ctx);
        pages.render(ctx, "history.jte", "history", Map.of("model", m));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
