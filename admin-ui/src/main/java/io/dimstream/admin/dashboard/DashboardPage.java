package io.dimstream.admin.dashboard;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.status.EntityTrends;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.Map;

/** {@code /}: the dashboard; {@code /dashboard/table} is the fragment htmx polls; {@code /api/dashboard} the JSON. */
public final class DashboardPage {

    /** How often the page refreshes its table (the fragment's hx-trigger). */
    public static final int REFRESH_SECONDS = 10;

    private final Dashboard dashboard;
    private final Trends trends;
    private final PageRenderer pages;

    public DashboardPage(Dashboard dashboard, Trends trends, PageRenderer pages) {
        this.dashboard = dashboard;
        this.trends = trends;
        this.pages = pages;
    }

    /**
     * {@code ?window=15m|1h|6h|24h|7d} chooses the charts' window, ending now; without it the
     * window that holds the sink's recorded batches ({@link Trends#choose}).
     */
    public void page(Context ctx) throws SQLException {
        Trends.Choice choice = trends.choose(window(ctx));
        pages.render(ctx, "dashboard.jte", "dashboard", Map.of("view", dashboard.build(), "trends", trends.build(choice),
                "refreshSeconds", REFRESH_SECONDS));
    }

    public void fragment(Context ctx) throws SQLException {
        pages.render(ctx, "dashboard-table.jte", "dashboard", Map.of("view", dashboard.build(), "refreshSeconds", REFRESH_SECONDS));
    }

    /** {@code /api/dashboard/trends?window=}: the charts' buckets and the service's state as JSON. */
    public void trendsApi(Context ctx) throws SQLException {
        ctx.json(trends.api(trends.choose(window(ctx))));
    }

    /** The window the URL names; null when it names none. */
    private static EntityTrends.Window window(Context ctx) {
        String raw = ctx.queryParam("window");
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return EntityTrends.Window.parse(raw);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(dashboard.build());
    }
}
