package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every state-changing route of the route table ({@link AdminServer#routes()}: replay, cancel,
 * quarantine apply and discard, DLQ re-drive, integrity run) is refused without a session, without
 * the CSRF token, and for the viewer role, by form and by token, and changes nothing; hostile
 * values render as text.
 */
class ActionsSecurityTest {

    private final ActionsFixture f = ActionsFixture.get();
    private final ReplayJobs jobs = new ReplayJobs(f.ds);

    /** The form a browser sends with an action, by the route's path; an action not listed sends no field but the token. */
    private Map<String, Map<String, String>> forms() {
        return Map.of(
                "/replay", Map.of("entity", "journal", "from", "earliest", "target", "live"),
                "/dlq/redrive", Map.of("id", Long.toString(f.dlq.get(1))),
                // the key with a quarantined event: an erasure let through would remove it from state()
                "/history/{entity}/erase", Map.of("k", "L1", "confirm", "erase"),
                "/api/erase/{entity}", Map.of("k", "L1", "confirm", "erase"));
    }

    /** The route's path with its parameters filled in: the job, the quarantined event, the ledger entity. */
    private String concrete(String path, long job) {
        return path.replace("{entity}", "ledger")
                .replace("{id}", path.contains("quarantine") ? Long.toString(f.pruned) : Long.toString(job));
    }

    private static Map<String, String> with(Map<String, String> form, String csrf) {
        Map<String, String> m = new java.util.HashMap<>(form);
        if (csrf != null) {
            m.put("_csrf", csrf);
        }
        return m;
    }

    /** What any of these actions would change: the jobs, the quarantine, the DLQ states, the audit log. */
    private List<Object> state() throws Exception {
        List<Object> s = new ArrayList<>();
        s.add(jobs.list(null, 10_000));
        s.add(new QuarantineActions(f.ds, new Scd2Writer(f.ds)).list("ledger", null, null, 100));
        s.add(new DlqRecords(f.ds).page("journal", null, 100).stream().map(r -> r.id() + " " + r.redriveState()).toList());
        s.add(new io.dimstream.db.jobs.AuditLog(f.ds).page(null, null, null, 10_000).size());
        return s;
    }

    @Test
    void everyActionIsRefusedWithoutSessionWithoutCsrfAndForAViewerAndChangesNothing() {
        AdminServer server = f.server();
        JavalinTest.test(server.app(), (app, client) -> {
            long job = jobs.submit("journal", "fin.journal", ReplaySource.earliest(), ReplayTarget.LIVE, "security-test");
            List<Object> before = state();

            Browser anonymous = new Browser(client.getOrigin());
            Browser admin = new Browser(client.getOrigin());
            admin.login("sam", ActionsFixture.PASSWORD);
            String adminToken = Browser.csrf(admin.get("/replay").body());
            Browser viewer = new Browser(client.getOrigin());
            viewer.login("vera", ActionsFixture.VIEWER_PASSWORD);
            String viewerToken = Browser.csrf(viewer.get("/replay").body());

            // every state-changing route of the real route table, pages and JSON twins
            List<AdminServer.Route> actions = server.routes().stream().filter(r -> r.access() == AdminServer.Access.ADMIN).toList();
            assertThat(actions).allSatisfy(r -> assertThat(r.method()).isEqualTo(io.javalin.http.HandlerType.POST));
            assertThat(actions.stream().filter(r -> !r.path().startsWith("/api/")).count()).isEqualTo(10);
            for (AdminServer.Route r : actions) {
                String path = concrete(r.path(), job);
                Map<String, String> form = forms().getOrDefault(r.path(), Map.of());
                if (path.startsWith("/api/")) {
                    HttpResponse<String> apiNone = anonymous.post(path, form);
                    assertThat(List.of(apiNone.statusCode(), apiNone.body())).as(path).isEqualTo(List.of(401,
                            "{\"error\":\"log in first (or send Authorization: Bearer <token> to /api/...)\"}"));
                    HttpResponse<String> apiViewer = anonymous.post(path, form, "Authorization", "Bearer " + ActionsFixture.VIEWER_TOKEN);
                    assertThat(List.of(apiViewer.statusCode(), apiViewer.body())).as(path)
                            .isEqualTo(List.of(403, "{\"error\":\"the viewer role may not change anything; an admin may\"}"));
                    continue;
                }
                HttpResponse<String> none = anonymous.post(path, with(form, "x"));
                assertThat(List.of(none.statusCode(), none.body())).as(path)
                        .isEqualTo(List.of(401, "401 Unauthorized: log in first (or send Authorization: Bearer <token> to /api/...)"));
                HttpResponse<String> noCsrf = admin.post(path, with(form, null));
                assertThat(List.of(noCsrf.statusCode(), noCsrf.body())).as(path)
                        .isEqualTo(List.of(403, "403 Forbidden: missing or wrong CSRF token: reload the page and try again"));
                HttpResponse<String> wrongCsrf = admin.post(path, with(form, viewerToken));
                assertThat(wrongCsrf.statusCode()).as(path).isEqualTo(403);
                HttpResponse<String> asViewer = viewer.post(path, with(form, viewerToken));
                assertThat(List.of(asViewer.statusCode(), asViewer.body())).as(path)
                        .isEqualTo(List.of(403, "403 Forbidden: the viewer role may not change anything; an admin may"));
            }
            assertThat(state()).isEqualTo(before);
            assertThat(adminToken).isNotEqualTo(viewerToken);

            // a viewer sees the pages without their action buttons
            assertThat(viewer.get("/replay").body()).contains("Starting or cancelling a replay needs the admin role.")
                    .doesNotContain("start-replay");
            assertThat(viewer.get("/replay/" + job).body()).doesNotContain("cancel-replay");
            assertThat(viewer.get("/quarantine?entity=ledger").body()).doesNotContain("Apply anyway").doesNotContain("/discard");
            assertThat(viewer.get("/dlq?entity=journal").body()).doesNotContain("/dlq/redrive");
            assertThat(admin.get("/replay/" + job).body()).contains("cancel-replay");
            jobs.requestCancel(job, "security-test");
        });
    }

    @Test
    void scriptInADlqRecordOrAQuarantinedKeyRendersAsText() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("vera", ActionsFixture.VIEWER_PASSWORD);
            String dlq = b.get("/dlq").body();
            assertThat(dlq).contains("{\"id\": \"&lt;script&gt;alert(3)&lt;/script&gt;\"")
                    .contains("value: not JSON near &lt;script&gt;alert(4)&lt;/script&gt;").doesNotContain("<script>alert");
            String q = b.get("/quarantine?entity=ledger&status=all").body();
            assertThat(q).contains("{\"id\": \"&lt;script&gt;alert(2)&lt;/script&gt;\"}").doesNotContain("<script>alert");
            String audit = b.get("/audit").body();
            assertThat(audit).doesNotContain("<script>alert");
            HttpResponse<String> hostile = b.get("/api/audit?actor=" + Browser.enc("' OR 1=1 --"));
            assertThat(hostile.body()).isEqualTo("{\"actor\":\"' OR 1=1 --\",\"action\":\"\",\"before\":null,\"next_before\":null,\"entries\":[]}");
            assertThat(b.get("/api/dlq?before=" + Browser.enc("1; DROP TABLE x")).body())
                    .isEqualTo("{\"error\":\"before: \\\"1; DROP TABLE x\\\" is not a record id\"}");
        });
    }
}
