package io.dimstream.admin.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.admin.asof.Zones;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.Conflict;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.Json;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.jobs.ShadowTables;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code /replay}: the form starting a replay job (admin role) and every job, newest first;
 * {@code /replay/{id}}: a job with its progress bar, which htmx refreshes from
 * {@code /replay/{id}/progress} every second until the job has finished, and its Cancel button.
 * The JSON twin {@code /api/replays} lets an orchestrator start a job and poll it until done.
 * The jobs themselves are executed by the running service (its ReplayWorker), never here.
 *
 * <p>A previewed rebuild: a shadow job submitted with {@code no_swap} stops READY; its page then
 * links {@code /replay/{id}/preview} (what the swap would change, {@code ShadowPreviews.preview},
 * JSON twin {@code /api/replays/{id}/preview}) and offers Swap and Discard (admin role, CSRF,
 * audited by {@code ShadowPreviews}); a job that is not READY is refused with 409, and so is a swap
 * that cannot be made now ({@code ShadowTables.SwapRefused}: a foreign key on the table, views that
 * block a column's widening), with what to do; nothing is changed and the job stays READY.
 */
public final class ReplayPage {

    /** Jobs listed. */
    public static final int LIST_LIMIT = 200;
    /** How often the job page refreshes its progress while the job runs. */
    public static final int REFRESH_SECONDS = 1;
    /** Keys the preview page lists unless {@code limit=} says otherwise. */
    public static final int PREVIEW_LIMIT = 50;
    /** The most keys {@code limit=} may ask the preview for. */
    public static final int PREVIEW_MAX = 5_000;

    /** The list page: the form (with the refusal of a bad submission) and the jobs. */
    public record ListModel(ReplayRequest form, String error, Map<String, String> topics, List<String> zones, List<JobView> jobs) {
    }

    private final ReplayJobs jobs;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final ShadowPreviews shadows;

    public ReplayPage(ReplayJobs jobs, ShadowPreviews shadows, EntityCatalog catalog, PageRenderer pages) {
        this.shadows = shadows;
        this.jobs = jobs;
        this.catalog = catalog;
        this.pages = pages;
    }

    private List<JobView> list(String entity) throws SQLException {
        return jobs.list(entity, LIST_LIMIT).stream().map(JobView::of).toList();
    }

    private Map<String, String> topics() {
        Map<String, String> m = new LinkedHashMap<>();
        catalog.names().forEach(n -> m.put(n, catalog.topic(n)));
        return m;
    }

    private String entityFilter(Context ctx) {
        String e = ctx.queryParam("entity");
        if (e == null || e.isBlank()) {
            return null;
        }
        return catalog.configSpec(e).name();
    }

    public void page(Context ctx) throws SQLException {
        String entity = entityFilter(ctx);
        ReplayRequest form = entity == null ? ReplayRequest.blank("", "") : ReplayRequest.blank(entity, catalog.topic(entity));
        renderList(ctx, form, null);
    }

    private void renderList(Context ctx, ReplayRequest form, String error) throws SQLException {
        ListModel m = new ListModel(form, error, topics(), Zones.ALL, list(null));
        pages.render(ctx, "replay.jte", "replay", Map.of("model", m, "refreshSeconds", REFRESH_SECONDS));
    }

    /** {@code POST /replay}: queues the job and shows its page; a refused form comes back with the reason (400). */
    public void submitPage(Context ctx) throws SQLException {
        ReplayRequest req = ReplayRequest.read(ctx::formParam);
        ReplayRequest.Resolved r;
        try {
            r = req.resolve(catalog);
        } catch (BadRequest e) {
            ctx.status(HttpStatus.BAD_REQUEST);
            renderList(ctx, req, e.getMessage());
            return;
        }
        long id = r.keys() != null ? jobs.submit(r.entity(), r.topic(), r.source(), r.target(), r.keys(), Security.principal(ctx).name())
                : jobs.submit(r.entity(), r.topic(), r.source(), r.target(), r.noSwap(), Security.principal(ctx).name());
        ctx.redirect("/replay/" + id, HttpStatus.SEE_OTHER);
    }

    private String keys(long id) throws SQLException {
        return jobs.keys(id).map(Object::toString).orElse(null);
    }

    private ReplayJob job(Context ctx) throws SQLException {
        String raw = ctx.pathParam("id");
        long id;
        try {
            id = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new BadRequest("id: \"" + raw + "\" is not a job number");
        }
        return jobs.find(id).orElseThrow(() -> new NotFound("no replay job " + id));
    }

    JobView.Detail detail(Context ctx) throws SQLException {
        ReplayJob j = job(ctx);
        return new JobView.Detail(JobView.of(j), jobs.progress(j.id()), keys(j.id()));
    }

    public void jobPage(Context ctx) throws SQLException {
        JobView.Detail d = detail(ctx);
        pages.render(ctx, "replay-job.jte", "replay", Map.of("detail", d, "refreshSeconds", REFRESH_SECONDS));
    }

    /** The fragment htmx polls; once the job has finished it carries no trigger, so the polling stops. */
    public void progressFragment(Context ctx) throws SQLException {
        JobView.Detail d = detail(ctx);
        pages.render(ctx, "replay-progress.jte", "replay", Map.of("detail", d, "refreshSeconds", REFRESH_SECONDS));
    }

    private long cancel(Context ctx) throws SQLException {
        ReplayJob j = job(ctx);
        if (!jobs.requestCancel(j.id(), Security.principal(ctx).name())) {
            throw new Conflict("replay job " + j.id() + " has already finished (" + jobs.find(j.id()).orElse(j).state() + ")");
        }
        return j.id();
    }

    public void cancelPage(Context ctx) throws SQLException {
        long id = cancel(ctx);
        ctx.redirect("/replay/" + id, HttpStatus.SEE_OTHER);
    }

    // ---- a previewed rebuild: preview, swap, discard -------------------------------------------

    private ShadowPreviews.Preview preview(Context ctx, ReplayJob j, int limit) throws SQLException {
        try {
            return shadows.preview(j.id(), catalog.spec(j.entity()), limit);
        } catch (ShadowPreviews.NotReady e) {
            throw new Conflict(e.getMessage());
        } catch (ShadowTables.SwapRefused e) {
            throw new Conflict("replay job " + j.id() + " cannot be swapped in now: " + e.getMessage());
        }
    }

    private static int limit(Context ctx) {
        String raw = ctx.queryParam("limit");
        if (raw == null || raw.isBlank()) {
            return PREVIEW_LIMIT;
        }
        try {
            int n = Integer.parseInt(raw.trim());
            if (n < 0 || n > PREVIEW_MAX) {
                throw new BadRequest("limit: must be between 0 and " + PREVIEW_MAX + ", got " + raw);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new BadRequest("limit: \"" + raw + "\" is not a number of keys");
        }
    }

    /** {@code GET /replay/{id}/preview?limit=}: what the READY job's swap would change. */
    public void previewPage(Context ctx) throws SQLException {
        ReplayJob j = job(ctx);
        int limit = limit(ctx);
        PreviewView v = PreviewView.of(preview(ctx, j, limit), j.entity(), limit);
        pages.render(ctx, "replay-preview.jte", "replay", Map.of("view", v));
    }

    /** {@code GET /api/replays/{id}/preview?limit=}: the same, the versions as rows. */
    public void previewApi(Context ctx) throws SQLException {
        ReplayJob j = job(ctx);
        ShadowPreviews.Preview p = preview(ctx, j, limit(ctx));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("job", JobView.of(p.job()));
        body.put("live_table", p.liveTable());
        body.put("shadow_table", p.shadowTable());
        body.put("merged_events", p.mergedEvents());
        body.put("diff", p.diff());
        ctx.json(body);
    }

    private ReplayJob decide(Context ctx, boolean swap) throws SQLException {
        ReplayJob j = job(ctx);
        String user = Security.principal(ctx).name();
        try {
            return swap ? shadows.swap(j.id(), catalog.spec(j.entity()), user) : shadows.discard(j.id(), catalog.spec(j.entity()), user);
        } catch (ShadowPreviews.NotReady e) {
            throw new Conflict(e.getMessage());
        } catch (ShadowTables.SwapRefused e) {
            // nothing was changed: the job stays READY, to be swapped once the cause is gone, or discarded
            throw new Conflict("replay job " + j.id() + " was not swapped in (nothing changed, it is still READY): " + e.getMessage());
        }
    }

    /** {@code POST /replay/{id}/swap}: swaps the READY job's shadow in (audited) and shows the job. */
    public void swapPage(Context ctx) throws SQLException {
        ctx.redirect("/replay/" + decide(ctx, true).id(), HttpStatus.SEE_OTHER);
    }

    /** {@code POST /replay/{id}/discard}: drops the READY job's shadow (audited) and shows the job. */
    public void discardPage(Context ctx) throws SQLException {
        ctx.redirect("/replay/" + decide(ctx, false).id(), HttpStatus.SEE_OTHER);
    }

    public void swapApi(Context ctx) throws SQLException {
        ReplayJob j = decide(ctx, true);
        ctx.json(new JobView.Detail(JobView.of(j), jobs.progress(j.id())));
    }

    public void discardApi(Context ctx) throws SQLException {
        ReplayJob j = decide(ctx, false);
        ctx.json(new JobView.Detail(JobView.of(j), jobs.progress(j.id())));
    }

    // ---- the JSON twin ----------------------------------------------------------------------

    /** {@code GET /api/replays?entity=}: every job (of the entity), newest first. */
    public void listApi(Context ctx) throws SQLException {
        ctx.json(Map.of("jobs", list(entityFilter(ctx))));
    }

    /** {@code POST /api/replays}: a JSON object (or form fields) like the form's; 201 with the job and its Location. */
    public void submitApi(Context ctx) throws SQLException {
        ReplayRequest.Resolved r = requestFrom(ctx).resolve(catalog);
        long id = r.keys() != null ? jobs.submit(r.entity(), r.topic(), r.source(), r.target(), r.keys(), Security.principal(ctx).name())
                : jobs.submit(r.entity(), r.topic(), r.source(), r.target(), r.noSwap(), Security.principal(ctx).name());
        ReplayJob j = jobs.find(id).orElseThrow();
        ctx.status(HttpStatus.CREATED).header("Location", "/api/replays/" + id).json(new JobView.Detail(JobView.of(j), List.of(), keys(id)));
    }

    private static ReplayRequest requestFrom(Context ctx) {
        String type = ctx.contentType();
        if (type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            JsonNode body;
            try {
                body = Json.mapper().readTree(ctx.body());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new BadRequest("body: not JSON (" + e.getOriginalMessage() + ")");
            }
            if (body == null || !body.isObject()) {
                throw new BadRequest("body: expected a JSON object like {\"entity\": \"customer\", \"from\": \"earliest\", \"target\": \"live\"}");
            }
            Function<String, String> f = name -> {
                JsonNode v = body.get(name);
                return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
            };
            return ReplayRequest.read(f);
        }
        return ReplayRequest.read(ctx::formParam);
    }

    public void jobApi(Context ctx) throws SQLException {
        ctx.json(detail(ctx));
    }

    public void cancelApi(Context ctx) throws SQLException {
        long id = cancel(ctx);
        ReplayJob j = jobs.find(id).orElseThrow();
        ctx.json(new JobView.Detail(JobView.of(j), jobs.progress(id), keys(id)));
    }
}
