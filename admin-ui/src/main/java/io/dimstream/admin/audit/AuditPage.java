package io.dimstream.admin.audit;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.jobs.AuditLog;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * {@code /audit?actor=&action=&before=}: {@code dimstream.admin_audit}, newest first: who did what,
 * when, to what, with the action's detail (replay.submit, replay.cancel, quarantine.apply,
 * quarantine.discard, dlq.redrive, integrity.run). Read only: the entries are written by the actions.
 */
public final class AuditPage {

    public static final int PAGE_SIZE = 100;

    /** {@code action} filters by prefix ({@code replay.} or {@code replay.submit}). */
    public record Model(String actor, String action, Long before, Long nextBefore, List<EntryView> entries) {
    }

    /** An entry with its detail as a JSON object (the page shows it as text). */
    public record EntryView(long id, java.time.Instant at, String actor, String action, String target,
                            com.fasterxml.jackson.databind.JsonNode detail) {
        static EntryView of(AuditLog.Entry e) {
            try {
                return new EntryView(e.id(), e.at(), e.actor(), e.action(), e.target(),
                        io.dimstream.admin.web.Json.mapper().readTree(e.detail()));
            } catch (java.io.IOException x) {
                throw new IllegalStateException("admin_audit " + e.id() + ": detail is not JSON: " + e.detail(), x);
            }
        }
    }

    private final AuditLog audit;
    private final PageRenderer pages;

    public AuditPage(AuditLog audit, PageRenderer pages) {
        this.audit = audit;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        String actor = blankToNull(ctx.queryParam("actor"));
        String action = blankToNull(ctx.queryParam("action"));
        String rawBefore = blankToNull(ctx.queryParam("before"));
        Long before = null;
        if (rawBefore != null) {
            try {
                before = Long.parseLong(rawBefore);
            } catch (NumberFormatException e) {
                throw new BadRequest("before: \"" + rawBefore + "\" is not an audit entry id");
            }
        }
        List<AuditLog.Entry> rows = audit.page(actor, action, before, PAGE_SIZE + 1);
        boolean more = rows.size() > PAGE_SIZE;
        List<EntryView> shown = rows.stream().limit(PAGE_SIZE).map(EntryView::of).toList();
        return new Model(actor == null ? "" : actor, action == null ? "" : action, before,
                more ? shown.get(shown.size() - 1).id() : null, shown);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "audit.jte", "audit", Map.of("model", model(ctx)));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
