package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.status.IntegrityRuns;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Quarantine actions, the DLQ page and its re-drive, the audit page, the dashboard's DLQ figure, against {@link ActionsFixture}. */
class ActionsPagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ActionsFixture f = ActionsFixture.get();

    private static JsonNode parse(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }

    private static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String t(Instant i) {
        return i == null ? "null" : "'" + i + "'";
    }

    @Test
    void applyAnywayPlacesTheEventOrShowsWhyItIsRefusedAndDiscardRemovesItFromThePendingList() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            QuarantineActions actions = new QuarantineActions(f.ds, new io.dimstream.db.write.Scd2Writer(f.ds));
            String refusal = "quarantined event " + f.pruned + " ({\"id\": \"L2\"} at 2025-01-04T00:00:00Z) is at or before its key's "
                    + "prune point: history before it is no longer remembered, so it cannot be placed exactly. Discard it, or rebuild "
                    + "the table with a shadow replay and apply it then.";

            // refused over the API: 409 with the reason, nothing changed, nothing audited
            Browser api = new Browser(client.getOrigin());
            HttpResponse<String> refusedApi = api.post("/api/quarantine/" + f.pruned + "/apply", Map.of(),
                    "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(refusedApi.statusCode()).isEqualTo(409);
            assertThat(JSON.readTree(refusedApi.body())).isEqualTo(JSON.createObjectNode().put("id", (int) f.pruned).put("entity", "ledger")
                    .put("outcome", "refused").putNull("event_class").putNull("rows_inserted").putNull("rows_updated")
                    .putNull("rows_deleted").put("message", refusal));

            Browser b = new Browser(client.getOrigin());
            b.login("quinn", ActionsFixture.PASSWORD);
            String list = b.get("/quarantine?entity=ledger").body();
            assertThat(list).contains("<td>{\"id\": \"&lt;script&gt;alert(2)&lt;/script&gt;\"}</td>").doesNotContain("<script>alert")
                    .contains("<button type=\"submit\" id=\"apply-" + f.applicable + "\" aria-label=\"Apply anyway: quarantined event "
                            + f.applicable + "\">Apply anyway</button>")
                    .contains("<button type=\"submit\" id=\"discard-" + f.discardable + "\" aria-label=\"Discard: quarantined event "
                            + f.discardable + "\">Discard</button>");
            String token = Browser.csrf(list);

            HttpResponse<String> refused = b.post("/quarantine/" + f.pruned + "/apply", Map.of("_csrf", token));
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.body()).contains("<p id=\"action-outcome\" class=\"error\" data-outcome=\"refused\">Not applied: "
                    + html(refusal) + "</p>");
            assertThat(actions.find(f.pruned).orElseThrow().status()).isEqualTo("pending");

            HttpResponse<String> applied = b.post("/quarantine/" + f.applicable + "/apply", Map.of("_csrf", token));
            assertThat(applied.statusCode()).isEqualTo(200);
            assertThat(applied.body()).contains("<p id=\"action-outcome\" class=\"notice\" data-outcome=\"applied\">Event " + f.applicable
                    + " ({\"id\": \"L1\"} at 2025-02-10T00:00:00Z) applied by quinn as a late event: 1 rows inserted, 1 updated, 0 deleted.</p>");
            // the table is what the reference model makes of every event but the two still quarantined
            assertThat(EntityTableReader.rows(f.ds, f.ledger)).isEqualTo(new ReferenceModel(f.ledger).rows(List.of(
                    ActionsFixture.ev(1, 0, "L2", 10), ActionsFixture.ev(2, 5, "L2", 20), ActionsFixture.ev(3, 100, "L2", 30),
                    ActionsFixture.ev(4, 0, "L1", 1), ActionsFixture.ev(5, 100, "L1", 2), ActionsFixture.ev(6, 0, ActionsFixture.XSS_KEY, 7),
                    ActionsFixture.ev(7, 100, ActionsFixture.XSS_KEY, 8), ActionsFixture.ev(8, 40, "L1", 3))));

            HttpResponse<String> discarded = b.post("/quarantine/" + f.discardable + "/discard", Map.of("_csrf", token));
            assertThat(discarded.statusCode()).isEqualTo(200);
            assertThat(discarded.body()).contains("<p id=\"action-outcome\" class=\"notice\" data-outcome=\"discarded\">Event " + f.discardable
                    + " ({\"id\": \"&lt;script&gt;alert(2)&lt;/script&gt;\"} at 2025-01-11T00:00:00Z) discarded by quinn; it will never be applied.</p>");
            QuarantineActions.QuarantinedEvent d = actions.find(f.discardable).orElseThrow();
            HttpResponse<String> again = api.post("/api/quarantine/" + f.discardable + "/discard", Map.of(),
                    "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(again.statusCode()).isEqualTo(409);
            assertThat(again.body()).isEqualTo("{\"error\":\"quarantine: event " + f.discardable + " is already discarded (by quinn at "
                    + d.resolvedAt() + ")\"}");

            // the pending list now holds only the refused event; the others show who resolved them
            JsonNode pending = JSON.readTree(b.get("/api/quarantine?entity=ledger").body()).at("/events");
            assertThat(pending.size()).isEqualTo(1);
            assertThat(pending.at("/0/id").asLong()).isEqualTo(f.pruned);
            QuarantineActions.QuarantinedEvent a = actions.find(f.applicable).orElseThrow();
            assertThat(List.of(a.status(), a.resolvedBy(), d.status(), d.resolvedBy())).isEqualTo(List.of("applied", "quinn", "discarded", "quinn"));

            // audited with the user, the refusal not at all
            List<AuditLog.Entry> audit = new AuditLog(f.ds).page("quinn", null, null, 10);
            com.fasterxml.jackson.databind.node.ObjectNode discardDetail = JSON.createObjectNode()
                    .put("key", "{\"id\": \"" + ActionsFixture.XSS_KEY + "\"}").put("entity", "ledger").put("reason", d.reason())
                    .put("event_time", "2025-01-11T00:00:00Z");
            com.fasterxml.jackson.databind.node.ObjectNode applyDetail = JSON.createObjectNode()
                    .put("key", "{\"id\": \"L1\"}").put("entity", "ledger").put("duplicate", false)
                    .put("event_time", "2025-02-10T00:00:00Z").put("rows_deleted", 0).put("rows_updated", 1).put("rows_inserted", 1);
            JsonNode expectedAudit = parse("{'actor':'quinn','action':'','before':null,'next_before':null,'entries':[{'id':"
                    + audit.get(0).id() + ",'at':'" + audit.get(0).at() + "','actor':'quinn','action':'quarantine.discard','target':"
                    + "'quarantine:" + f.discardable + "','detail':null},{'id':" + audit.get(1).id() + ",'at':'" + audit.get(1).at()
                    + "','actor':'quinn','action':'quarantine.apply','target':'quarantine:" + f.applicable + "','detail':null}]}");
            ((com.fasterxml.jackson.databind.node.ObjectNode) expectedAudit.at("/entries/0")).set("detail", discardDetail);
            ((com.fasterxml.jackson.databind.node.ObjectNode) expectedAudit.at("/entries/1")).set("detail", applyDetail);
            assertThat(JSON.readTree(b.get("/api/audit?actor=quinn").body())).isEqualTo(expectedAudit);
            assertThat(new AuditLog(f.ds).page("airflow", "quarantine.", null, 10)).isEmpty();
        });
    }

    private static String bytes(String encoding, String text, int length) {
        return "{'encoding':'" + encoding + "','text':" + (text == null ? "null" : "'" + text + "'") + ",'length':" + length
                + ",'truncated':false}";
    }

    @Test
    void aRecordNearKafkasLimitIsAPreviewOnThePageAndAWholeDownload() throws Exception {
        // 1,040,000 bytes (hostile check 13): the 2,048-byte preview ends inside a two-byte character, which is left out
        String value = "x".repeat(2047) + "é" + "y".repeat(1_040_000 - 2049);
        DlqRecords dlq = new DlqRecords(f.ds);
        dlq.mirror(List.of(new DlqRecords.Incoming("ledger", "fin.ledger", 0, 9L, "fin.ledger.dlq", 0, 900, "big".getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8), List.of(), "value: not JSON", Instant.parse("2025-06-02T00:00:00Z"))));
        long id = dlq.page("ledger", null, 100).stream().filter(r -> r.dlqOffset() == 900).findFirst().orElseThrow().id();
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("vera", ActionsFixture.VIEWER_PASSWORD);
            String page = b.get("/dlq?entity=ledger").body();
            // folded behind its first 240 characters, the whole preview one click away
            assertThat(page).contains("<td class=\"bytes value\" data-encoding=\"utf-8\"><details><summary>" + "x".repeat(160)
                    + "… <span class=\"meta\">(all 2047 characters)</span></summary>" + "x".repeat(2047) + "</details><span class=\"meta\" id=\"value-cut-"
                    + id + "\">… first 2048 of 1040000 bytes: <a href=\"/dlq/" + id + "/value\">download the whole value</a></span></td>");
            assertThat(page.length()).isLessThan(20_000);

            HttpResponse<String> whole = b.get("/dlq/" + id + "/value");
            assertThat(List.of(whole.statusCode(), whole.headers().firstValue("Content-Type").orElse(""),
                    whole.headers().firstValue("Content-Disposition").orElse(""), whole.body().equals(value)))
                    .isEqualTo(List.of(200, "application/octet-stream", "attachment; filename=\"dlq-" + id + "-value.bin\"", true));
            assertThat(b.get("/dlq/" + id + "/key").body()).isEqualTo("big");
            HttpResponse<String> api = b.get("/api/dlq/" + id + "/value", "Authorization", "Bearer " + ActionsFixture.VIEWER_TOKEN);
            assertThat(List.of(api.statusCode(), api.body().length())).isEqualTo(List.of(200, value.length()));
            JsonNode preview = JSON.readTree(b.get("/api/dlq?entity=ledger", "Authorization", "Bearer " + ActionsFixture.VIEWER_TOKEN).body())
                    .at("/records/0/value");
            assertThat(preview).isEqualTo(JSON.createObjectNode().put("encoding", "utf-8").put("text", "x".repeat(2047))
                    .put("length", 1_040_000).put("truncated", true));

            assertThat(List.of(b.get("/dlq/" + id + "/headers").statusCode(), b.get("/dlq/nope/value").statusCode(),
                    b.get("/dlq/999999999/value").statusCode())).isEqualTo(List.of(404, 400, 404));
        });
    }

    @Test
    void dlqPageShowsRecordsSafelyAndReDriveIsRequestedOnceAndAudited() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            DlqRecords dlq = new DlqRecords(f.ds);
            List<DlqRecords.DlqRecord> rows = dlq.page("journal", null, 10);
            long r1 = f.dlq.get(0);
            long r2 = f.dlq.get(1);
            long r3 = f.dlq.get(2);
            Browser b = new Browser(client.getOrigin());
            b.login("dora", ActionsFixture.PASSWORD);
            JsonNode api = JSON.readTree(b.get("/api/dlq?entity=journal").body());
            JsonNode expected = parse("{'entity':'journal','before':null,'next_before':null,'records':["
                    + "{'id':" + r3 + ",'entity':'journal','source_topic':null,'source_partition':null,'source_offset':null,"
                    + "'dlq_topic':'fin.journal.dlq','dlq_partition':1,'dlq_offset':0,'key':" + bytes("utf-8", "J3", 2) + ",'value':"
                    + bytes("utf-8", "{}", 2) + ",'headers':[],'error':'source unknown','record_timestamp':'2025-06-01T12:00:02Z',"
                    + "'received_at':" + t(rows.get(0).receivedAt()) + ",'redrive_state':'none','redrive_requested_by':null,"
                    + "'redrive_requested_at':null,'redriven_at':null,'redrive_error':null,'headers_truncated':false,'error_truncated':false},"
                    + "{'id':" + r2 + ",'entity':'journal','source_topic':'fin.journal','source_partition':1,'source_offset':7,"
                    + "'dlq_topic':'fin.journal.dlq','dlq_partition':0,'dlq_offset':1,'key':" + bytes("null", null, 0) + ",'value':"
                    + bytes("hex", "00ff10", 3) + ",'headers':[{'name':'bin','value':" + bytes("hex", "fe", 1) + "},{'name':'empty','value':"
                    + bytes("null", null, 0) + "}],'error':'value: not UTF-8','record_timestamp':'2025-06-01T12:00:01Z',"
                    + "'received_at':" + t(rows.get(1).receivedAt()) + ",'redrive_state':'none','redrive_requested_by':null,"
                    + "'redrive_requested_at':null,'redriven_at':null,'redrive_error':null,'headers_truncated':false,'error_truncated':false},"
                    + "{'id':" + r1 + ",'entity':'journal','source_topic':'fin.journal','source_partition':0,'source_offset':41,"
                    + "'dlq_topic':'fin.journal.dlq','dlq_partition':0,'dlq_offset':0,'key':" + bytes("utf-8", "J1", 2) + ",'value':"
                    + "{'encoding':'utf-8','text':'VALUE','length':" + ActionsFixture.XSS_VALUE.length() + ",'truncated':false},"
                    + "'headers':[{'name':'dimstream.error','value':" + bytes("utf-8", "bad json", 8) + "}],'error':'ERROR',"
                    + "'record_timestamp':'2025-06-01T12:00:00Z','received_at':" + t(rows.get(2).receivedAt()) + ",'redrive_state':'none',"
                    + "'redrive_requested_by':null,'redrive_requested_at':null,'redriven_at':null,'redrive_error':null,'headers_truncated':false,'error_truncated':false}],"
                    + "'rejects':[],'gaps':[]}");
            ((com.fasterxml.jackson.databind.node.ObjectNode) expected.at("/records/2/value")).put("text", ActionsFixture.XSS_VALUE);
            ((com.fasterxml.jackson.databind.node.ObjectNode) expected.at("/records/2")).put("error", ActionsFixture.XSS_ERROR);
            assertThat(api).isEqualTo(expected);

            String page = b.get("/dlq?entity=journal").body();
            assertThat(page).contains("<td class=\"reason\">" + html(ActionsFixture.XSS_ERROR) + "</td>")
                    .contains("<td class=\"bytes value\" data-encoding=\"utf-8\">" + html(ActionsFixture.XSS_VALUE) + "</td>")
                    .contains("<td>fin.journal p1 @7</td>")
                    .contains("<td class=\"bytes\" data-encoding=\"null\">NULL</td>\n  <td class=\"bytes value\" data-encoding=\"hex\">00ff10</td>\n"
                            + "  <td class=\"bytes\">bin=fe<br>empty=NULL<br></td>")
                    .contains("<td><span class=\"null\">unknown</span></td>")
                    .contains("id=\"redrive-" + r1 + "\"").contains("id=\"redrive-" + r2 + "\"").doesNotContain("id=\"redrive-" + r3 + "\"")
                    .doesNotContain("<script>alert");

            HttpResponse<String> asked = b.post("/dlq/redrive", Map.of("_csrf", Browser.csrf(page), "entity", "journal", "id", Long.toString(r1)));
            assertThat(asked.statusCode()).isEqualTo(200);
            assertThat(asked.body()).contains("<p id=\"redrive-outcome\" class=\"notice\">Re-drive requested for 1 record(s) [" + r1
                    + "]. The running service produces them back to their source topic.</p>").doesNotContain("id=\"redrive-" + r1 + "\"");
            DlqRecords.DlqRecord one = dlq.page("journal", null, 10).stream().filter(r -> r.id() == r1).findFirst().orElseThrow();
            assertThat(List.of(one.redriveState(), one.redriveRequestedBy())).isEqualTo(List.of("requested", "dora"));
            // asked again (and one without a source topic): both skipped
            HttpResponse<String> again = b.postJson("/api/dlq/redrive", "{\"ids\": [" + r1 + ", " + r3 + "]}",
                    "Authorization", "Bearer " + ActionsFixture.TOKEN);
            assertThat(again.body()).isEqualTo("{\"requested\":[],\"skipped\":[" + r1 + "," + r3 + "]}");
            assertThat(b.postJson("/api/dlq/redrive", "{\"ids\": \"all\"}", "Authorization", "Bearer " + ActionsFixture.TOKEN).body())
                    .isEqualTo("{\"error\":\"ids: expected {\\\"ids\\\": [record ids]}\"}");

            List<AuditLog.Entry> audit = new AuditLog(f.ds).page("dora", null, null, 10);
            assertThat(audit.stream().map(e -> List.of(e.actor(), e.action(), e.target(), e.detail())).toList())
                    .isEqualTo(List.of(List.of("dora", "dlq.redrive", "dlq_records:[" + r1 + "]", "{\"ids\": [" + r1 + "]}")));
            assertThat(b.get("/audit?actor=dora").body()).contains("<tr><td>" + audit.get(0).id() + "</td><td>"
                    + io.dimstream.admin.web.ValueText.seconds(audit.get(0).at()) + "</td><td>dora</td><td>dlq.redrive</td><td>dlq_records:["
                    + r1 + "]</td><td class=\"bytes\">{\"ids\":[" + r1 + "]}</td></tr>");

            // the dashboard's DLQ figure counts the mirror (records not re-driven yet), sink rejects apart
            JsonNode dash = JSON.readTree(b.get("/api/dashboard").body());
            assertThat(List.of(dash.at("/entities/0/entity").asText(), dash.at("/entities/0/dlq_records").asLong(),
                    dash.at("/entities/1/entity").asText(), dash.at("/entities/1/dlq_records").asLong(),
                    dash.at("/entities/1/sink_rejects").asLong())).isEqualTo(List.of("ledger", 0L, "journal", 3L, 0L));
            assertThat(b.get("/").body()).contains("<td class=\"num\" data-figure=\"dlq\"><a href=\"/dlq?entity=journal\">3</a></td>");
        });
    }

    @Test
    void sinkRejectsAndGapsAreListedUnderTheDeadLettersAndCountedOnTheDashboard() throws Exception {
        String big = "v".repeat(3000);
        long[] ids = new long[3];
        try (java.sql.Connection c = f.ds.getConnection()) {
            io.dimstream.db.sink.SinkRejects.insert(c, "svc-sink", List.of(
                    new io.dimstream.db.sink.SinkReject(new io.dimstream.db.sink.PartitionRef("dimstream.ledger.changes", 1), 17, "ledger",
                            "PostgreSQL refused the event: ERROR: new row violates check constraint \"no_<b>\"", "23514",
                            "k".getBytes(), "{\"x\":1}".getBytes()),
                    new io.dimstream.db.sink.SinkReject(new io.dimstream.db.sink.PartitionRef("dimstream.ledger.changes", 0), 4, "ledger",
                            "malformed change record: not JSON", null, null, big.getBytes())));
            io.dimstream.db.sink.PartitionRef p2 = new io.dimstream.db.sink.PartitionRef("dimstream.ledger.changes", 2);
            io.dimstream.db.sink.SinkOffsets.advance(c, "svc-sink", p2, java.util.OptionalLong.empty(), 0);
            assertThat(io.dimstream.db.sink.SinkGaps.skip(c, "svc-sink", "ledger", p2, 0, 40)).isTrue();
        }
        List<io.dimstream.db.sink.SinkRejects.Row> rows = io.dimstream.db.sink.SinkRejects.recent(f.ds, "ledger", 10, 2048);
        List<io.dimstream.db.sink.SinkGaps.Gap> gaps = io.dimstream.db.sink.SinkGaps.recent(f.ds, "ledger", 10);
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("dora", ActionsFixture.PASSWORD);

            JsonNode api = JSON.readTree(b.get("/api/dlq?entity=ledger").body());
            java.util.Map<String, Object> valueCut = new java.util.LinkedHashMap<>();
            valueCut.put("encoding", "utf-8");
            valueCut.put("text", "v".repeat(2048));
            valueCut.put("length", 3000);
            valueCut.put("truncated", true);
            java.util.Map<String, Object> valueWhole = new java.util.LinkedHashMap<>();
            valueWhole.put("encoding", "utf-8");
            valueWhole.put("text", "{\"x\":1}");
            valueWhole.put("length", 7);
            valueWhole.put("truncated", false);
            java.util.Map<String, Object> newest = new java.util.LinkedHashMap<>();
            newest.put("id", rows.get(0).id());
            newest.put("consumer_group", "svc-sink");
            newest.put("entity", "ledger");
            newest.put("topic", "dimstream.ledger.changes");
            newest.put("partition", 0);
            newest.put("offset", 4);
            newest.put("reason", "malformed change record: not JSON");
            newest.put("sql_state", null);
            newest.put("rejected_at", rows.get(0).rejectedAt().toString());
            newest.put("value", valueCut);
            java.util.Map<String, Object> refused = new java.util.LinkedHashMap<>(newest);
            refused.put("id", rows.get(1).id());
            refused.put("partition", 1);
            refused.put("offset", 17);
            refused.put("reason", "PostgreSQL refused the event: ERROR: new row violates check constraint \"no_<b>\"");
            refused.put("sql_state", "23514");
            refused.put("rejected_at", rows.get(1).rejectedAt().toString());
            refused.put("value", valueWhole);
            assertThat(api.get("rejects")).isEqualTo(JSON.readTree(JSON.writeValueAsString(List.of(newest, refused))));
            assertThat(api.get("gaps")).isEqualTo(parse("[{'id':" + gaps.get(0).id() + ",'consumer_group':'svc-sink','entity':'ledger',"
                    + "'topic':'dimstream.ledger.changes','partition':2,'from_offset':0,'to_offset':40,'detected_at':'"
                    + gaps.get(0).detectedAt() + "'}]"));

            String page = b.get("/dlq?entity=ledger").body();
            assertThat(page).contains("<tr data-id=\"" + rows.get(1).id() + "\"><td>" + rows.get(1).id() + "</td><td>ledger</td><td class=\"reason\">"
                            + html("PostgreSQL refused the event: ERROR: new row violates check constraint \"no_<b>\"")
                            + "</td><td>23514</td>\n  <td>dimstream.ledger.changes p1 @17</td><td>svc-sink</td>")
                    .contains("<td>dimstream.ledger.changes p0 @4</td><td>svc-sink</td>\n  <td class=\"bytes value\" data-encoding=\"utf-8\">"
                            + "<details><summary>" + "v".repeat(160) + "… <span class=\"meta\">(all 2048 characters)</span></summary>"
                            + "v".repeat(2048) + "</details><span class=\"meta\">… first 2048 of 3000 bytes</span></td>")
                    .contains("<td>dimstream.ledger.changes p2</td><td>[0, 40)</td><td>svc-sink</td>")
                    .doesNotContain("no_<b>");
            assertThat(b.get("/").body())
                    .contains("<td class=\"num\" data-figure=\"sink-rejects\"><a href=\"/dlq?entity=ledger#rejects\">2</a></td>")
                    .contains("<td class=\"num error\" data-figure=\"sink-gaps\"><a href=\"/dlq?entity=ledger#gaps\">1</a></td>");
        });
    }

    @Test
    void anIntegrityRunFromTheAdminIsAudited() {
        JavalinTest.test(f.server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("rita", ActionsFixture.PASSWORD);
            assertThat(b.post("/integrity/journal/run", Map.of("_csrf", Browser.csrf(b.get("/integrity/journal").body()))).statusCode())
                    .isEqualTo(303);
            IntegrityRuns.Run run = new IntegrityRuns(f.ds).latest("journal").orElseThrow();
            List<AuditLog.Entry> audit = new AuditLog(f.ds).page("rita", "integrity.", null, 10);
            assertThat(audit.stream().map(e -> List.of(e.actor(), e.action(), e.target(), e.detail())).toList())
                    .isEqualTo(List.of(List.of("rita", "integrity.run", "entity:journal",
                            "{\"ok\": true, \"run\": " + run.id() + ", \"counts\": {}, \"rows_checked\": 0}")));
            assertThat(JSON.readTree(b.get("/api/audit?actor=rita&action=integrity.").body()).at("/entries/0/detail"))
                    .isEqualTo(parse("{'ok':true,'run':" + run.id() + ",'counts':{},'rows_checked':0}"));
        });
    }
}
