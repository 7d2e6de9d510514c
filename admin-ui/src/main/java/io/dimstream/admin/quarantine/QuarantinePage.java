package io.dimstream.admin.quarantine;

import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.Conflict;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.db.read.QuarantineQueries;
import io.dimstream.db.read.QuarantinedEvent;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.write.ApplyResult;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * {@code /quarantine?entity=&status=&page=}: events not applied (beyond the lateness horizon),
 * newest first, with their reasons; {@code POST /quarantine/{id}/apply} and {@code .../discard}
 * (admin role) act on a pending event through {@link QuarantineActions} (audited with the user) and
 * show the outcome, or why the apply was refused (an event at or before its key's prune point:
 * {@link QuarantineActions.NotApplicableException}, answered 409, nothing changed).
 */
public final class QuarantinePage {

    public static final int PAGE_SIZE = 50;

    public record Model(String entity, String status, int page, boolean hasMore, List<QuarantinedEvent> events) {
    }

    /**
     * What an action did: {@code outcome} applied, discarded or refused; {@code rows*} what the
     * writer changed (apply only); {@code message} the sentence the page shows (the refusal reason
     * when refused).
     */
    public record Outcome(long id, String entity, String outcome, String eventClass, Integer rowsInserted, Integer rowsUpdated,
                          Integer rowsDeleted, String message) {
        public boolean refused() {
            return outcome.equals("refused");
        }
    }

    private final QuarantineQueries queries;
    private final QuarantineActions actions;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public QuarantinePage(QuarantineQueries queries, QuarantineActions actions, EntityCatalog catalog, PageRenderer pages) {
        this.queries = queries;
        this.actions = actions;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        String entity = ctx.queryParam("entity");
        if (entity != null && entity.isBlank()) {
            entity = null;
        }
        if (entity != null) {
            catalog.configSpec(entity);
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
        render(ctx, model(ctx), null);
    }

    private void render(Context ctx, Model model, Outcome outcome) {
        java.util.Map<String, Object> params = new java.util.HashMap<>();
        params.put("model", model);
        params.put("outcome", outcome);
        pages.render(ctx, "quarantine.jte", "quarantine", params);
    }

    private QuarantineActions.QuarantinedEvent event(Context ctx) throws SQLException {
        String raw = ctx.pathParam("id");
        long id;
        try {
            id = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new BadRequest("id: \"" + raw + "\" is not a quarantined event's id");
        }
        return actions.find(id).orElseThrow(() -> new NotFound("no quarantined event " + id));
    }

    /** Applies the event anyway; a refusal is an outcome too (nothing changed). */
    Outcome apply(Context ctx) throws SQLException {
        QuarantineActions.QuarantinedEvent q = event(ctx);
        EntitySpec spec = catalog.spec(q.entity());
        String user = Security.principal(ctx).name();
        try {
            ApplyResult r = actions.apply(q.id(), spec, user);
            String cls = r.duplicates() > 0 ? "duplicate" : r.late() > 0 ? "late" : r.newKeys() > 0 ? "new" : r.changed() > 0 ? "changed"
                    : r.deleted() > 0 ? "deleted" : "unchanged";
            return new Outcome(q.id(), q.entity(), "applied", cls, r.rowsInserted(), r.rowsUpdated(), r.rowsDeleted(),
                    "Event " + q.id() + " (" + q.eventKey() + " at " + q.eventTime() + ") applied by " + user + " as a " + cls
                            + " event: " + r.rowsInserted() + " rows inserted, " + r.rowsUpdated() + " updated, " + r.rowsDeleted()
                            + " deleted.");
        } catch (QuarantineActions.NotApplicableException e) {
            return new Outcome(q.id(), q.entity(), "refused", null, null, null, null, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new Conflict(e.getMessage());
        }
    }

    Outcome discard(Context ctx) throws SQLException {
        QuarantineActions.QuarantinedEvent q = event(ctx);
        String user = Security.principal(ctx).name();
        try {
            actions.discard(q.id(), q.entity(), user);
        } catch (IllegalArgumentException e) {
            throw new Conflict(e.getMessage());
        }
        return new Outcome(q.id(), q.entity(), "discarded", null, null, null, null,
                "Event " + q.id() + " (" + q.eventKey() + " at " + q.eventTime() + ") discarded by " + user + "; it will never be applied.");
    }

    /** The page after an action: the entity's pending events, with the outcome on top (409 when refused). */
    private void afterAction(Context ctx, Outcome o) throws SQLException {
        QuarantineQueries.Page p = queries.list(o.entity(), QuarantineQueries.Status.PENDING, 0, PAGE_SIZE);
        ctx.status(o.refused() ? HttpStatus.CONFLICT : HttpStatus.OK);
        render(ctx, new Model(o.entity(), "pending", 1, p.hasMore(), p.rows()), o);
    }

    public void applyPage(Context ctx) throws SQLException {
        afterAction(ctx, apply(ctx));
    }

    public void discardPage(Context ctx) throws SQLException {
        afterAction(ctx, discard(ctx));
    }

    public void applyApi(Context ctx) throws SQLException {
        Outcome o = apply(ctx);
        ctx.status(o.refused() ? HttpStatus.CONFLICT : HttpStatus.OK).json(o);
    }

    public void discardApi(Context ctx) throws SQLException {
        ctx.json(discard(ctx));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
