package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.http.HandlerType;
import io.javalin.testtools.JavalinTest;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Logins, sessions, CSRF, roles, headers, escaping and hostile parameters, over real HTTP. */
class SecurityTest {

    private final AdminFixture f = AdminFixture.get();

    private AdminServer server() {
        return new AdminServer(f.config, f.ds, AdminSettings.onPort(0));
    }

    private static Browser browser(io.javalin.testtools.HttpClient client) {
        return new Browser(client.getOrigin());
    }

    /** A route's path with its parameters filled in ({entity}: customer, {id}: 1, {part}: value). */
    static String concrete(String path) {
        return path.replace("{entity}", "customer").replace("{id}", "1").replace("{part}", "value");
    }

    @Test
    void everyPageNeedsALoginAndTheApiAnswers401() {
        AdminServer server = server();
        JavalinTest.test(server.app(), (app, client) -> {
            List<AdminServer.Route> routes = server.routes();
            assertThat(routes.stream().filter(r -> r.access() == AdminServer.Access.PUBLIC).map(r -> r.method() + " " + r.path()).toList())
                    .isEqualTo(List.of("GET /login", "POST /login"));
            Browser viewer = browser(client);
            viewer.login("victor", AdminFixture.VIEWER_PASSWORD);
            String viewerCsrf = Browser.csrf(viewer.get("/").body());
            int checked = 0;
            for (AdminServer.Route r : routes) {
                String path = concrete(r.path());
                boolean api = path.startsWith("/api/");
                String what = r.method() + " " + path;
                Browser anonymous = browser(client);
                switch (r.access()) {
                    case PUBLIC -> {
                        continue;
                    }
                    case VIEWER -> {
                        assertThat(r.method()).as(what).isEqualTo(HandlerType.GET);
                        HttpResponse<String> anon = anonymous.get(path);
                        if (api) {
                            assertThat(List.of(anon.statusCode(), anon.body())).as(what).isEqualTo(List.of(401,
                                    "{\"error\":\"log in first (or send Authorization: Bearer <token> to /api/...)\"}"));
                        } else {
                            assertThat(List.of(anon.statusCode(), anon.headers().firstValue("Location").orElse(""))).as(what)
                                    .isEqualTo(List.of(303, "/login?next=" + Browser.enc(path)));
                        }
                        // and a viewer may read it (the answer may be a 404 of an unknown job, never a refusal)
                        int asViewer = viewer.get(path).statusCode();
                        assertThat(asViewer).as(what).isNotIn(401, 403, 303);
                    }
                    case ADMIN, SESSION -> {
                        assertThat(r.method()).as(what).isEqualTo(HandlerType.POST);
                        HttpResponse<String> anon = anonymous.post(path, Map.of("_csrf", "x"));
                        assertThat(List.of(anon.statusCode(), anon.body())).as(what).isEqualTo(List.of(401, api
                                ? "{\"error\":\"log in first (or send Authorization: Bearer <token> to /api/...)\"}"
                                : "401 Unauthorized: log in first (or send Authorization: Bearer <token> to /api/...)"));
                        if (r.access() == AdminServer.Access.ADMIN) {
                            HttpResponse<String> v = viewer.post(path, Map.of("_csrf", viewerCsrf));
                            assertThat(List.of(v.statusCode(), v.body())).as(what).isEqualTo(List.of(403, api
                                    ? "{\"error\":\"the viewer role may not change anything; an admin may\"}"
                                    : "403 Forbidden: the viewer role may not change anything; an admin may"));
                        }
                    }
                }
                checked++;
            }
            assertThat(checked).isEqualTo(routes.size() - 2);
        });
    }

    @Test
    void loginSetsAnHttpOnlySameSiteStrictSessionCookieAndAWrongPasswordIsRefused() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            HttpResponse<String> wrong = b.login("alice", "wrong");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("<p class=\"error\" id=\"login-error\">Unknown user or wrong password.</p>");
            assertThat(b.cookies).doesNotContainKey("dimstream_session");

