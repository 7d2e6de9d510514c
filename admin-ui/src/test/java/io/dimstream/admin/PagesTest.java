package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.KnownHistory;
import io.dimstream.db.read.VersionRow;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Each page and its JSON twin against the known data of {@link AdminFixture}. */
class PagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final AdminFixture f = AdminFixture.get();
    private final Instant now = Instant.now();

    private AdminServer server() {
        return new AdminServer(f.config, f.ds, new AdminSettings(OptionalInt.of(0), null, Clock.fixed(now, ZoneOffset.UTC)));
    }

    private interface Case {
        void run(Browser b) throws Exception;
    }

    private void asAdmin(Case c) {
        JavalinTest.test(server().app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("alice", AdminFixture.ADMIN_PASSWORD).statusCode()).isEqualTo(303);
            c.run(b);
        });
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static JsonNode parse(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }

    @Test
    void historyShowsEveryVersionWithChangedCellsMarkedAndATimeline() {
        asAdmin(b -> {
            String html = b.get("/history/customer?k=C1").body();
            assertThat(html).contains("<h2 id=\"key-title\">customer_id = C1 · 4 versions</h2>");
            // v2 changed city, v4 changed email (v3, the delete, carries v2's values)
            assertThat(html).containsSubsequence("<td>2025-02-01T00:00:00Z</td>", "<td class=\"\">a@x.io</td>",
                    "<td class=\"changed\">Lyon</td>", "<td class=\"changed\">2</td>");
            assertThat(html).contains("<td class=\"changed\">b@x.io</td>");
            assertThat(html).containsSubsequence(
                    "<td>2025-01-01T00:00:00Z</td>", "<td>2025-02-01T00:00:00Z</td>", "<td>closed</td>",
                    "<td>2025-02-01T00:00:00Z</td>", "<td>2025-03-01T00:00:00Z</td>", "<td>closed</td>",
                    "<tr class=\"deleted\" data-v=\"3\">", "<td>2025-03-01T00:00:00Z</td>", "<td>2025-04-01T00:00:00Z</td>", "<td>deleted</td>",
                    "<tr class=\"current\" data-v=\"4\">", "<td>2025-04-01T00:00:00Z</td>", "<td>open</td>", "<td>current</td>");
            // the window pinned to four months (the open v4 would run to the test's now): 7 px a day from x = 120
            String timeline = b.get("/history/customer?k=C1&from=2025-01-01T00:00:00Z&to=2025-05-01T00:00:00Z").body();
            assertThat(timeline).contains("<rect class=\"seg closed\" x=\"120.0\" y=\"4.0\" width=\"217.0\" height=\"20\" data-first=\"1\" "
                    + "data-last=\"1\" data-from=\"1735689600000\" data-to=\"1738368000000\"><title>v1 closed: 2025-01-01T00:00:00Z .. "
                    + "2025-02-01T00:00:00Z</title></rect>");
            assertThat(timeline).contains("<rect class=\"seg deleted\" x=\"533.0\" y=\"4.0\" width=\"217.0\" height=\"20\" data-first=\"3\" "
                    + "data-last=\"3\" data-from=\"1740787200000\" data-to=\"1743465600000\"><title>v3 deleted: 2025-03-01T00:00:00Z .. "
                    + "2025-04-01T00:00:00Z</title></rect>");
            assertThat(timeline).contains("<rect class=\"seg current\" x=\"750.0\" y=\"4.0\" width=\"210.0\" height=\"20\" data-first=\"4\" "
                    + "data-last=\"4\" data-from=\"1743465600000\" data-to=\"1746057600000\"><title>v4 current: 2025-04-01T00:00:00Z .. open</title></rect>");
            assertThat(html).contains("crm.customers p0 @4 · loaded ");
        });
    }

    @Test
    void historyJsonTwinIsTheWholeHistory() {
        asAdmin(b -> {
            List<VersionRow> rows = new HistoryQueries(f.ds).history(f.customer, List.of("C1"));
            // the customer keeps transaction time: C1 was written by one transaction, never corrected
            Instant knownFrom = new KnownHistory(f.ds).history(f.customer, List.of("C1"), null).get(0).knownFrom();
            JsonNode actual = json(b.get("/api/history/customer?k=C1"));
            JsonNode expected = parse(("{'entity':'customer','key_columns':['customer_id'],'query':'','keys':[],'more_keys':false,"
                    + "'history':{'entity':'customer','key':{'customer_id':'C1'},'key_columns':['customer_id'],"
                    + "'attribute_columns':['email','city','last_login'],'tracked_columns':['email','city'],'type1_columns':['last_login'],'versions':["
                    + version(1, "2025-01-01T00:00:00Z", "'2025-02-01T00:00:00Z'", false, false, rows.get(0), "'a@x.io'", "'Paris'", 1, "", 1)
                    + "," + version(2, "2025-02-01T00:00:00Z", "'2025-03-01T00:00:00Z'", false, false, rows.get(1), "'a@x.io'", "'Lyon'", 2, "'city','last_login'", 2)
                    + "," + version(3, "2025-03-01T00:00:00Z", "'2025-04-01T00:00:00Z'", false, true, rows.get(2), "'a@x.io'", "'Lyon'", 2, "", 3)
                    + "," + version(4, "2025-04-01T00:00:00Z", "null", true, false, rows.get(3), "'b@x.io'", "'Lyon'", 3, "'email','last_login'", 4)
                    // the open v4 began long before the test's now: the window ends a tenth of the 90 days' history after it
                    + "]},'window':{'from':'2025-01-01T00:00:00Z','to':'2025-04-10T00:00:00Z'},"
                    + "'a':null,'b':null,'compare':null,'quarantined':[],'dead_lettered':[],'message':null,'corrections':[]}")
                    .replace("%known%", knownFrom.toString()));
            assertThat(actual).isEqualTo(expected);
        });
    }

    private static String version(int n, String from, String to, boolean current, boolean deleted, VersionRow r, String email,
                                  String city, long lastLogin, String changed, long offset) {
        return ("{'number':" + n + ",'valid_from':'" + from + "','valid_to':" + to + ",'is_current':" + current
                + ",'is_deleted':" + deleted + ",'late':false,'surrogate_key':" + r.surrogateKey() + ",'record_hash':'" + r.recordHash()
                + "','values':{'customer_id':'C1','email':" + email + ",'city':" + city + ",'last_login':" + lastLogin
                + "},'changed':[" + changed + "],'lineage':{'topic':'crm.customers','partition':0,'offset':" + offset
                + ",'loaded_at':'" + r.loadedAt() + "'},'known':{'known_from':'%known%','known_to':null,'corrected_by':null,'corrects':[]}}");
    }

    @Test
    void keySearchFindsCompositeKeysByPrefixAndLinksToTheirHistory() {
        asAdmin(b -> {
            String html = b.get("/history/account?q=eu").body();
            assertThat(html).contains("<li><a href=\"/history/account?k=eu&amp;k=7\">eu / 7</a></li>")
                    .contains("<li><a href=\"/history/account?k=eu&amp;k=8\">eu / 8</a></li>").doesNotContain("us / 7");
            JsonNode api = json(b.get("/api/history/account?k=eu&k=7"));
            assertThat(api.at("/history/versions").size()).isEqualTo(2);
            assertThat(api.at("/history/versions/1/values")).isEqualTo(parse("{'region':'eu','account_no':7,'status':'suspended'}"));
            assertThat(api.at("/history/versions/1/changed")).isEqualTo(parse("['status']"));
        });
    }

    @Test
    void asOfShowsTheTableAtTheInstantInTheChosenZoneSortedAndPaged() {
        asAdmin(b -> {
            String html = b.get("/asof/customer?at=2025-02-10T01:00:00&tz=Europe/Berlin").body();
            assertThat(html).contains("<span id=\"as-of-instant\">2025-02-10T00:00:00Z</span>");
            assertThat(html).contains("<tbody>\n\n  \n  <tr class=\"changed-since-step\"><td>C1</td><td>a@x.io</td><td>Lyon</td><td>2</td><td>2025-02-01T00:00:00Z</td>"
                    + "<td>2025-03-01T00:00:00Z</td></tr>\n\n  \n  <tr><td>C2</td><td>&lt;script&gt;alert(1)&lt;/script&gt;@x.io</td>"
                    + "<td>Rome</td><td>5</td><td>2025-01-15T00:00:00Z</td><td><span class=\"null\">NULL</span></td></tr>\n\n</tbody>");
            JsonNode desc = json(b.get("/api/asof/customer?at=2025-03-10T00:00:00Z&sort=key_desc"));
            assertThat(desc).isEqualTo(parse("{'entity':'customer','at':'2025-03-10T00:00:00Z','zone':'UTC','at_local':'2025-03-10T00:00:00',"
                    + "'prefix':'','sort':'key_desc','page':1,'has_more':false,"
                    + "'stepper':{'first':'2025-01-01T00:00:00Z','previous':'2025-02-15T00:00:00Z','current':'2025-03-01T00:00:00Z',"
                    + "'next':'2025-04-01T00:00:00Z','last':'2025-04-01T00:00:00Z',"
                    + "'first_link':'/asof/customer?tz=UTC&prefix=&sort=key_desc&at=2025-01-01T00%3A00%3A00Z',"
                    + "'previous_link':'/asof/customer?tz=UTC&prefix=&sort=key_desc&at=2025-02-15T00%3A00%3A00Z',"
                    + "'next_link':'/asof/customer?tz=UTC&prefix=&sort=key_desc&at=2025-04-01T00%3A00%3A00Z',"
                    + "'last_link':'/asof/customer?tz=UTC&prefix=&sort=key_desc&at=2025-04-01T00%3A00%3A00Z'},'changed_rows':[],"
                    + "'columns':['customer_id','email','city','last_login','valid_from','valid_to'],'rows':["
                    + "{'customer_id':'C3','email':'c@x.io','city':null,'last_login':null,'valid_from':'2025-02-15T00:00:00Z','valid_to':null},"
                    + "{'customer_id':'C2','email':'" + AdminFixture.XSS + "','city':'Rome','last_login':5,'valid_from':'2025-01-15T00:00:00Z','valid_to':null}]}"));
            JsonNode prefixed = json(b.get("/api/asof/customer?at=2025-04-10T00:00:00Z&prefix=C1"));
            assertThat(prefixed.at("/rows")).isEqualTo(parse("[{'customer_id':'C1','email':'b@x.io','city':'Lyon','last_login':3,"
                    + "'valid_from':'2025-04-01T00:00:00Z','valid_to':null}]"));
            assertThat(b.get("/api/asof/customer?tz=Mars/Olympus").body())
                    .isEqualTo("{\"error\":\"tz: unknown time zone \\\"Mars/Olympus\\\" (e.g. UTC, Europe/Berlin)\"}");
        });
    }

    @Test
    void csvDownloadIsTheWholeSnapshot() {
        asAdmin(b -> {
            HttpResponse<String> r = b.get("/asof/customer/csv?at=2025-03-10T00:00:00Z");
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/csv; charset=utf-8");
            assertThat(r.headers().firstValue("Content-Disposition"))
                    .hasValue("attachment; filename=\"customer-as-of-2025-03-10T00-00-00Z.csv\"");
            assertThat(r.body()).isEqualTo("customer_id,email,city,last_login,valid_from,valid_to\r\n"
                    + "C2," + AdminFixture.XSS + ",Rome,5,2025-01-15T00:00:00Z,\r\n"
                    + "C3,c@x.io,,,2025-02-15T00:00:00Z,\r\n");
        });
    }

    @Test
    void diffListsAddedRemovedAndChangedKeysWithTheirColumns() {
        asAdmin(b -> {
            JsonNode d = json(b.get("/api/diff/customer?from=2025-02-10T00:00:00Z&to=2025-04-10T00:00:00Z"));
            assertThat(d.at("/added")).isEqualTo(parse("[{'key':{'customer_id':'C3'},'link':'?k=C3&from=2025-02-10T00%3A00%3A00Z&to=2025-04-15T21%3A36%3A00Z','before':null,"
                    + "'after':{'email':'c@x.io','city':null,'last_login':null},'changed_columns':[]}]"));
            assertThat(d.at("/removed")).isEqualTo(parse("[]"));
            assertThat(d.at("/changed")).isEqualTo(parse("[{'key':{'customer_id':'C1'},'link':'?k=C1&from=2025-02-10T00%3A00%3A00Z&to=2025-04-15T21%3A36%3A00Z',"
                    + "'before':{'email':'a@x.io','city':'Lyon','last_login':2},'after':{'email':'b@x.io','city':'Lyon','last_login':3},"
                    + "'changed_columns':['email','last_login']}]"));
            String html = b.get("/diff/customer?from=2025-02-10T00:00:00Z&to=2025-04-10T00:00:00Z").body();
            assertThat(html).contains("1 added, 0 removed, 1 changed listed below").contains("<td class=\"changed\">a@x.io → b@x.io</td>");
        });
    }

    @Test
    void quarantineListsTheLateEventWithItsReason() {
        asAdmin(b -> {
            JsonNode q = json(b.get("/api/quarantine?entity=account"));
            assertThat(q.at("/events").size()).isEqualTo(1);
            JsonNode e = q.at("/events/0");
            assertThat(e.get("entity").asText()).isEqualTo("account");
            assertThat(JSON.readTree(e.get("event_key").asText())).isEqualTo(parse("{'region':'eu','account_no':7}"));
            assertThat(e.get("event_time").asText()).isEqualTo("2025-01-01T00:00:00Z");
            assertThat(e.get("source_topic").asText()).isEqualTo("bank.accounts");
            assertThat(e.get("source_offset").asLong()).isEqualTo(15);
            assertThat(e.get("status").asText()).isEqualTo("pending");
            String reason = e.get("reason").asText();
            assertThat(reason).isNotBlank();
            assertThat(b.get("/quarantine?entity=account").body()).contains("<td>" + reason.replace("\"", "&#34;") + "</td>")
                    .contains("<td>bank.accounts p1 @15</td>");
        });
    }

    /** The dashboard's integrity fields: other tests of this JVM may have run a check, stored in the database. */
    private String integrity(String entity) throws Exception {
        var run = new io.dimstream.db.status.IntegrityRuns(f.ds).latest(entity);
        if (run.isEmpty()) {
            return "'integrity':'not run','integrity_findings':null,'integrity_checked_at':null";
        }
        long n = run.get().counts().values().stream().mapToLong(Long::longValue).sum();
        return "'integrity':'" + (run.get().ok() ? "ok" : "failed") + "','integrity_findings':" + n
                + ",'integrity_checked_at':'" + run.get().checkedAt() + "'";
    }

    @Test
    void integrityRunListsEachFindingWithALinkToTheKeysHistoryAndTheDashboardShowsIt() {
        asAdmin(b -> {
            String token = Browser.csrf(b.get("/integrity/broken").body());
            assertThat(b.post("/integrity/broken/run", java.util.Map.of("_csrf", token)).statusCode()).isEqualTo(303);
            JsonNode report = json(b.get("/api/integrity/broken"));
            String checkedAt = report.get("checked_at").asText();
            assertThat(report).isEqualTo(parse("{'entity':'broken','status':'failed','checked_at':'" + checkedAt + "','checked_by':'alice',"
                    + "'rows_checked':2,'counts':{'OVERLAP':1},'findings':[{'kind':'OVERLAP','key':{'id':'B1'},"
                    + "'valid_from':'2025-01-10T00:00:00Z','detail':'starts before the previous version (valid_from "
                    + "2025-01-01T00:00:00Z) ends at 2025-01-12T00:00:00Z','link':'?k=B1'}],'truncated':false}"));
            String html = b.get("/integrity/broken").body();
            assertThat(html).contains("FAILED: 2 rows checked at " + checkedAt + " by alice, 1 findings listed.")
                    .contains("<tr><td>OVERLAP</td><td><a href=\"/history/broken?k=B1\">[B1]</a></td><td>2025-01-10T00:00:00Z</td>"
                            + "<td>starts before the previous version (valid_from 2025-01-01T00:00:00Z) ends at 2025-01-12T00:00:00Z</td></tr>");
            assertThat(json(b.get("/api/dashboard")).at("/entities/2/integrity").asText()).isEqualTo("failed");
            assertThat(json(b.get("/api/dashboard")).at("/entities/2/integrity_findings").asLong()).isEqualTo(1);
        });
    }

    @Test
    void dashboardShowsPerEntityFiguresAndItsJsonTwin() {
        asAdmin(b -> {
            Instant last;
            try (Connection c = f.ds.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT max(finished_at) FROM dimstream.sink_batches WHERE entity = 'customer'")) {
                rs.next();
                last = rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
            }
            JsonNode d = json(b.get("/api/dashboard"));
            assertThat(d).isEqualTo(parse(("{'generated_at':'" + now + "','since':'" + now.minusSeconds(3600) + "','entities':["
                    + "{'entity':'customer','table':'ui_customer','columns':4,'columns_added':0,'current_rows':3,'versions':6,'deleted_keys':0,"
                    + "'events_last_hour':{'new':3,'changed':1,'deleted':1,'unchanged':0,'late':1,'duplicate':0,'quarantined':0,'rejected':1},"
                    + "'changes_per_minute':0.1,'sink_lag':8,'last_batch_at':'" + last + "','last_batch_events':2,'last_batch_apply_ms':8,"
                    + "'quarantine_pending':0,'dlq_records':0,'sink_rejects':0,'sink_gaps':0," + integrity("customer") + "},"
                    + "{'entity':'account','table':'ui_account','columns':3,'columns_added':0,'current_rows':3,'versions':4,'deleted_keys':0,"
                    + "'events_last_hour':{'new':0,'changed':0,'deleted':0,'unchanged':0,'late':0,'duplicate':0,'quarantined':0,'rejected':0},"
                    + "'changes_per_minute':0.0,'sink_lag':null,'last_batch_at':null,'last_batch_events':null,'last_batch_apply_ms':null,"
                    + "'quarantine_pending':1,'dlq_records':0,'sink_rejects':0,'sink_gaps':0," + integrity("account") + "},"
                    + "{'entity':'broken','table':'ui_broken','columns':2,'columns_added':0,'current_rows':1,'versions':2,'deleted_keys':0,"
                    + "'events_last_hour':{'new':0,'changed':0,'deleted':0,'unchanged':0,'late':0,'duplicate':0,'quarantined':0,'rejected':0},"
                    + "'changes_per_minute':0.0,'sink_lag':null,'last_batch_at':null,'last_batch_events':null,'last_batch_apply_ms':null,"
                    + "'quarantine_pending':0,'dlq_records':0,'sink_rejects':0,'sink_gaps':0," + integrity("broken") + "}]}")));
            String html = b.get("/").body();
            assertThat(html).contains("hx-get=\"/dashboard/table\" hx-trigger=\"every 10s\" hx-headers='{\"X-Dimstream-Poll\": \"1\"}' hx-swap=\"outerHTML\"")
                    .contains("<script src=\"/webjars/htmx.org/2.0.4/dist/htmx.min.js\" defer></script>")
                    .contains("<td class=\"num\" data-class=\"changed\">1</td>")
                    // the classes say whose they are: the writer's, as the sink applied the events
                    .contains("<th colspan=\"8\" id=\"events-by-class\">events by class, as the sink applied them (last hour)</th>")
                    .contains("each in the class the writer gave it against PostgreSQL (<code>dimstream.sink_batches</code>)")
                    .contains("<td class=\"num\" data-figure=\"columns\"><a href=\"/columns/customer\">4</a></td>")
                    .contains("<td class=\"num\">8</td>")
                    .contains("<td class=\"num\">2 events, 8 ms</td>");
            assertThat(b.get("/dashboard/table").body()).startsWith("<section id=\"dashboard\"");
            assertThat(b.get("/webjars/htmx.org/2.0.4/dist/htmx.min.js").statusCode()).isEqualTo(200);
            assertThat(b.get("/static/admin.css").statusCode()).isEqualTo(200);
        });
    }
}
