package io.dimstream.admin.integrity;

import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.IntegrityChecker;
import io.dimstream.db.read.IntegrityReport;
import io.dimstream.db.status.IntegrityRuns;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /integrity/{entity}}: the last report run from the admin (kept in
 * {@code dimstream.integrity_runs}); {@code POST .../run} (admin role) runs {@link IntegrityChecker}
 * now. Each finding links to its key's history.
 */
public final class IntegrityPage {

    private static final Logger LOG = LoggerFactory.getLogger(IntegrityPage.class);

    /** A finding with the link to its key's history. */
    public record Item(String kind, Map<String, Object> key, Instant validFrom, String detail, String link) {
    }

    /** The page's model and the JSON twin's body; {@code status}: ok, failed or not run. */
    public record Model(String entity, String status, Instant checkedAt, String checkedBy, Long rowsChecked,
                        Map<String, Long> counts, List<Item> findings, boolean truncated) {
    }

    private final IntegrityChecker checker;
    private final IntegrityRuns runs;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public IntegrityPage(IntegrityChecker checker, IntegrityRuns runs, EntityCatalog catalog, PageRenderer pages) {
        this.checker = checker;
        this.runs = runs;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(String entity) throws SQLException {
        EntitySpec e = catalog.spec(entity);
        IntegrityRuns.Run run = runs.latest(e.name()).orElse(null);
        if (run == null) {
            return new Model(e.name(), "not run", null, null, null, Map.of(), List.of(), false);
        }
        List<Item> items = run.findings().stream().map(f -> new Item(f.kind(), f.key(), f.validFrom(), f.detail(),
                link(f))).toList();
        return new Model(e.name(), run.ok() ? "ok" : "failed", run.checkedAt(), run.checkedBy(), run.rowsChecked(), run.counts(),
                items, run.truncated());
    }

    private static String link(IntegrityRuns.StoredFinding f) {
        StringBuilder b = new StringBuilder();
        for (Object v : f.key().values()) {
            b.append(b.length() == 0 ? "?" : "&").append("k=")
                    .append(java.net.URLEncoder.encode(ValueText.text(v), java.nio.charset.StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    /** Runs the check now and keeps the report as the entity's last. */
    Model run(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        String by = Security.principal(ctx).name();
        long t0 = System.nanoTime();
        IntegrityReport report = checker.check(e);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        runs.save(report, by, ms);
        LOG.info("integrity check of {} run by {}: {} ({} ms)", e.name(), by, report.ok() ? "ok" : report.totalFindings()
                + " findings", ms);
        return model(e.name());
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "integrity.jte", "integrity", Map.of("model", model(ctx.pathParam("entity"))));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx.pathParam("entity")));
    }

    public void runPage(Context ctx) throws SQLException {
        run(ctx);
        ctx.redirect("/integrity/" + java.net.URLEncoder.encode(ctx.pathParam("entity"), java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20"), HttpStatus.SEE_OTHER);
    }

    public void runApi(Context ctx) throws SQLException {
        ctx.json(run(ctx));
    }
}
