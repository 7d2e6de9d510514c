package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.testtools.JavalinTest;
import io.javalin.testtools.TestConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a failed request answers (review M5, M8; hostile check 12): a 500 says nothing but an error
 * id, which the log holds with the whole exception; an instant out of range or malformed is a 400
 * naming the parameter; a query longer than {@code admin.statement-timeout} is cancelled and
 * answered 503 at once, not after the query would have finished.
 */
class ErrorsTest {

    private final AdminFixture f = AdminFixture.get();
    private static final String BEARER = "Bearer " + AdminFixture.VIEWER_TOKEN;

    @Test
    void anUnexpectedFailureAnswersAnErrorIdOnlyAndTheLogHasTheExceptionUnderIt() {
        // an entity whose table was never created: every query of it fails in PostgreSQL
        AdminServer server = new AdminServer(f.configWith("""
                  - name: ghost
                    topic: t.ghost
                    table: ui_ghost_never_created
                    key: [id]
                    tracked: [v]
                    columns: {id: text, v: text}
                """, ""), f.ds, AdminSettings.onPort(0));
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        String[] bodies = new String[2];
        int[] statuses = new int[2];
        try {
            // captureLogs off: JavalinTest would take System.err for itself
            JavalinTest.test(server.app(), new TestConfig(true, false), (app, client) -> {
                Browser b = new Browser(client.getOrigin());
                HttpResponse<String> api = b.get("/api/history/ghost?k=x", "Authorization", BEARER);
                statuses[0] = api.statusCode();
                bodies[0] = api.body();
                b.login("alice", AdminFixture.ADMIN_PASSWORD);
                HttpResponse<String> page = b.get("/history/ghost?k=x");
                statuses[1] = page.statusCode();
                bodies[1] = page.body();
            });
        } finally {
            System.setErr(err);
        }
        Matcher api = Pattern.compile("\\{\"error\":\"the request failed \\(error id ([0-9a-f]{12})\\); the server's log has the "
                + "details under this id\",\"error_id\":\"([0-9a-f]{12})\"}").matcher(bodies[0]);
        assertThat(api.matches()).as(bodies[0]).isTrue();
        assertThat(api.group(2)).isEqualTo(api.group(1));
        Matcher page = Pattern.compile("<p class=\"error\" id=\"error-message\">the request failed \\(error id ([0-9a-f]{12})\\); "
                + "the server's log has the details under this id</p>").matcher(bodies[1]);
        assertThat(page.find()).as(bodies[1]).isTrue();
        assertThat(List.of(statuses[0], statuses[1])).isEqualTo(List.of(500, 500));
        for (String body : bodies) {
            assertThat(body).doesNotContain("ui_ghost").doesNotContain("PSQLException").doesNotContain("relation")
                    .doesNotContain("Hikari");
        }
        String logged = log.toString(StandardCharsets.UTF_8);
        assertThat(logged).contains("GET /api/history/ghost failed (error id " + api.group(1) + ")")
                .contains("GET /history/ghost failed (error id " + page.group(1) + ")");
        assertThat(logged).contains("org.postgresql.util.PSQLException: ERROR: relation \"ui_ghost_never_created\" does not exist");
    }

    @Test
    void anInstantOutOfRangeOrMalformedIsA400NamingTheParameter() {
        JavalinTest.test(new AdminServer(f.config, f.ds, AdminSettings.onPort(0)).app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            List<List<Object>> answers = new java.util.ArrayList<>();
            for (String query : List.of("/api/asof/customer?at=%2B300000-01-01T00:00:00Z", "/api/asof/customer?at=0000-06-01T00:00:00Z",
                    "/api/asof/customer?at=%2B10000-01-01T00:00&tz=UTC", "/api/asof/customer/csv?at=-999999999-01-01T00:00:00Z",
                    "/api/asof/customer?at=yesterday", "/api/diff/customer?from=1970-01-01T00:00:00Z&to=%2B300000-01-01T00:00:00Z",
                    "/api/asof/customer?at=9999-12-31T23:59:59Z")) {
                HttpResponse<String> r = b.get(query, "Authorization", BEARER);
                answers.add(List.of(r.statusCode(), r.statusCode() == 200 ? "ok" : r.body()));
            }
            String range = "is outside the supported range, 0001-01-01 to 9999-12-31 (UTC)";
            assertThat(answers).isEqualTo(List.of(
                    List.of(400, "{\"error\":\"at: \\\"+300000-01-01T00:00:00Z\\\" " + range + "\"}"),
                    List.of(400, "{\"error\":\"at: \\\"0000-06-01T00:00:00Z\\\" " + range + "\"}"),
                    List.of(400, "{\"error\":\"at: \\\"+10000-01-01T00:00\\\" " + range + "\"}"),
                    List.of(400, "{\"error\":\"at: \\\"-999999999-01-01T00:00:00Z\\\" " + range + "\"}"),
                    List.of(400, "{\"error\":\"at: \\\"yesterday\\\" is not a date-time (2025-08-10T12:00 in the chosen time zone, "
                            + "or 2025-08-10T12:00:00Z)\"}"),
                    List.of(400, "{\"error\":\"to: \\\"+300000-01-01T00:00:00Z\\\" " + range + "\"}"),
                    List.of(200, "ok")));

            b.login("victor", AdminFixture.VIEWER_PASSWORD);
            HttpResponse<String> page = b.get("/asof/customer?at=%2B300000-01-01T00:00:00Z");
            assertThat(page.statusCode()).isEqualTo(400);
            assertThat(page.body()).contains("<h1>Error 400</h1>\n<p class=\"error\" id=\"error-message\">at: \"+300000-01-01T00:00:00Z\" "
                    + range + "</p>");
        });
    }

    @Test
    void aQueryLongerThanTheStatementTimeoutIsCancelledAndAnswered503() throws Exception {
        AdminServer server = new AdminServer(f.configWith("  statement-timeout: PT0.3S\n"), f.ds, AdminSettings.onPort(0));
        // a writer holding the table: every read of it waits for the lock, which counts toward the timeout
        try (Connection lock = f.ds.getConnection()) {
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                s.execute("LOCK TABLE ui_broken IN ACCESS EXCLUSIVE MODE");
            }
            JavalinTest.test(server.app(), (app, client) -> {
                Browser b = new Browser(client.getOrigin());
                long start = System.nanoTime();
                HttpResponse<String> api = b.get("/api/history/broken?k=B1", "Authorization", BEARER);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(List.of(api.statusCode(), api.body())).isEqualTo(List.of(503, "{\"error\":\"the query ran longer than "
                        + "admin.statement-timeout (300 ms) and was cancelled: narrow it (a key prefix, a shorter range) or ask an "
                        + "operator (docs/querying.md, Big tables)\"}"));
                assertThat(took).isLessThan(Duration.ofSeconds(5));

                b.login("victor", AdminFixture.VIEWER_PASSWORD);
                HttpResponse<String> page = b.get("/asof/broken/csv?at=2025-01-05T00:00:00Z");
                assertThat(page.statusCode()).isEqualTo(503);
                assertThat(page.body()).contains("<p class=\"error\" id=\"error-message\">the query ran longer than "
                        + "admin.statement-timeout (300 ms) and was cancelled");
            });
            lock.rollback();
        }
    }
}
