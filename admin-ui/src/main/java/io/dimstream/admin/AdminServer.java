package io.dimstream.admin;

import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import io.dimstream.admin.asof.AsOfPage;
import io.dimstream.admin.audit.AuditPage;
import io.dimstream.admin.columns.ColumnsPage;
import io.dimstream.admin.dlq.DlqPage;
import io.dimstream.admin.replay.ReplayPage;
import io.dimstream.admin.replay.RetiredTablesPage;
import io.dimstream.admin.auth.Accounts;
import io.dimstream.admin.auth.LoginThrottle;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.auth.Sessions;
import io.dimstream.admin.dashboard.Dashboard;
import io.dimstream.admin.dashboard.DashboardPage;
import io.dimstream.admin.diff.DiffPage;
import io.dimstream.admin.history.HistoryPage;
import io.dimstream.admin.integrity.IntegrityPage;
import io.dimstream.admin.login.LoginPages;
import io.dimstream.admin.erase.ErasePage;
import io.dimstream.admin.quarantine.QuarantinePage;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.Errors;
import io.dimstream.admin.web.JettyErrors;
import io.dimstream.admin.web.Json;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Views;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.erase.Erasure;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.KeyIncidents;
import io.dimstream.db.read.KnownHistory;
import io.dimstream.db.read.IntegrityChecker;
import io.dimstream.db.read.QuarantineQueries;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.status.IntegrityRuns;
import io.dimstream.db.write.Scd2Writer;
import io.dimstream.admin.auth.ClientAddress;
import io.dimstream.db.connect.StatementTimeouts;
import io.javalin.Javalin;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import java.util.ArrayList;
import java.util.List;
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
    public interface Running extends AutoCloseable {
        /** The port it listens on (the one taken when asked for 0). */
        int port();

        /** {@code http://host:port/}. */
        String url();

        @Override
        void close();
    }

    /**
     * Who may call a route. The route table declares it; {@link Security#check} enforces it from the
     * path and method alone (deny by default: a path is public only when Security says so), and
     * the security tests walk the table to prove the two agree.
     */
    public enum Access {
        /** Anyone: the login form and its POST. */
        PUBLIC,
        /** Any logged-in user or API token, read only (GET). */
        VIEWER,
        /** The admin role; a session also needs its CSRF token (POST). */
        ADMIN,
        /** Any session with its CSRF token (POST /logout). */
        SESSION
    }

    /** One line of the route table. */
    public record Route(HandlerType method, String path, Access access) {
    }

    private record Endpoint(Route route, Handler handler) {
    }

    private final AdminConfig admin;
    private final AdminSettings settings;
    private final List<Endpoint> endpoints;
    private final Javalin app;

    /**
     * @param config needs an {@code admin:} section ({@link DimstreamConfig#requireAdmin()})
     * @param rawDs  dimstream's database, migrated, holding the entity tables; every statement the
     *               admin runs on it is limited to {@code admin.statement-timeout}
     */
    public AdminServer(DimstreamConfig config, DataSource rawDs, AdminSettings settings) {
        Objects.requireNonNull(rawDs, "ds");
        this.admin = config.requireAdmin();
        this.settings = Objects.requireNonNull(settings, "settings");
        DataSource ds = StatementTimeouts.wrap(rawDs, admin.statementTimeout());
        EntityCatalog catalog = new EntityCatalog(config, ds);
        Views views = new Views();
        PageRenderer pages = new PageRenderer(views, catalog);
        Security security = new Security(new Accounts(admin),
                new Sessions(admin.sessionTimeout(), admin.sessionLifetime(), settings.clock()), admin.secureCookie());
        HistoryQueries queries = new HistoryQueries(ds);
        IntegrityRuns integrity = new IntegrityRuns(ds);
        LoginPages login = new LoginPages(security, views, new LoginThrottle(settings.clock()),
                new ClientAddress(admin.trustedProxies()));
        DashboardPage dashboard = new DashboardPage(new Dashboard(ds, catalog, integrity, settings.clock()),
                new io.dimstream.admin.dashboard.Trends(ds, catalog, settings.clock()), pages);
        ShadowPreviews shadows = new ShadowPreviews(ds);
        HistoryPage history = new HistoryPage(queries, new KnownHistory(ds), new KeyIncidents(ds), catalog, pages, settings.clock(), shadows);
        AsOfPage asOf = new AsOfPage(queries, catalog, pages, settings.clock(), admin.csvMaxMib());
        DiffPage diff = new DiffPage(queries, catalog, pages, settings.clock());
        IntegrityPage integrityPage = new IntegrityPage(new IntegrityChecker(ds), integrity, catalog, pages);
        QuarantinePage quarantine = new QuarantinePage(new QuarantineQueries(ds), new QuarantineActions(ds, new Scd2Writer(ds)),
                catalog, pages);
        FeaturePages f = new FeaturePages(login, dashboard, history, asOf, diff, integrityPage, quarantine,
                new ReplayPage(new ReplayJobs(ds), shadows, catalog, pages), new DlqPage(new DlqRecords(ds), ds, catalog, pages),
                new AuditPage(new AuditLog(ds), pages), new ColumnsPage(ds, catalog, pages), new RetiredTablesPage(ds, catalog, pages),
                new ErasePage(new Erasure(ds), catalog, pages));
        this.endpoints = endpoints(f);
        Errors errors = new Errors(pages, admin.statementTimeout(), security::headers);

        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jsonMapper(new JavalinJackson(Json.mapper(), false));
            cfg.staticFiles.add(s -> {
                s.hostedPath = "/static";
                s.directory = "/io/dimstream/admin/static";
                s.location = Location.CLASSPATH;
            });
            cfg.staticFiles.enableWebjars();
            // what Jetty answers itself (a malformed URI, a header too large, an ambiguous path)
            // never reaches Javalin: its error handler writes a plain line with the same headers
            cfg.jetty.modifyServer(server -> server.setErrorHandler(new JettyErrors(admin.secureCookie())));
            cfg.jetty.modifyServletContextHandler(h -> h.setErrorHandler(new JettyErrors(admin.secureCookie())));
            cfg.jetty.modifyHttpConfiguration(h -> {
                h.setSendServerVersion(false);
                h.setSendXPoweredBy(false);
            });
            // a java.lang.Error (stack overflow, out of memory) in a handler: logged with an id, answered like a 500
            cfg.router.javaLangErrorHandler((res, error) -> errors.javaLangError(res, error, admin.secureCookie()));
            var r = cfg.routes;
            r.before(security::check);
            for (Endpoint e : endpoints) {
                r.addHttpHandler(e.route().method(), e.route().path(), e.handler());
            }
            errors.register(r);
        });
    }

    /** The handlers by feature. */
    private record FeaturePages(LoginPages login, DashboardPage dashboard, HistoryPage history, AsOfPage asOf, DiffPage diff,
                            IntegrityPage integrity, QuarantinePage quarantine, ReplayPage replay, DlqPage dlq, AuditPage audit,
                            ColumnsPage columns, RetiredTablesPage retired, ErasePage erase) {
    }

    /**
     * The route table: every page, its JSON twin under /api, and the state-changing actions (POST;
     * Security.check requires the admin role and, for a session, its CSRF token).
     */
    private static List<Endpoint> endpoints(FeaturePages f) {
        List<Endpoint> t = new ArrayList<>();
        LoginPages login = f.login();
        DashboardPage dashboard = f.dashboard();
        HistoryPage history = f.history();
        AsOfPage asOf = f.asOf();
        DiffPage diff = f.diff();
        IntegrityPage integrity = f.integrity();
        QuarantinePage quarantine = f.quarantine();
        DlqPage dlq = f.dlq();
        AuditPage audit = f.audit();
        ColumnsPage columns = f.columns();

        add(t, GET, "/login", Access.PUBLIC, login::form);
        add(t, POST, "/login", Access.PUBLIC, login::submit);
        add(t, POST, "/logout", Access.SESSION, login::logout);

        add(t, GET, "/", Access.VIEWER, dashboard::page);
        add(t, GET, "/dashboard/table", Access.VIEWER, dashboard::fragment);
        add(t, GET, "/api/dashboard", Access.VIEWER, dashboard::api);
        add(t, GET, "/api/dashboard/trends", Access.VIEWER, dashboard::trendsApi);

        add(t, GET, "/history/{entity}", Access.VIEWER, history::page);
        add(t, GET, "/api/history/{entity}", Access.VIEWER, history::api);
        add(t, POST, "/history/{entity}/erase", Access.ADMIN, f.erase()::erasePage);
        add(t, POST, "/api/erase/{entity}", Access.ADMIN, f.erase()::eraseApi);

        add(t, GET, "/asof/{entity}", Access.VIEWER, asOf::page);
        add(t, GET, "/asof/{entity}/csv", Access.VIEWER, asOf::csv);
        add(t, GET, "/api/asof/{entity}", Access.VIEWER, asOf::api);
        add(t, GET, "/api/asof/{entity}/csv", Access.VIEWER, asOf::csv);

        add(t, GET, "/diff/{entity}", Access.VIEWER, diff::page);
        add(t, GET, "/api/diff/{entity}", Access.VIEWER, diff::api);

        add(t, GET, "/integrity/{entity}", Access.VIEWER, integrity::page);
        add(t, POST, "/integrity/{entity}/run", Access.ADMIN, integrity::runPage);
        add(t, GET, "/api/integrity/{entity}", Access.VIEWER, integrity::api);
        add(t, POST, "/api/integrity/{entity}/run", Access.ADMIN, integrity::runApi);

        add(t, GET, "/columns/{entity}", Access.VIEWER, columns::page);
        add(t, GET, "/api/columns/{entity}", Access.VIEWER, columns::api);

        add(t, GET, "/quarantine", Access.VIEWER, quarantine::page);
        add(t, GET, "/api/quarantine", Access.VIEWER, quarantine::api);
        add(t, POST, "/quarantine/{id}/apply", Access.ADMIN, quarantine::applyPage);
        add(t, POST, "/quarantine/{id}/discard", Access.ADMIN, quarantine::discardPage);
        add(t, POST, "/api/quarantine/{id}/apply", Access.ADMIN, quarantine::applyApi);
        add(t, POST, "/api/quarantine/{id}/discard", Access.ADMIN, quarantine::discardApi);

        replayRoutes(t, f);

        add(t, GET, "/dlq", Access.VIEWER, dlq::page);
        add(t, GET, "/dlq/{id}/{part}", Access.VIEWER, dlq::download);
        add(t, POST, "/dlq/redrive", Access.ADMIN, dlq::redrivePage);
        add(t, GET, "/api/dlq", Access.VIEWER, dlq::api);
        add(t, GET, "/api/dlq/{id}/{part}", Access.VIEWER, dlq::download);
        add(t, POST, "/api/dlq/redrive", Access.ADMIN, dlq::redriveApi);

        add(t, GET, "/audit", Access.VIEWER, audit::page);
        add(t, GET, "/api/audit", Access.VIEWER, audit::api);
        return List.copyOf(t);
    }

    /** The replay jobs' routes: pages, their JSON twins, and the retired tables they leave. */
    private static void replayRoutes(List<Endpoint> t, FeaturePages f) {
        ReplayPage replay = f.replay();
        add(t, GET, "/replay", Access.VIEWER, replay::page);
        add(t, POST, "/replay", Access.ADMIN, replay::submitPage);
        add(t, GET, "/replay/{id}", Access.VIEWER, replay::jobPage);
        add(t, GET, "/replay/{id}/progress", Access.VIEWER, replay::progressFragment);
        add(t, POST, "/replay/{id}/cancel", Access.ADMIN, replay::cancelPage);
        add(t, GET, "/replay/{id}/preview", Access.VIEWER, replay::previewPage);
        add(t, POST, "/replay/{id}/swap", Access.ADMIN, replay::swapPage);
        add(t, POST, "/replay/{id}/discard", Access.ADMIN, replay::discardPage);
        add(t, GET, "/api/replays", Access.VIEWER, replay::listApi);
        add(t, POST, "/api/replays", Access.ADMIN, replay::submitApi);
        add(t, GET, "/api/replays/{id}", Access.VIEWER, replay::jobApi);
        add(t, POST, "/api/replays/{id}/cancel", Access.ADMIN, replay::cancelApi);
        add(t, GET, "/api/replays/{id}/preview", Access.VIEWER, replay::previewApi);
        add(t, POST, "/api/replays/{id}/swap", Access.ADMIN, replay::swapApi);
        add(t, POST, "/api/replays/{id}/discard", Access.ADMIN, replay::discardApi);
        add(t, GET, "/replay-tables", Access.VIEWER, f.retired()::page);
        add(t, GET, "/api/replay-tables", Access.VIEWER, f.retired()::api);
        add(t, POST, "/replay-tables/{id}/drop", Access.ADMIN, f.retired()::drop);
    }

    private static void add(List<Endpoint> table, HandlerType method, String path, Access access, Handler handler) {
        table.add(new Endpoint(new Route(method, path, access), handler));
    }

    /** The route table as declared (method, path, who may call it): what the security tests walk. */
    public List<Route> routes() {
        return endpoints.stream().map(Endpoint::route).toList();
    }

    /** The Javalin instance, not started (JavalinTest starts it). */
    public Javalin app() {
        return app;
    }

    /** Starts listening; closing what it returns stops it. */
    public Running start() {
        String host = settings.host() != null ? settings.host() : admin.host();
        int port = settings.port().orElse(admin.port());
        app.start(host, port);
        int bound = app.port();
        String shown = host.equals("0.0.0.0") ? "localhost" : host;
        String url = "http://" + (shown.contains(":") ? "[" + shown + "]" : shown) + ":" + bound + "/";
        LOG.info("admin UI listening on {}", url);
        return new Running() {
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
    public static Running start(DimstreamConfig config, DataSource ds, AdminSettings settings) {
        return new AdminServer(config, ds, settings).start();
    }
}
