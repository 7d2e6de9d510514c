package io.dimstream.admin.web;

import io.dimstream.admin.auth.Principal;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.auth.Sessions;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** Renders a page inside the layout: adds the {@link PageContext} to the template's parameters. */
public final class PageRenderer {

    private final Views views;
    private final EntityCatalog catalog;

    public PageRenderer(Views views, EntityCatalog catalog) {
        this.views = views;
        this.catalog = catalog;
    }

    public PageContext context(Context ctx, String section) {
        Principal p = Security.principal(ctx);
        String csrf = Security.session(ctx).map(Sessions.Session::csrfToken).orElse("");
        String entity = ctx.pathParamMap().getOrDefault("entity", "");
        return new PageContext(p.name(), p.role().configName(), p.admin(), csrf, catalog.names(), section, entity);
    }

    public void render(Context ctx, String template, String section, Map<String, Object> params) {
        Map<String, Object> all = new LinkedHashMap<>(params);
        all.put("page", context(ctx, section));
        views.render(ctx, template, all);
    }

    /** An error page inside the layout (a bad parameter, an unknown entity); only for a logged-in request. */
    public void error(Context ctx, int status, String message) {
        ctx.status(status);
        render(ctx, "error.jte", "", Map.of("status", status, "message", message));
    }
}