            HttpResponse<String> ok = b.login("alice", AdminFixture.ADMIN_PASSWORD);
            assertThat(ok.statusCode()).isEqualTo(303);
            assertThat(ok.headers().firstValue("Location")).hasValue("/");
            assertThat(Browser.header(ok, "Set-Cookie")).anySatisfy(c ->
                    assertThat(c).matches("dimstream_session=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Secure"));
            // secure-cookie is on by default: the browser must not fall back to plain http either
            assertThat(ok.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=31536000");
            assertThat(b.get("/").statusCode()).isEqualTo(200);
        });
    }

    @Test
    void afterFiveFailedLoginsTheNameIsLockedOnThatClientEvenWithTheRightPasswordAndOtherNamesAreNot() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            for (int i = 0; i < 5; i++) {
                assertThat(b.login("alice", "guess-" + i).statusCode()).isEqualTo(401);
            }
            HttpResponse<String> locked = b.login("alice", AdminFixture.ADMIN_PASSWORD);
            assertThat(locked.statusCode()).isEqualTo(429);
            assertThat(locked.headers().firstValue("Retry-After").map(Long::parseLong).orElseThrow()).isBetween(890L, 900L);
            assertThat(locked.body()).contains("<p class=\"error\" id=\"login-error\">Too many failed logins. Try again in 15 minutes.</p>");
            assertThat(b.cookies).doesNotContainKey("dimstream_session");

            // the same client (no proxy configured: the remote address), another name: its own budget
            Browser other = browser(client);
            HttpResponse<String> victor = other.login("victor", AdminFixture.VIEWER_PASSWORD);
            assertThat(victor.statusCode()).isEqualTo(303);
        });
    }

    @Test
    void aLoginPostWithoutTheFormsTokenIsRefused() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.get("/login");
            HttpResponse<String> r = b.post("/login", Map.of("username", "alice", "password", AdminFixture.ADMIN_PASSWORD,
                    "_csrf", "forged"));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(b.cookies).doesNotContainKey("dimstream_session");
        });
    }

    @Test
    void aStateChangingRequestWithoutSessionIsRefused() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            HttpResponse<String> r = b.post("/integrity/customer/run", Map.of("_csrf", "x"));
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.body()).isEqualTo("401 Unauthorized: log in first (or send Authorization: Bearer <token> to /api/...)");
            assertThat(b.post("/api/integrity/customer/run", Map.of()).statusCode()).isEqualTo(401);
        });
    }

    @Test
    void aStateChangingRequestWithoutOrWithAWrongCsrfTokenIsRefusedAndWithItAccepted() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            HttpResponse<String> none = b.post("/integrity/customer/run", Map.of());
            assertThat(none.statusCode()).isEqualTo(403);
            assertThat(none.body()).isEqualTo("403 Forbidden: missing or wrong CSRF token: reload the page and try again");
            assertThat(b.post("/integrity/customer/run", Map.of("_csrf", "not-the-token")).statusCode()).isEqualTo(403);
            assertThat(b.get("/integrity/customer").body()).contains("Never run from the admin.");

            String token = Browser.csrf(b.get("/integrity/customer").body());
            HttpResponse<String> ok = b.post("/integrity/customer/run", Map.of("_csrf", token));
            assertThat(ok.statusCode()).isEqualTo(303);
            assertThat(b.get("/integrity/customer").body()).contains("OK: 6 rows checked at").contains("by alice");
        });
    }

    @Test
    void aViewerCannotChangeStateNeitherByFormNorByToken() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.login("victor", AdminFixture.VIEWER_PASSWORD);
            String page = b.get("/integrity/customer").body();
            assertThat(page).contains("Running the check needs the admin role.").doesNotContain("run-integrity");
            HttpResponse<String> r = b.post("/integrity/customer/run", Map.of("_csrf", Browser.csrf(page)));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).isEqualTo("403 Forbidden: the viewer role may not change anything; an admin may");

            Browser api = browser(client);
            HttpResponse<String> t = api.post("/api/integrity/customer/run", Map.of(),
                    "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN);
            assertThat(t.statusCode()).isEqualTo(403);
            assertThat(api.get("/api/integrity/customer", "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN)
                    .statusCode()).isEqualTo(200);
            assertThat(api.get("/api/integrity/customer", "Authorization", "Bearer wrong-token").statusCode()).isEqualTo(401);
        });
    }

    @Test
    void anAdminTokenMayChangeStateWithoutCsrfBecauseItSendsNoCookie() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser api = browser(client);
            HttpResponse<String> r = api.post("/api/integrity/account/run", Map.of(),
                    "Authorization", "Bearer " + AdminFixture.ADMIN_TOKEN);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).startsWith("{\"entity\":\"account\",\"status\":\"ok\",").contains("\"checked_by\":\"airflow\"");
        });
    }

    @Test
    void loginRedirectsOnlyToPathsOfThisSite() {
        JavalinTest.test(server().app(), (app, client) -> {
            for (String next : List.of("//evil.example/x", "https://evil.example/", "/\\evil.example", "history")) {
                Browser b = browser(client);
                String form = b.get("/login?next=" + Browser.enc(next)).body();
                assertThat(form).contains("<input type=\"hidden\" name=\"next\" value=\"/\">");
                HttpResponse<String> r = b.post("/login", Map.of("_csrf", Browser.csrf(form), "next", next, "username", "alice",
                        "password", AdminFixture.ADMIN_PASSWORD));
                assertThat(r.headers().firstValue("Location")).as(next).hasValue("/");
            }
        });
    }

    @Test
    void anHtmxPollWithoutSessionIsToldToReloadTheLoginPage() {
        JavalinTest.test(server().app(), (app, client) -> {
            HttpResponse<String> r = browser(client).get("/dashboard/table", "HX-Request", "true");
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("HX-Redirect")).hasValue("/login?next=%2F");
        });
    }

    @Test
    void logoutEndsTheSession() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            String session = b.cookies.get("dimstream_session");
            String token = Browser.csrf(b.get("/").body());
            assertThat(b.post("/logout", Map.of("_csrf", token)).statusCode()).isEqualTo(303);
            Browser replay = browser(client);
            replay.cookies.put("dimstream_session", session);
            assertThat(replay.get("/").statusCode()).isEqualTo(303);
        });
    }

    /** The security headers every response must carry; static assets may be cached. */
    private static Map<String, String> expectedHeaders(boolean cacheable) {
        Map<String, String> h = new java.util.TreeMap<>();
        h.put("content-security-policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
        h.put("x-content-type-options", "nosniff");
        h.put("referrer-policy", "no-referrer");
        h.put("x-frame-options", "DENY");
        h.put("strict-transport-security", "max-age=31536000");
        if (!cacheable) {
            h.put("cache-control", "no-store");
        }
        return h;
    }

    private static Map<String, String> securityHeaders(Map<String, List<String>> headers) {
        Map<String, String> h = new java.util.TreeMap<>();
        headers.forEach((name, values) -> {
            String n = name.toLowerCase(java.util.Locale.ROOT);
            if (List.of("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options",
                    "strict-transport-security").contains(n) || n.equals("cache-control") && values.contains("no-store")) {
                h.put(n, String.join(", ", values));
            }
        });
        return h;
    }

    /** One request sent as raw bytes (what HttpClient refuses to send), the whole response read. */
    static RawResponse raw(String origin, String request) throws java.io.IOException {
        URI u = URI.create(origin);
        try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            String all = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            int end = all.indexOf("\r\n\r\n");
            String[] head = all.substring(0, end).split("\r\n");
            Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
            for (int i = 1; i < head.length; i++) {
                int colon = head[i].indexOf(':');
                headers.computeIfAbsent(head[i].substring(0, colon).trim(), k -> new java.util.ArrayList<>()).add(head[i].substring(colon + 1).trim());
            }
            return new RawResponse(Integer.parseInt(head[0].split(" ")[1]), headers, all.substring(end + 4));
        }
    }

    record RawResponse(int status, Map<String, List<String>> headers, String body) {
    }

    @Test
    void everyResponseCarriesTheSecurityHeaders() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            String bearer = "Bearer " + AdminFixture.VIEWER_TOKEN;
            Map<String, HttpResponse<String>> responses = new java.util.LinkedHashMap<>();
            responses.put("login page", b.get("/login"));
            responses.put("redirect to the login", b.get("/history/customer"));
            responses.put("API refusal 401", b.get("/api/replays"));
            responses.put("404 of no route, anonymous", b.get("/no-such-page"));
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            responses.put("page", b.get("/"));
            responses.put("CSV", b.get("/asof/customer/csv?at=2025-02-10T00:00:00Z"));
            responses.put("error page 400", b.get("/asof/customer?at=yesterday"));
            responses.put("error page 404 (unknown entity)", b.get("/history/nope"));
            responses.put("404 of no route", b.get("/no-such-page"));
            responses.put("403 (no CSRF token)", b.post("/integrity/customer/run", Map.of()));
            responses.put("API", b.get("/api/dashboard", "Authorization", bearer));
            responses.put("API 400", b.get("/api/asof/customer?at=%2B300000-01-01T00:00:00Z", "Authorization", bearer));
            responses.put("API 404", b.get("/api/nothing-here", "Authorization", bearer));
            for (var r : responses.entrySet()) {
                assertThat(securityHeaders(r.getValue().headers().map())).as(r.getKey()).isEqualTo(expectedHeaders(false));
                assertThat(r.getValue().headers().firstValue("Server")).as(r.getKey()).isEmpty();
                assertThat(r.getValue().body()).as(r.getKey()).doesNotContain("Exception").doesNotContain("at io.");
                if (r.getValue().headers().firstValue("Content-Type").orElse("").startsWith("text/html")) {
                    // no inline script or style anywhere (the data's own <script> is in the CSV, as data)
                    assertThat(r.getValue().body()).as(r.getKey()).doesNotContain("<script>").doesNotContain("style=");
                }
            }
            assertThat(responses.values().stream().map(HttpResponse::statusCode).toList())
                    .isEqualTo(List.of(200, 303, 401, 303, 200, 200, 400, 404, 404, 403, 200, 400, 404));

            Map<String, HttpResponse<String>> assets = new java.util.LinkedHashMap<>();
            assets.put("static", b.get("/static/admin.css"));
            assets.put("webjar", b.get("/webjars/htmx.org/2.0.4/dist/htmx.min.js"));
            for (var r : assets.entrySet()) {
                assertThat(r.getValue().statusCode()).as(r.getKey()).isEqualTo(200);
                assertThat(securityHeaders(r.getValue().headers().map())).as(r.getKey()).isEqualTo(expectedHeaders(true));
            }
            HttpResponse<String> missing = b.get("/static/missing.css");
            assertThat(List.of(missing.statusCode(), missing.body())).isEqualTo(List.of(404, "404 Not Found: Not Found"));
            assertThat(securityHeaders(missing.headers().map())).isEqualTo(expectedHeaders(true));

            // what Jetty refuses itself, before Javalin: a malformed URI, a 20 KB header
            RawResponse badUri = raw(client.getOrigin(), "GET /% HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            RawResponse bigHeader = raw(client.getOrigin(), "GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(20_000)
                    + "\r\nConnection: close\r\n\r\n");
            for (RawResponse r : List.of(badUri, bigHeader)) {
                assertThat(securityHeaders(r.headers())).as(r.status() + " " + r.body()).isEqualTo(expectedHeaders(false));
                assertThat(r.headers().keySet()).as(r.status() + " " + r.body()).doesNotContain("Server");
            }
            assertThat(List.of(badUri.status(), badUri.body(), bigHeader.status(), bigHeader.body()))
                    .isEqualTo(List.of(400, "400 Bad Request\n", 431, "431 Request Header Fields Too Large\n"));
        });
    }

    @Test
    void hostilePathsAndMethodsAnswerNoData() {
        JavalinTest.test(server().app(), (app, client) -> {
            String request = "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
            Map<String, Integer> statuses = new java.util.LinkedHashMap<>();
            for (String probe : List.of("GET /static/../api/replays", "GET //api/replays", "GET /static/%2e%2e/api/replays",
                    "PUT /api/replays", "DELETE /api/replays", "OPTIONS /api/replays")) {
                String[] mp = probe.split(" ");
                RawResponse r = raw(client.getOrigin(), request.formatted(mp[0], mp[1]));
                statuses.put(probe, r.status());
                assertThat(r.body()).as(probe).doesNotContain("\"jobs\"");
                assertThat(securityHeaders(r.headers())).as(probe).isEqualTo(expectedHeaders(false));
            }
            // a refusal, a redirect to the login or not found: never the jobs
            assertThat(statuses).as(statuses.toString()).allSatisfy((probe, status) -> assertThat(status).as(probe).isIn(303, 400, 401, 404));
        });
    }

    @Test
    void aValueHoldingAScriptTagRendersAsText() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            String history = b.get("/history/customer?k=C2").body();
            assertThat(history).contains("&lt;script&gt;alert(1)&lt;/script&gt;@x.io").doesNotContain("<script>alert(1)");
            String asOf = b.get("/asof/customer?at=2025-02-10T00:00:00Z").body();
            assertThat(asOf).contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;@x.io</td>").doesNotContain("<script>alert");
            String search = b.get("/history/customer?q=%3Cscript%3E").body();
            assertThat(search).contains("<p class=\"meta\" id=\"message\">No key starts with \"&lt;script&gt;\".</p>")
                    .contains("value=\"&lt;script>\"").doesNotContain("<script>");
        });
    }

    @Test
    void aHostileFilterIsAValueAndAHostileSortIsRefused() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            String hostile = Browser.enc("' OR 1=1 --");
            HttpResponse<String> filtered = b.get("/api/asof/customer?at=2025-02-10T00:00:00Z&prefix=" + hostile);
            assertThat(filtered.statusCode()).isEqualTo(200);
            assertThat(filtered.body()).contains("\"rows\":[]");
            HttpResponse<String> sort = b.get("/api/asof/customer?at=2025-02-10T00:00:00Z&sort=" + Browser.enc("customer_id; DROP TABLE ui_customer"));
            assertThat(sort.statusCode()).isEqualTo(400);
            assertThat(sort.body()).isEqualTo("{\"error\":\"sort: must be key_asc or key_desc, got \\\"customer_id; DROP TABLE ui_customer\\\"\"}");
            HttpResponse<String> status = b.get("/api/quarantine?status=" + Browser.enc("pending' OR '1'='1"));
            assertThat(status.statusCode()).isEqualTo(400);
            // the table is still there and whole
            assertThat(b.get("/api/asof/customer?at=2025-02-10T00:00:00Z").body()).contains("\"C1\"").contains("\"C2\"");
            assertThat(List.of(b.get("/api/history/customer?k=" + hostile).body()))
                    .containsExactly("{\"entity\":\"customer\",\"key_columns\":[\"customer_id\"],\"query\":\"\",\"keys\":[],"
                            + "\"more_keys\":false,\"history\":null,\"window\":null,\"a\":null,\"b\":null,\"compare\":null,\"quarantined\":[],"
                            + "\"dead_lettered\":[],\"message\":\"No version of key ' OR 1=1 --.\",\"corrections\":[]}");
        });
    }
}
