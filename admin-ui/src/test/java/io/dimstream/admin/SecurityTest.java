package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.testtools.JavalinTest;
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

    @Test
    void everyPageNeedsALoginAndTheApiAnswers401() {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = browser(client);
            HttpResponse<String> page = b.get("/history/customer?k=C1");
            assertThat(page.statusCode()).isEqualTo(303);
            assertThat(page.headers().firstValue("Location")).hasValue("/login?next=%2Fhistory%2Fcustomer%3Fk%3DC1");
            HttpResponse<String> api = b.get("/api/history/customer?k=C1");
            assertThat(api.statusCode()).isEqualTo(401);
            assertThat(api.body()).isEqualTo("{\"error\":\"log in first (or send Authorization: Bearer <token> to /api/...)\"}");
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
                    assertThat(c).matches("dimstream_session=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict"));
            assertThat(b.get("/").statusCode()).isEqualTo(200);
        });
    }

    @Test
    void afterFiveFailedLoginsTheNameIsLockedEvenWithTheRightPasswordAndOthersAreNot() {
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

    @Test
    void everyResponseCarriesTheSecurityHeaders() {
        JavalinTest.test(server().app(), (app, client) -> {
            HttpResponse<String> r = browser(client).get("/login");
            assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue("default-src 'self'; script-src 'self'; "
                    + "style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
                    + "frame-ancestors 'none'");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
            assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(r.body()).doesNotContain("<script>").doesNotContain("style=");
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
                            + "\"more_keys\":false,\"history\":null,\"message\":\"No version of key ' OR 1=1 --.\"}");
        });
    }
}
