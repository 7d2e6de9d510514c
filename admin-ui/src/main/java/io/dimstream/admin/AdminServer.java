package io.dimstream.admin;

import io.dimstream.admin.asof.AsOfPage;
import io.dimstream.admin.audit.AuditPage;
import io.dimstream.admin.dlq.DlqPage;
import io.dimstream.admin.replay.ReplayPage;
import io.dimstream.admin.web.Conflict;
import io.dimstream.admin.auth.Accounts;
import io.dimstream.admin.auth.LoginPages;
import io.dimstream.admin.auth.LoginThrottle;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.auth.Sessions;
import io.dimstream.admin.dashboard.Dashboard;
import io.dimstream.admin.dashboard.DashboardPage;
import io.dimstream.admin.diff.DiffPage;
import io.dimstream.admin.history.HistoryPage;
import io.dimstream.admin.integrity.IntegrityPage;
import io.dimstream.admin.quarantine.QuarantinePage;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.Json;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Views;
import io.dimstream.config.AdminConfig;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.IntegrityChecker;
import io.dimstream.db.read.QuarantineQueries;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.status.IntegrityRuns;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web admin: one route table, handlers by feature over db's query services. Takes its
 * dependencies in the constructor; {@link #app()} is the Javalin instance (for {@code JavalinTest}),
 * {@link #start} is what the launcher calls.
 */
public final class AdminServer {

    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

    /** A running admin. */
    public interface Handle extends AutoCloseable {
        /** The port it listens on (the one taken when asked for 0). */
        int port();

        /** {@code http://host:port/}. */
        String url();

        @Override
        void close();
    }

    private final AdminConfig admin;
    private final AdminSettings settings;
    private final Javalin app;

    /**
     * @param config needs an {@code admin:} section ({@link DimstreamConfig#requireAdmin()})
     * @param ds     dimstream's database, migrated, holding the entity tables
     */
    public AdminServer(DimstreamConfig config, DataSource ds, AdminSettings settings) {
        Objects.requireNonNull(ds, "ds");
        this.admin = config.requireAdmin();
        this.settings = Objects.requireNonNull(settings, "settings");
        EntityCatalog catalog = new EntityCatalog(config);
        Views views = new Views();
        PageRenderer pages = new PageRenderer(views, catalog);
        Security security = new Security(new Accounts(admin), new Sessions(admin.sessionTimeout(), settings.clock()),
                admin.secureCookie());
        HistoryQueries queries = new HistoryQueries(ds);
        IntegrityRuns integrity = new IntegrityRuns(ds);
        LoginPages login = new LoginPages(security, views, new LoginThrottle(settings.clock()));
        DashboardPage dashboard = new DashboardPage(new Dashboard(ds, catalog, integrity, settings.clock()), pages);
        HistoryPage history = new HistoryPage(queries, catalog, pages);
        AsOfPage asOf = new AsOfPage(queries, catalog, pages, settings.clock());
        DiffPage diff = new DiffPage(queries, catalog, pages);
        IntegrityPage integrityPage = new IntegrityPage(new IntegrityChecker(ds), integrity, catalog, pages);
        QuarantinePage quarantine = new QuarantinePage(new QuarantineQueries(ds), new QuarantineActions(ds, new Scd2Writer(ds)),
                catalog, pages);
        Features f = new Features(login, dashboard, history, asOf, diff, integrityPage, quarantine,
                new ReplayPage(new ReplayJobs(ds), catalog, pages), new DlqPage(new DlqRecords(ds), catalog, pages),
                new AuditPage(new AuditLog(ds), pages));

        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jsonMapper(new JavalinJackson(Json.mapper(), false));
            cfg.staticFiles.add(s -> {
                s.hostedPath = "/static";
                s.directory = "/io/dimstream/admin/static";
                s.location = Location.CLASSPATH;
            });
            cfg.staticFiles.enableWebjars();
            routes(cfg, security, f, pages);
        });
    }

    /** The handlers by feature. */
    private record Features(LoginPages login, DashboardPage dashboard, HistoryPage history, AsOfPage asOf, DiffPage diff,
                            IntegrityPage integrity, QuarantinePage quarantine, ReplayPage replay, DlqPage dlq, AuditPage audit) {
    }

    /**
     * The route table: every page, its JSON twin under /api, and the state-changing actions (POST;
     * Security.check requires the admin role and, for a session, its CSRF token).
     */
    private static void routes(JavalinConfig cfg, Security security, Features f, PageRenderer pages) {
        var r = cfg.routes;
        LoginPages login = f.login();
        DashboardPage dashboard = f.dashboard();
        HistoryPage history = f.history();
        AsOfPage asOf = f.asOf();
        DiffPage diff = f.diff();
        IntegrityPage integrity = f.integrity();
        QuarantinePage quarantine = f.quarantine();
        ReplayPage replay = f.replay();
        DlqPage dlq = f.dlq();
        AuditPage audit = f.audit();
        r.before(security::check);

        r.get("/login", login::form);
        r.post("/login", login::submit);
        r.post("/logout", login::logout);

        r.get("/", dashboard::page);
        r.get("/dashboard/table", dashboard::fragment);
        r.get("/api/dashboard", dashboard::api);

        r.get("/history/{entity}", history::page);
        r.get("/api/history/{entity}", history::api);

        r.get("/asof/{entity}", asOf::page);
        r.get("/asof/{entity}/csv", asOf::csv);
        r.get("/api/asof/{entity}", asOf::api);
        r.get("/api/asof/{entity}/csv", asOf::csv);

        r.get("/diff/{entity}", diff::page);
        r.get("/api/diff/{entity}", diff::api);

        r.get("/integrity/{entity}", integrity::page);
        r.post("/integrity/{entity}/run", integrity::runPage);
        r.get("/api/integrity/{entity}", integrity::api);
        r.post("/api/integrity/{entity}/run", integrity::runApi);

        r.get("/quarantine", quarantine::page);
        r.get("/api/quarantine", quarantine::api);
        r.post("/quarantine/{id}/apply", quarantine::applyPage);
        r.post("/quarantine/{id}/discard", quarantine::discardPage);
        r.post("/api/quarantine/{id}/apply", quarantine::applyApi);
        r.post("/api/quarantine/{id}/discard", quarantine::discardApi);

        r.get("/replay", replay::page);
        r.post("/replay", replay::submitPage);
        r.get("/replay/{id}", replay::jobPage);
        r.get("/replay/{id}/progress", replay::progressFragment);
        r.post("/replay/{id}/cancel", replay::cancelPage);
        r.get("/api/replays", replay::listApi);
        r.post("/api/replays", replay::submitApi);
        r.get("/api/replays/{id}", replay::jobApi);
        r.post("/api/replays/{id}/cancel", replay::cancelApi);

        r.get("/dlq", dlq::page);
        r.post("/dlq/redrive", dlq::redrivePage);
        r.get("/api/dlq", dlq::api);
        r.post("/api/dlq/redrive", dlq::redriveApi);

        r.get("/audit", audit::page);
        r.get("/api/audit", audit::api);

        r.exception(BadRequest.class, (e, ctx) -> fail(ctx, pages, 400, e.getMessage()));
        r.exception(NotFound.class, (e, ctx) -> fail(ctx, pages, 404, e.getMessage()));
        r.exception(Conflict.class, (e, ctx) -> fail(ctx, pages, 409, e.getMessage()));
        r.exception(Exception.class, (e, ctx) -> {
            LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            fail(ctx, pages, 500, "the request failed: " + e);
        });
    }

    private static void fail(Context ctx, PageRenderer pages, int status, String message) {
        if (ctx.path().startsWith("/api/")) {
            ctx.status(status).json(Map.of("error", message));
        } else {
            pages.error(ctx, status, message);
        }
    }

    /** The Javalin instance, not started (JavalinTest starts it). */
    public Javalin app() {
        return app;
    }

    /** Starts listening; the handle stops it. */
    public Handle start() {
        String host = settings.host() != null ? settings.host() : admin.host();
        int port = settings.port().orElse(admin.port());
        app.start(host, port);
        int bound = app.port();
        String shown = host.equals("0.0.0.0") ? "localhost" : host;
        String url = "http://" + (shown.contains(":") ? "[" + shown + "]" : shown) + ":" + bound + "/";
        LOG.info("admin UI listening on {}", url);
        return new Handle() {
            public int port() {
                return bound;
            }

            public String url() {
                return url;
            }

            public void close() {
                app.stop();
            }
        };
    }

    /** What the launcher calls: builds the admin and starts it. */
    public static Handle start(DimstreamConfig config, DataSource ds, AdminSettings settings) {
        return new AdminServer(config, ds, settings).start();
    }
}
