package io.dimstream.admin.dashboard;

import io.dimstream.admin.web.PageRenderer;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.Map;

/** {@code /}: the dashboard; {@code /dashboard/table} is the fragment htmx polls; {@code /api/dashboard} the JSON. */
public final class DashboardPage {

    /** How often the page refreshes its table (the fragment's hx-trigger). */
    public static final int REFRESH_SECONDS = 10;

    private final Dashboard dashboard;
    private final PageRenderer pages;

    public DashboardPage(Dashboard dashboard, PageRenderer pages) {
        this.dashboard = dashboard;
        this.pages = pages;
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "dashboard.jte", "dashboard", Map.of("view", dashboard.build(), "refreshSeconds", REFRESH_SECONDS));
    }

    public void fragment(Context ctx) throws SQLException {
        pages.render(ctx, "dashboard-table.jte", "dashboard", Map.of("view", dashboard.build(), "refreshSeconds", REFRESH_SECONDS));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(dashboard.build());
    }
}
