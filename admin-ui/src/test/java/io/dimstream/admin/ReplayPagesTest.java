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
import io.dimstream.db.jobs.ShadowPreviews;
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
                + ",'finished_at':" + t(j.finishedAt()) + ",'outcome':" + (outcome == null ? "null" : "'" + outcome + "'")
                + ",'no_swap':" + j.noSwap() + ",'ready':" + (j.state() == JobState.READY) + "}";
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
                    null, null, false));
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

    private static io.dimstream.db.event.Event jev(long seq, int day, String id, String v) {
        return io.dimstream.db.event.Event.upsert(Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofDays(day)), Map.of("id", id, "v", v),
                seq, io.dimstream.db.event.Source.kafka("fin.journal", 0, Math.abs(seq)));
    }

    /** A READY no-swap job of journal whose shadow holds PV1 (v=a, then a2 from day 2) and PV3 (c), not PV2. */
    private long readyJournalJob(String user) throws Exception {
        long id = jobs.submit("journal", "fin.journal", ReplaySource.earliest(), ReplayTarget.SHADOW, true, user);
        io.dimstream.db.entity.EntitySpec shadow = io.dimstream.db.jobs.ShadowTables.shadowSpec(f.journal, id);
        io.dimstream.db.jobs.ShadowTables.create(f.ds, shadow);
        new io.dimstream.db.write.Scd2Writer(f.ds).apply(shadow, List.of(jev(-3, 1, "PV1", "a"), jev(-2, 2, "PV1", "a2"),
                jev(-1, 1, "PV3", "c")));
        io.dimstream.db.sql.Transactions.run(f.ds, c -> ReplayJobs.ready(c, id, "filled"));
        return id;
    }

    private List<String> journalRows() throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = f.ds.getConnection(); var p = c.prepareStatement("SELECT to_jsonb(t)::text FROM ui_journal t ORDER BY id, valid_from");
             var rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** {@code value} as the API serves it (the app's mapper), read back like a response. */
    private static JsonNode asServed(Object value) throws Exception {
        return JSON.readTree(io.dimstream.admin.web.Json.mapper().writeValueAsString(value));
    }

    private List<String> audit(long id) throws Exception {
        return new AuditLog(f.ds).page(null, "replay.", null, 10_000).stream().filter(e -> e.target().equals("replay_job:" + id))
                .map(e -> e.actor() + " " + e.action()).sorted().toList();
    }

    @Test
    void aSwapThatCannotBeMadeNowAnswers409SayingWhyAndTheJobStaysReady() throws Exception {
        long id = readyJournalJob("dora");
        // a table of a user's references the journal's versions: the swap, which replaces its rows, cannot go on
        try (Connection c = f.ds.getConnection(); var s = c.createStatement()) {
            s.execute("CREATE TABLE ui_journal_refs (id text, valid_from timestamptz, CONSTRAINT ui_journal_refs_fk "
                    + "FOREIGN KEY (id, valid_from) REFERENCES ui_journal (id, valid_from))");
        }
        try {
            JavalinTest.test(f.server().app(), (app, client) -> {
                Browser b = new Browser(client.getOrigin());
                b.login("dora", ActionsFixture.PASSWORD);
                List<String> liveBefore = journalRows();
                String why = "replay job " + id + " was not swapped in (nothing changed, it is still READY): the swap replaces the rows "
                        + "of ui_journal, which foreign keys reference: ui_journal_refs (ui_journal_refs_fk); drop them (ALTER TABLE ... "
                        + "DROP CONSTRAINT) before the swap and add them again after it";

                HttpResponse<String> page = b.post("/replay/" + id + "/swap", Map.of("_csrf", Browser.csrf(b.get("/replay/" + id).body())));
                assertThat(List.of(page.statusCode(), page.body().contains(why)))
                        .isEqualTo(List.of(409, true));
                HttpResponse<String> api = new Browser(client.getOrigin()).post("/api/replays/" + id + "/swap", Map.of(), "Authorization",
                        "Bearer " + ActionsFixture.TOKEN);
                assertThat(List.of(api.statusCode(), JSON.readTree(api.body()))).isEqualTo(List.of(409, JSON.createObjectNode().put("error", why)));
                assertThat(List.of(jobs.find(id).orElseThrow().state(), journalRows(), audit(id)))
                        .isEqualTo(List.of(JobState.READY, liveBefore, List.of("dora replay.submit")));
            });
        } finally {
            try (Connection c = f.ds.getConnection(); var s = c.createStatement()) {
                s.execute("DROP TABLE ui_journal_refs");
            }
            new ShadowPreviews(f.ds).discard(id, f.journal, "dora");
        }
    }

    @Test
    void aReadyJobsPreviewListsTheDifferingKeysWithBothHistoriesAndItsDiscardAndSwapNeedAnAdminWithCsrfAndAreAudited() throws Exception {
        // the live journal: PV1 (v=a from day 1) and PV2; the shadows lack PV2, which the swap merges from the live memory
        new io.dimstream.db.write.Scd2Writer(f.ds).apply(f.journal, List.of(jev(1, 1, "PV1", "a"), jev(2, 1, "PV2", "b")));
        long id = readyJournalJob("dora");
        String shadowTable = "ui_journal_shadow_" + id;
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("dora", ActionsFixture.PASSWORD);
            List<String> liveBefore = journalRows();

            String jobPage = b.get("/replay/" + id).body();
            assertThat(jobPage).contains("<section id=\"job-progress\" data-state=\"READY\">").doesNotContain("hx-trigger")
                    .doesNotContain("cancel-replay")
                    .contains("<a href=\"/replay/" + id + "/preview\" id=\"preview-link\">See what its swap would change</a>")
                    .contains("<button type=\"submit\" id=\"swap-replay\">Swap the shadow in</button>")
                    .contains("<button type=\"submit\" id=\"discard-replay\">Discard the shadow</button>");

            String preview = b.get("/replay/" + id + "/preview").body();
            assertThat(preview).contains("<h1>Replay job #" + id + ": what its swap would change</h1>")
                    .contains("<td class=\"num\" id=\"keys-added\">1</td><td class=\"num\" id=\"keys-removed\">0</td><td class=\"num\" "
                            + "id=\"keys-changed\">1</td><td class=\"num\" id=\"versions-added\">3</td><td class=\"num\" "
                            + "id=\"versions-removed\">1</td>")
                    .contains("<span id=\"merged-events\">1</span>")
                    .contains("<tr data-kind=\"changed\"><td>PV1</td><td>changed</td>")
                    .contains("<div class=\"version-added\">+ [2025-01-02T00:00:00Z, 2025-01-03T00:00:00Z) v=a</div><div class=\"version-added\">"
                            + "+ [2025-01-03T00:00:00Z, open) v=a2</div>")
                    .contains("<div class=\"version-removed\">− [2025-01-02T00:00:00Z, open) v=a</div>")
                    .contains("<a href=\"/history/journal?k=PV1\">live</a> <a href=\"/history/journal?k=PV1&amp;job=" + id + "\">shadow</a>")
                    .contains("<tr data-kind=\"added\"><td>PV3</td><td>added</td>")
                    .contains("<div class=\"version-added\">+ [2025-01-02T00:00:00Z, open) v=c</div>")
                    .contains(" <a href=\"/history/journal?k=PV3&amp;job=" + id + "\">shadow</a>")
                    .doesNotContain("PV2").doesNotContain("<a href=\"/history/journal?k=PV3\">");

            // the JSON twin: the whole differing versions, as read from each table
            io.dimstream.db.read.HistoryQueries h = new io.dimstream.db.read.HistoryQueries(f.ds);
            io.dimstream.db.entity.EntitySpec shadow = f.journal.withTable(shadowTable);
            io.dimstream.db.read.ShadowDiff expected = new io.dimstream.db.read.ShadowDiff(1, 0, 1, 3, 1, List.of(
                    new io.dimstream.db.read.ShadowDiff.KeyDiff(Map.of("id", "PV1"), io.dimstream.db.read.ShadowDiff.Kind.CHANGED,
                            h.history(shadow, List.of("PV1")), h.history(f.journal, List.of("PV1"))),
                    new io.dimstream.db.read.ShadowDiff.KeyDiff(Map.of("id", "PV3"), io.dimstream.db.read.ShadowDiff.Kind.ADDED,
                            h.history(shadow, List.of("PV3")), List.of())), false);
            JsonNode previewJson = JSON.readTree(b.get("/api/replays/" + id + "/preview?limit=1").body());
            JsonNode truncated = asServed(new io.dimstream.db.read.ShadowDiff(1, 0, 1, 3, 1, expected.keys().subList(0, 1), true));
            assertThat(List.of(previewJson.get("live_table").asText(), previewJson.get("shadow_table").asText(),
                    previewJson.get("merged_events").asInt(), previewJson.get("job").get("state").asText(), previewJson.get("diff"))).isEqualTo(List.of("ui_journal", shadowTable, 1, "READY", truncated));
            assertThat(JSON.readTree(b.get("/api/replays/" + id + "/preview").body()).get("diff"))
                    .isEqualTo(asServed(expected));

            // the key's history in the shadow, read-only; only a READY job's shadow of this entity
            JsonNode inShadow = JSON.readTree(b.get("/api/history/journal?k=PV1&job=" + id).body());
            JsonNode inLive = JSON.readTree(b.get("/api/history/journal?k=PV1").body());
            assertThat(List.of(inShadow.get("job").asLong(), inShadow.get("shadow_table").asText(), inShadow.get("history").get("versions").size(),
                    inLive.has("job"), inLive.get("history").get("versions").size())).isEqualTo(List.of(id, shadowTable, 2, false, 1));
            assertThat(b.get("/history/journal?k=PV1&job=" + id).body())
                    .contains("<p class=\"notice\" id=\"shadow-notice\">The shadow table <code>" + shadowTable + "</code> of <a href=\"/replay/"
                            + id + "/preview\">replay job #" + id + "</a>, not the live table")
                    .contains("&amp;job=" + id);
            assertThat(b.get("/history/journal?q=PV&job=" + id).body()).contains("<a href=\"/history/journal?k=PV1&amp;job=" + id + "\">PV1</a>")
                    .contains("<input type=\"hidden\" name=\"job\" value=\"" + id + "\">");
            HttpResponse<String> otherEntity = b.get("/api/history/ledger?k=L1&job=" + id);
            assertThat(List.of(otherEntity.statusCode(), otherEntity.body())).isEqualTo(List.of(404, "{\"error\":\"job: replay job " + id
                    + " rebuilds entity journal, not ledger\"}"));
            assertThat(b.get("/api/history/journal?k=PV1&job=x").statusCode()).isEqualTo(400);
            // the shadow keeps no transaction time: no "as known at" control there, and known= is refused
            assertThat(b.get("/history/journal?k=PV1&job=" + id).body()).doesNotContain("known-form").doesNotContain("corrections-section");
            HttpResponse<String> knownInShadow = b.get("/api/history/journal?k=PV1&known=2025-01-01&job=" + id);
            assertThat(List.of(knownInShadow.statusCode(), knownInShadow.body())).isEqualTo(List.of(400, "{\"error\":\"known: the shadow table "
                    + "of replay job #" + id + " keeps no transaction time of its own; leave out known or job\"}"));

            // a viewer sees the preview without the buttons and cannot swap; an admin without the CSRF token cannot either
            Browser viewer = new Browser(client.getOrigin());
            viewer.login("vera", ActionsFixture.VIEWER_PASSWORD);
            String viewerPreview = viewer.get("/replay/" + id + "/preview").body();
            assertThat(viewerPreview).contains("id=\"keys-added\">1</td>").doesNotContain("swap-replay").doesNotContain("discard-replay");
            assertThat(viewer.post("/replay/" + id + "/swap", Map.of("_csrf", Browser.csrf(viewerPreview))).statusCode()).isEqualTo(403);
            assertThat(b.post("/replay/" + id + "/discard", Map.of()).statusCode()).isEqualTo(403);
            assertThat(new Browser(client.getOrigin()).post("/api/replays/" + id + "/swap", Map.of(), "Authorization", "Bearer "
                    + ActionsFixture.VIEWER_TOKEN).statusCode())
                    .isEqualTo(403);
            assertThat(List.of(jobs.find(id).orElseThrow().state(), journalRows(), audit(id)))
                    .isEqualTo(List.of(JobState.READY, liveBefore, List.of("dora replay.submit")));

            // discard: the live table untouched, every row; the shadow gone; audited; a second decision refused (409)
            HttpResponse<String> discarded = b.post("/replay/" + id + "/discard", Map.of("_csrf", Browser.csrf(preview)));
            assertThat(discarded.statusCode()).isEqualTo(303);
            ReplayJob gone = jobs.find(id).orElseThrow();
            assertThat(List.of(gone.state(), gone.detail(), journalRows(), audit(id))).isEqualTo(List.of(JobState.CANCELLED, "discarded by dora "
                    + "before its swap; the shadow table " + shadowTable + " was dropped, the live table is untouched", liveBefore,
                    List.of("dora replay.discard", "dora replay.submit")));
            Browser api = new Browser(client.getOrigin());
            HttpResponse<String> again = api.post("/api/replays/" + id + "/swap", Map.of(), "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(List.of(again.statusCode(), again.body())).isEqualTo(List.of(409, "{\"error\":\"replay job " + id + " is CANCELLED, not "
                    + "READY: only a shadow replay submitted with --no-swap that has reached its end offsets waits for a swap or discard\"}"));
            assertThat(b.get("/api/history/journal?k=PV1&job=" + id).statusCode()).isEqualTo(404);

            // swap over the API: the live table becomes the shadow with the live memory's PV2 merged
            long second = readyJournalJob("dora");
            HttpResponse<String> swapped = api.post("/api/replays/" + second + "/swap", Map.of(), "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(swapped.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(swapped.body()).get("job").get("state").asText()).isEqualTo("SUCCEEDED");
            assertThat(h.allVersions(f.journal).stream().map(v -> v.key().get("id") + " " + v.attributes().get("v") + " " + v.validFrom()
                    + " " + v.validTo()).toList()).isEqualTo(List.of("PV1 a 2025-01-02T00:00:00Z 2025-01-03T00:00:00Z",
                    "PV1 a2 2025-01-03T00:00:00Z null", "PV2 b 2025-01-02T00:00:00Z null", "PV3 c 2025-01-02T00:00:00Z null"));
            assertThat(audit(second)).isEqualTo(List.of("airflow replay.swap", "dora replay.submit"));

            // submitting one: the form's checkbox and the API's no_swap, only with a shadow target
            String form = b.get("/replay?entity=journal").body();
            assertThat(form).contains("<input type=\"checkbox\" name=\"no_swap\" value=\"on\" id=\"no-swap\">");
            HttpResponse<String> fromForm = b.post("/replay", Map.of("_csrf", Browser.csrf(form), "entity", "journal", "from", "earliest",
                    "target", "shadow", "no_swap", "on"));
            long third = Long.parseLong(fromForm.headers().firstValue("Location").orElseThrow().substring("/replay/".length()));
            HttpResponse<String> refused = b.post("/replay", Map.of("_csrf", Browser.csrf(form), "entity", "journal", "from", "earliest",
                    "target", "live", "no_swap", "on"));
            assertThat(List.of(refused.statusCode(), refused.body().contains("<p class=\"error\" id=\"replay-error\">no_swap: only a "
                    + "shadow replay stops before its swap (target is live)</p>"))).isEqualTo(List.of(400, true));
            HttpResponse<String> fromApi = api.postJson("/api/replays", "{\"entity\": \"journal\", \"target\": \"shadow\", \"no_swap\": true}",
                    "Authorization", "Bearer " + ActionsFixture.TOKEN);
            JsonNode created = JSON.readTree(fromApi.body()).get("job");
            assertThat(List.of(fromApi.statusCode(), created.get("no_swap").asBoolean(), created.get("ready").asBoolean()))
                    .isEqualTo(List.of(201, true, false));
            assertThat(List.of(jobs.find(third).orElseThrow().noSwap(), jobs.find(created.get("id").asLong()).orElseThrow().noSwap()))
                    .isEqualTo(List.of(true, true));
            jobs.requestCancel(third, "dora");
            jobs.requestCancel(created.get("id").asLong(), "dora");
        });
    }
}
