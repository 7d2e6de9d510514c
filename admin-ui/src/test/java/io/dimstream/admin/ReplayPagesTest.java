package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.RetiredTables;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replay page, the job page with its htmx-polled progress, cancel, and the JSON twin an
 * orchestrator uses. No worker runs here: jobs are advanced through ReplayJobs' worker side, as the
 * service's ReplayWorker does (the e2e test runs the real worker).
 */
class ReplayPagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ActionsFixture f = ActionsFixture.get();
    private final ReplayJobs jobs = new ReplayJobs(f.ds);

    private static JsonNode parse(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }

    private static String t(Instant i) {
        return i == null ? "null" : "'" + i + "'";
    }

    private static String jobJson(ReplayJob j, String from, String outcome) {
        return "{'id':" + j.id() + ",'entity':'" + j.entity() + "','topic':'" + j.topic() + "','from':'" + from + "','target':'"
                + j.target().sql() + "','state':'" + j.state() + "','finished':" + j.state().finished() + ",'cancel_requested':"
                + j.cancelRequested() + ",'events_total':" + j.eventsTotal() + ",'events_read':" + j.eventsRead()
                + ",'events_rejected':" + j.eventsRejected() + ",'rows_changed':" + j.rowsChanged() + ",'percent':" + j.percent()
                + ",'requested_by':'" + j.requestedBy() + "','requested_at':" + t(j.requestedAt()) + ",'started_at':" + t(j.startedAt())
                + ",'finished_at':" + t(j.finishedAt()) + ",'outcome':" + (outcome == null ? "null" : "'" + outcome + "'") + "}";
    }

    @Test
    void theJobPageShowsAProgressBarThatHtmxRefreshesUntilTheJobHasFinished() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            long id = jobs.submit("ledger", "fin.ledger", ReplaySource.at(Instant.parse("2025-01-01T00:00:00Z")), ReplayTarget.SHADOW, "rita");
            assertThat(jobs.claim("test-worker", List.of("ledger"), Duration.ofMinutes(5)).orElseThrow().id()).isEqualTo(id);
            try (Connection c = f.ds.getConnection()) {
                c.setAutoCommit(false);
                ReplayJobs.start(c, id, List.of(new PartitionProgress(0, 0, 10, 0), new PartitionProgress(1, 5, 15, 5)));
                ReplayJobs.advance(c, id, Map.of(0, 4L, 1, 8L), 1, 3);
                c.commit();
            }
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("rita", ActionsFixture.PASSWORD).statusCode()).isEqualTo(303);

            ReplayJob running = jobs.find(id).orElseThrow();
            assertThat(JSON.readTree(b.get("/api/replays/" + id).body())).isEqualTo(parse("{'job':"
                    + jobJson(running, "2025-01-01T00:00:00Z", null) + ",'partitions':[{'partition':0,'start_offset':0,'end_offset':10,"
                    + "'position':4},{'partition':1,'start_offset':5,'end_offset':15,'position':8}]}"));
            assertThat(List.of(running.eventsTotal(), running.eventsRead(), running.eventsRejected(), running.rowsChanged(),
                    (long) running.percent())).isEqualTo(List.of(20L, 7L, 1L, 3L, 35L));

            String page = b.get("/replay/" + id).body();
            assertThat(page).contains("<h1>Replay job #" + id + ": ledger</h1>")
                    .contains("<section id=\"job-progress\" data-state=\"RUNNING\" hx-get=\"/replay/" + id
                            + "/progress\" hx-trigger=\"every 1s\" hx-headers='{\"X-Dimstream-Poll\": \"1\"}' hx-swap=\"outerHTML\">")
                    .contains("<p id=\"job-state\" class=\"state-RUNNING\">RUNNING</p>")
                    .contains("<progress id=\"job-bar\" aria-label=\"events read\" max=\"20\" value=\"7\">35 %</progress>")
                    .contains("<p id=\"job-counts\"><span id=\"events-read\">7</span> of <span id=\"events-total\">20</span> events read "
                            + "(35 %), <span id=\"events-rejected\">1</span> rejected, <span id=\"rows-changed\">3</span> rows changed.</p>")
                    .contains("<tr><td class=\"num\">1</td><td class=\"num\">5</td><td class=\"num\">8</td><td class=\"num\">15</td></tr>")
                    .contains("<button type=\"submit\" id=\"cancel-replay\">Cancel</button>")
                    .doesNotContain("<script>");

            // the worker reads the rest and finishes
            try (Connection c = f.ds.getConnection()) {
                c.setAutoCommit(false);
                ReplayJobs.advance(c, id, Map.of(0, 10L, 1, 15L), 0, 2);
                ReplayJobs.finish(c, id, JobState.SUCCEEDED, null, "swapped in; the replaced table is kept as ui_ledger_replaced_" + id);
                c.commit();
            }
            ReplayJob done = jobs.find(id).orElseThrow();
            String fragment = b.get("/replay/" + id + "/progress", "HX-Request", "true").body();
            assertThat(fragment.strip()).startsWith("<section id=\"job-progress\" data-state=\"SUCCEEDED\">\n<p id=\"job-state\" class=\"state-SUCCEEDED\">")
                    .doesNotContain("hx-trigger").doesNotContain("cancel-replay")
                    .contains("<progress id=\"job-bar\" aria-label=\"events read\" max=\"20\" value=\"20\">100 %</progress>")
                    .contains("<span id=\"rows-changed\">5</span>")
                    .contains("<p id=\"job-outcome\" class=\"\">swapped in; the replaced table is kept as ui_ledger_replaced_" + id + "</p>")
                    .doesNotContain("<html");
            assertThat(JSON.readTree(b.get("/api/replays?entity=ledger").body())).isEqualTo(parse("{'jobs':["
                    + jobJson(done, "2025-01-01T00:00:00Z", "swapped in; the replaced table is kept as ui_ledger_replaced_" + id) + "]}"));
            assertThat(b.get("/replay").body()).contains("<tr data-job=\"" + id + "\"><td><a href=\"/replay/" + id + "\">#" + id
                    + "</a></td><td>ledger</td><td>fin.ledger</td><td>2025-01-01T00:00:00Z</td><td>shadow</td>\n"
                    + "  <td class=\"state-SUCCEEDED\">SUCCEEDED</td>\n  <td class=\"num\">20 / 20</td><td class=\"num\">5</td>\n"
                    + "  <td>rita</td><td>" + io.dimstream.admin.web.ValueText.seconds(done.requestedAt()) + "</td><td>"
                    + io.dimstream.admin.web.ValueText.seconds(done.finishedAt()) + "</td><td>swapped in; the replaced table is kept as ui_ledger_replaced_"
                    + id + "</td></tr>");
        });
    }

    @Test
    void theFormStartsAJobOnTheEntitysTopicFromAnInstantInAZoneAndTheJobPageCancelsIt() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("sam", ActionsFixture.PASSWORD);
            String form = b.get("/replay?entity=journal").body();
            assertThat(form).contains("<option value=\"journal\" selected>journal</option>")
                    // the topic is shown, not asked for: nothing named "topic" is sent
                    .contains("<input type=\"text\" id=\"topic\" value=\"fin.journal\" readonly placeholder=\"the entity's own topic\">")
                    .doesNotContain("name=\"topic\"").contains("A replay reads the entity's own topic")
                    .contains("<input type=\"radio\" name=\"from\" value=\"earliest\" id=\"from-earliest\" checked>")
                    .contains("<input type=\"radio\" name=\"target\" value=\"live\" id=\"target-live\" checked>");
            String token = Browser.csrf(form);
            int before = jobs.list("journal", 1000).size();

            // a refused form comes back with the reason and its values, and queues nothing
            HttpResponse<String> bad = b.post("/replay", Map.of("_csrf", token, "entity", "journal", "from", "offsets",
                    "offsets", "0:12,0:3", "target", "live"));
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("<p class=\"error\" id=\"replay-error\">offsets: partition 0 is listed twice in \"0:12,0:3\"</p>")
                    .contains("value=\"0:12,0:3\"").contains("<input type=\"radio\" name=\"from\" value=\"offsets\" id=\"from-offsets\" checked>");
            assertThat(jobs.list("journal", 1000)).hasSize(before);

            // another topic (the entity's dead letters, another entity's, an internal one): refused naming the field
            for (String other : List.of("fin.journal.dlq", "fin.ledger", "dimstream.journal.changes")) {
                HttpResponse<String> refused = b.post("/replay", Map.of("_csrf", token, "entity", "journal", "topic", other,
                        "from", "earliest", "target", "live"));
                assertThat(refused.statusCode()).as(other).isEqualTo(400);
                assertThat(refused.body()).as(other).contains("<p class=\"error\" id=\"replay-error\">topic: a replay of journal reads "
                        + "its own topic fin.journal, not \"" + other + "\" (dead letters go back through re-drive on the DLQ page)</p>");
            }
            HttpResponse<String> api = b.postJson("/api/replays", "{\"entity\": \"journal\", \"topic\": \"fin.journal.dlq\"}",
                    "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(List.of(api.statusCode(), api.body())).isEqualTo(List.of(400, "{\"error\":\"topic: a replay of journal reads "
                    + "its own topic fin.journal, not \\\"fin.journal.dlq\\\" (dead letters go back through re-drive on the DLQ page)\"}"));
            assertThat(jobs.list("journal", 1000)).hasSize(before);

            HttpResponse<String> ok = b.post("/replay", Map.of("_csrf", token, "entity", "journal", "topic", "", "from", "instant",
                    "at", "2025-03-01T01:00", "tz", "Europe/Berlin", "target", "shadow"));
            assertThat(ok.statusCode()).isEqualTo(303);
            long id = Long.parseLong(ok.headers().firstValue("Location").orElseThrow().substring("/replay/".length()));
            ReplayJob queued = jobs.find(id).orElseThrow();
            assertThat(queued).isEqualTo(new ReplayJob(id, "journal", "fin.journal", ReplaySource.at(Instant.parse("2025-03-01T00:00:00Z")),
                    ReplayTarget.SHADOW, JobState.QUEUED, false, null, 0, 0, 0, "sam", queued.requestedAt(), null, null, null, null,
                    null, null));
            String page = b.get("/replay/" + id).body();
            assertThat(page).contains("<progress id=\"job-bar\" aria-label=\"events read\"></progress>")
                    .contains("From 2025-03-01T00:00:00Z of fin.journal into the shadow table; started by sam.");

            assertThat(b.post("/replay/" + id + "/cancel", Map.of("_csrf", Browser.csrf(page))).statusCode()).isEqualTo(303);
            ReplayJob cancelled = jobs.find(id).orElseThrow();
            assertThat(List.of(cancelled.state(), cancelled.cancelRequested())).isEqualTo(List.of(JobState.CANCELLED, true));
            assertThat(b.get("/replay/" + id).body()).contains("<section id=\"job-progress\" data-state=\"CANCELLED\">")
                    .doesNotContain("cancel-replay").doesNotContain("hx-trigger=\"every 1s\"");
            HttpResponse<String> again = b.post("/replay/" + id + "/cancel", Map.of("_csrf", Browser.csrf(page)));
            assertThat(again.statusCode()).isEqualTo(409);
            assertThat(again.body()).contains("replay job " + id + " has already finished (CANCELLED)");

            // both actions audited with the user
            List<AuditLog.Entry> audit = new AuditLog(f.ds).page("sam", null, null, 10);
            assertThat(audit.stream().map(e -> List.of(e.actor(), e.action(), e.target(), e.detail())).toList()).isEqualTo(List.of(
                    List.of("sam", "replay.cancel", "replay_job:" + id, "{}"),
                    List.of("sam", "replay.submit", "replay_job:" + id,
                            "{\"from\": \"2025-03-01T00:00:00Z\", \"topic\": \"fin.journal\", \"entity\": \"journal\", \"target\": \"shadow\"}")));
        });
    }

    @Test
    void anOrchestratorStartsAJobWithABearerTokenPollsItAndCancelsIt() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser api = new Browser(client.getOrigin());
            String auth = "Bearer " + ActionsFixture.TOKEN;
            HttpResponse<String> created = api.postJson("/api/replays", "{\"entity\": \"journal\", \"from\": \"offsets\", "
                    + "\"offsets\": \"2:0, 0:5\", \"target\": \"live\"}", "Authorization", auth);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            long id = JSON.readTree(created.body()).at("/job/id").asLong();
            assertThat(created.headers().firstValue("Location")).hasValue("/api/replays/" + id);
            ReplayJob queued = jobs.find(id).orElseThrow();
            assertThat(queued.source()).isEqualTo(ReplaySource.offsets(Map.of(0, 5L, 2, 0L)));
            assertThat(JSON.readTree(created.body())).isEqualTo(parse("{'job':" + jobJson(queued, "0:5,2:0", null) + ",'partitions':[]}"));
            assertThat(queued.requestedBy()).isEqualTo("airflow");
            assertThat(JSON.readTree(api.get("/api/replays/" + id, "Authorization", auth).body()))
                    .isEqualTo(parse("{'job':" + jobJson(queued, "0:5,2:0", null) + ",'partitions':[]}"));
            assertThat(JSON.readTree(api.get("/api/replays?entity=journal", "Authorization", auth).body()).at("/jobs/0"))
                    .isEqualTo(parse(jobJson(queued, "0:5,2:0", null)));

            HttpResponse<String> cancelled = api.post("/api/replays/" + id + "/cancel", Map.of(), "Authorization", auth);
            assertThat(cancelled.statusCode()).isEqualTo(200);
            ReplayJob after = jobs.find(id).orElseThrow();
            assertThat(after.state()).isEqualTo(JobState.CANCELLED);
            assertThat(JSON.readTree(cancelled.body())).isEqualTo(parse("{'job':" + jobJson(after, "0:5,2:0", null) + ",'partitions':[]}"));

            // refusals name the field; nothing is queued
            int before = jobs.list(null, 10_000).size();
            assertThat(api.postJson("/api/replays", "{\"entity\": \"nope\"}", "Authorization", auth).body())
                    .isEqualTo("{\"error\":\"entity: no entity named \\\"nope\\\" (configured: ledger, journal)\"}");
            HttpResponse<String> badFrom = api.postJson("/api/replays", "{\"entity\": \"journal\", \"from\": \"yesterday\"}", "Authorization", auth);
            assertThat(badFrom.statusCode()).isEqualTo(400);
            assertThat(badFrom.body()).isEqualTo("{\"error\":\"from: must be earliest, instant or offsets, got \\\"yesterday\\\"\"}");
            assertThat(api.postJson("/api/replays", "{\"entity\": \"journal\", \"from\": \"instant\", \"at\": \"soon\"}", "Authorization", auth)
                    .body()).startsWith("{\"error\":\"at: \\\"soon\\\" is not a date-time");
            assertThat(api.postJson("/api/replays", "{\"entity\": \"journal\", \"target\": \"elsewhere\"}", "Authorization", auth).body())
                    .isEqualTo("{\"error\":\"target: \\\"elsewhere\\\" is not live or shadow\"}");
            assertThat(api.postJson("/api/replays", "[1,", "Authorization", auth).statusCode()).isEqualTo(400);
            assertThat(api.get("/api/replays/999999", "Authorization", auth).body()).isEqualTo("{\"error\":\"no replay job 999999\"}");
            assertThat(jobs.list(null, 10_000)).hasSize(before);
        });
    }

    @Test
    void aRepairOfSomeKeysIsQueuedFromTheFormAndTheApiShownOnItsPageAndAuditedAndRefusedForAShadow() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("quinn", ActionsFixture.PASSWORD).statusCode()).isEqualTo(303);
            String token = Browser.csrf(b.get("/replay").body());
            HttpResponse<String> ok = b.post("/replay", Map.of("_csrf", token, "entity", "journal", "from", "earliest", "target", "live",
                    "keys", " J2, J1 ,J2"));
            assertThat(ok.statusCode()).isEqualTo(303);
            long id = Long.parseLong(ok.headers().firstValue("Location").orElseThrow().replace("/replay/", ""));
            assertThat(jobs.keys(id)).contains(new ReplayKeys(List.of(List.of("J2"), List.of("J1")), null));
            assertThat(b.get("/replay/" + id).body()).contains("into the live table, <span id=\"job-keys\">keys J2, J1 only "
                    + "(a repair: their rows rebuilt from the range)</span>; started by quinn.");
            ReplayJob queued = jobs.find(id).orElseThrow();
            assertThat(JSON.readTree(b.get("/api/replays/" + id).body())).isEqualTo(parse("{'job':" + jobJson(queued, "earliest", null)
                    + ",'partitions':[],'keys':'keys J2, J1'}"));
            try (Connection c = f.ds.getConnection(); var p = c.prepareStatement(
                    "SELECT actor, action, detail->>'keys', detail->>'target' FROM dimstream.admin_audit WHERE target = ?")) {
                p.setString(1, "replay_job:" + id);
                try (var rs = p.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                            .isEqualTo(List.of("quinn", "replay.submit", "keys J2, J1", "live"));
                }
            }

            Browser api = new Browser(client.getOrigin());
            String auth = "Bearer " + ActionsFixture.TOKEN;
            HttpResponse<String> prefix = api.postJson("/api/replays", "{\"entity\": \"journal\", \"key_prefix\": \"J\"}", "Authorization", auth);
            assertThat(prefix.statusCode()).as(prefix.body()).isEqualTo(201);
            long pid = JSON.readTree(prefix.body()).at("/job/id").asLong();
            assertThat(JSON.readTree(prefix.body()).at("/keys").asText()).isEqualTo("keys starting with \"J\"");
            assertThat(jobs.keys(pid)).contains(new ReplayKeys(null, "J"));

            int before = jobs.list(null, 10_000).size();
            assertThat(api.postJson("/api/replays", "{\"entity\": \"journal\", \"keys\": \"J1\", \"target\": \"shadow\"}", "Authorization", auth)
                    .body()).isEqualTo("{\"error\":\"keys: a repair of some keys writes the live table; a shadow of some keys would "
                    + "replace the whole table\"}");
            assertThat(api.postJson("/api/replays", "{\"entity\": \"journal\", \"keys\": \"J1\", \"key_prefix\": \"J\"}", "Authorization", auth)
                    .body()).isEqualTo("{\"error\":\"keys: give the keys or a key prefix, not both\"}");
            assertThat(api.postJson("/api/replays", "{\"entity\": \"ledger\", \"keys\": \"{\\\"nope\\\": 1}\"}", "Authorization", auth)
                    .body()).isEqualTo("{\"error\":\"keys: the key {\\\"nope\\\":1} must name exactly the key columns [id]\"}");
            HttpResponse<String> form = b.post("/replay", Map.of("_csrf", token, "entity", "journal", "keys", "J1,,J2"));
            assertThat(form.statusCode()).isEqualTo(400);
            assertThat(form.body()).contains("<p class=\"error\" id=\"replay-error\">keys: an empty key in \"J1,,J2\"</p>");
            assertThat(jobs.list(null, 10_000)).hasSize(before);
        });
    }

    @Test
    void theTablesReplaysLeftBehindAreListedAndAnAdminDropsOneAudited() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            long id = jobs.submit("journal", "fin.journal", ReplaySource.earliest(), ReplayTarget.SHADOW, "rita");
            jobs.claim("test-worker", List.of("journal"), Duration.ofMinutes(5)).orElseThrow();
            String kept = f.journal.table() + "_replaced_" + id;
            try (Connection c = f.ds.getConnection()) {
                c.setAutoCommit(false);
                ReplayJobs.finish(c, id, JobState.SUCCEEDED, null, "swapped in");
                io.dimstream.db.schema.EntityTables.createUnregistered(c, f.journal.withTable(kept));
                c.commit();
            }
            RetiredTables.Retired r = RetiredTables.list(f.ds, List.of(f.journal)).stream().filter(x -> x.job() == id).findFirst().orElseThrow();
            assertThat(List.of(r.entity(), r.kind(), r.table(), r.memoryTable())).isEqualTo(List.of("journal", "replaced", kept, kept + "_events"));
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("rita", ActionsFixture.PASSWORD).statusCode()).isEqualTo(303);

            JsonNode api = JSON.readTree(b.get("/api/replay-tables").body());
            JsonNode row = null;
            for (JsonNode n : api.get("tables")) {
                if (n.get("job").asLong() == id) {
                    row = n;
                }
            }
            assertThat(row).isEqualTo(parse("{'job':" + id + ",'entity':'journal','kind':'replaced','table':'" + kept + "','memory_table':'"
                    + kept + "_events','bytes':" + r.bytes() + ",'since':'" + r.since() + "'}"));
            String page = b.get("/replay-tables").body();
            assertThat(page).contains("<tr data-job=\"" + id + "\"><td><a href=\"/replay/" + id + "\">#" + id + "</a></td><td>journal</td>"
                    + "<td>replaced</td><td>" + kept + "</td><td>" + kept + "_events</td><td class=\"num\">" + r.bytes() + "</td>")
                    .contains("<form method=\"post\" action=\"/replay-tables/" + id + "/drop\">");

            HttpResponse<String> dropped = b.post("/replay-tables/" + id + "/drop", Map.of("_csrf", Browser.csrf(page)));
            assertThat(dropped.statusCode()).isEqualTo(303);
            assertThat(RetiredTables.list(f.ds, List.of(f.journal)).stream().filter(x -> x.job() == id).toList()).isEmpty();
            try (Connection c = f.ds.getConnection(); var p = c.prepareStatement(
                    "SELECT actor, detail->>'table', to_regclass(?) IS NULL FROM dimstream.admin_audit WHERE target = ? AND action = ?")) {
                p.setString(1, kept);
                p.setString(2, "replay_job:" + id);
                p.setString(3, RetiredTables.DROP_ACTION);
                try (var rs = p.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(List.of(rs.getString(1), rs.getString(2), rs.getBoolean(3))).isEqualTo(List.of("rita", kept, true));
                }
            }
            HttpResponse<String> again = b.post("/replay-tables/" + id + "/drop", Map.of("_csrf", Browser.csrf(page)));
            assertThat(again.statusCode()).isEqualTo(404);
        });
    }
}
