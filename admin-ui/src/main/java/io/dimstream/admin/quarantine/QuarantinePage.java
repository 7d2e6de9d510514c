package io.dimstream.admin.quarantine;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.db.read.QuarantineQueries;
import io.dimstream.db.read.QuarantinedEvent;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * {@code /quarantine?entity=&status=&page=}: events not applied (beyond the lateness horizon),
 * newest first, with their reasons. Read only for now: applying or discarding comes with the
 * quarantine actions.
 */
public final class QuarantinePage {

    public static final int PAGE_SIZE = 50;

    public record Model(String entity, String status, int page, boolean hasMore, List<QuarantinedEvent> events) {
    }

    private final QuarantineQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public QuarantinePage(QuarantineQueries queries, EntityCatalog catalog, PageRenderer pages) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        String entity = ctx.queryParam("entity");
        if (entity != null && entity.isBlank()) {
            entity = null;
        }
        if (entity != null) {
            catalog.spec(entity);
        }
        String rawStatus = ctx.queryParam("status");
        QuarantineQueries.Status status = null;
        if (rawStatus == null) {
            status = QuarantineQueries.Status.PENDING;
        } else if (!rawStatus.isBlank() && !rawStatus.equals("all")) {
            status = QuarantineQueries.Status.parse(rawStatus).orElseThrow(() ->
                    new BadRequest("status: must be pending, applied, discarded or all, got \"" + rawStatus + "\""));
        }
        int page = Params.page("page", ctx.queryParam("page"), 10_000);
        QuarantineQueries.Page p = queries.list(entity, status, (page - 1) * PAGE_SIZE, PAGE_SIZE);
        return new Model(entity == null ? "" : entity, status == null ? "all" : status.sqlValue(), page, p.hasMore(), p.rows());
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "quarantine.jte", "quarantine", Map.of("model", model(ctx)));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
