package io.dimstream.admin.integrity;

import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Values;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.Finding;
import io.dimstream.db.read.IntegrityChecker;
import io.dimstream.db.read.IntegrityReport;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /integrity/{entity}}: the last report run from this admin; {@code POST .../run} (admin
 * role) runs {@link IntegrityChecker} now. Each finding links to its key's history.
 */
public final class IntegrityPage {

    private static final Logger LOG = LoggerFactory.getLogger(IntegrityPage.class);

    /** A finding with the link to its key's history. */
    public record Item(String kind, Map<String, Object> key, Instant validFrom, String detail, String link) {
    }

    /** The page's model and the JSON twin's body; {@code status}: ok, failed or not run. */
    public record Model(String entity, String status, Instant checkedAt, String checkedBy, Long rowsChecked,
                        Map<Finding.Kind, Long> counts, List<Item> findings, boolean truncated) {
    }

    private final IntegrityChecker checker;
    private final IntegrityResults results;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final Clock clock;

    public IntegrityPage(IntegrityChecker checker, IntegrityResults results, EntityCatalog catalog, PageRenderer pages, Clock clock) {
        this.checker = checker;
        this.results = results;
        this.catalog = catalog;
        this.pages = pages;
        this.clock = clock;
    }

    Model model(String entity) {
        EntitySpec e = catalog.spec(entity);
        IntegrityResults.Run run = results.last(e.name()).orElse(null);
        if (run == null) {
            return new Model(e.name(), "not run", null, null, null, Map.of(), List.of(), false);
        }
        IntegrityReport r = run.report();
        List<Item> items = r.findings().stream().map(f -> new Item(f.kind().name(), f.key(), f.validFrom(), f.detail(),
                link(f))).toList();
        return new Model(e.name(), r.ok() ? "ok" : "failed", run.at(), run.by(), r.rowsChecked(), r.counts(), items, r.truncated());
    }

    private static String link(Finding f) {
        StringBuilder b = new StringBuilder();
        for (Object v : f.key().values()) {
            b.append(b.length() == 0 ? "?" : "&").append("k=")
                    .append(java.net.URLEncoder.encode(Values.text(v), java.nio.charset.StandardCharsets.UTF_8));
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
        results.put(e.name(), new IntegrityResults.Run(report, clock.instant(), by, ms));
        LOG.info("integrity check of {} run by {}: {} ({} ms)", e.name(), by, report.ok() ? "ok" : report.totalFindings()
                + " findings", ms);
        return model(e.name());
    }

    public void page(Context ctx) {
        pages.render(ctx, "integrity.jte", "integrity", Map.of("model", model(ctx.pathParam("entity"))));
    }

    public void api(Context ctx) {
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
