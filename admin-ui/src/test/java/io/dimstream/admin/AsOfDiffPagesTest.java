package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The diff page's defaults, summary and drill-down links, and the as-of page's stepper and
 * highlighted rows, against {@link AdminFixture}'s customers (changes at 01-01, 01-15, 02-01,
 * 02-15, 03-01 (C1 deleted) and 04-01 (C1 back), all 2025), the clock fixed at 2025-02-01T12:00:00Z.
 */
class AsOfDiffPagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2025-02-01T12:00:00.123456Z");
    private final AdminFixture f = AdminFixture.get();

    private interface Case {
        void run(Browser b) throws Exception;
    }

    private void asAdmin(Case c) {
        asAdmin(NOW, c);
    }

    private void asAdmin(Instant now, Case c) {
        AdminServer server = new AdminServer(f.config, f.ds, new AdminSettings(OptionalInt.of(0), null, Clock.fixed(now, ZoneOffset.UTC)));
        JavalinTest.test(server.app(), (app, client) -> {
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

    private static String section(String html, String from, String to) {
        int i = html.indexOf(from);
        assertThat(i).as("%s in %s", from, html).isGreaterThanOrEqualTo(0);
        int j = html.indexOf(to, i);
        assertThat(j).as("%s after %s in %s", to, from, html).isGreaterThan(i);
        return html.substring(i, j + to.length());
    }

    @Test
    void diffWithoutInstantsComparesYesterdayWithNow() {
        asAdmin(b -> {
            String html = b.get("/diff/customer").body();
            // the form shows the defaults: a day before the clock (to the second), and the clock
            assertThat(html).contains("<input type=\"datetime-local\" step=\"1\" name=\"from\" id=\"from\" value=\"2025-01-31T12:00:00\">")
                    .contains("<input type=\"datetime-local\" step=\"1\" name=\"to\" id=\"to\" value=\"2025-02-01T12:00:00\">");
            // C1 moved from Paris to Lyon on 2025-02-01
            assertThat(section(html, "<p class=\"meta\" id=\"diff-window\">", "</section>")).isEqualTo("""
                    <p class="meta" id="diff-window">Comparing 2025-01-31T12:00:00Z with 2025-02-01T12:00:00Z.</p>
                    <p class="meta" id="diff-default">From is a day before to. To is now: the table's latest change, at 2025-04-01T00:00:00Z, is not before now.</p>
                    <section id="diff-summary">
                      <h2>Summary</h2>
                      <p class="diff-counts">Keys added: <span class="diff-added">0</span> · keys removed: <span class="diff-removed">0</span> · keys changed: <span class="diff-changed">1</span></p>
                      <table class="grid compact" id="diff-summary-table">
                      <thead><tr><th>column</th><th>keys changed</th></tr></thead>
                      <tbody>
                      \n    <tr><td>email</td><td>0</td></tr>
                      \n    <tr><td>city</td><td>1</td></tr>
                      \n    <tr><td>last_login</td><td>1</td></tr>
                      \n  </tbody>
                      </table>
                    </section>""");
            JsonNode api = json(b.get("/api/diff/customer"));
            assertThat(api.at("/from").asText() + " " + api.at("/to").asText()).isEqualTo("2025-01-31T12:00:00Z 2025-02-01T12:00:00Z");
            assertThat(api.at("/changed")).isEqualTo(parse("[{'key':{'customer_id':'C1'},"
                    + "'link':'?k=C1&from=2025-01-31T12%3A00%3A00Z&to=2025-02-01T14%3A24%3A00Z',"
                    + "'before':{'email':'a@x.io','city':'Paris','last_login':1},'after':{'email':'a@x.io','city':'Lyon','last_login':2},"
                    + "'changed_columns':['city','last_login']}]"));
            // only "to" given: from is a day before it
            JsonNode onlyTo = json(b.get("/api/diff/customer?to=2025-03-10T00:00:00Z"));
            assertThat(onlyTo.at("/from").asText()).isEqualTo("2025-03-09T00:00:00Z");
            assertThat(b.get("/api/diff/customer?from=2025-03-10T00:00:00Z").body())
                    .isEqualTo("{\"error\":\"from: must be before to (got from 2025-03-10T00:00:00Z, to 2025-02-01T12:00:00Z)\"}");
        });
    }

    @Test
    void diffWithoutInstantsLongAfterTheDataShowsTheDayBeforeTheLatestChangeAndSaysWhy() {
        // a year after the fixture's last change (C1 back on 2025-04-01): "yesterday vs now" would be empty
        asAdmin(Instant.parse("2026-04-01T09:30:00Z"), b -> {
            String html = b.get("/diff/customer").body();
            assertThat(html).contains("<input type=\"datetime-local\" step=\"1\" name=\"from\" id=\"from\" value=\"2025-03-31T00:00:00\">")
                    .contains("<input type=\"datetime-local\" step=\"1\" name=\"to\" id=\"to\" value=\"2025-04-01T00:00:00\">")
                    .contains("<p class=\"meta\" id=\"diff-default\">From is a day before to. To is the table's latest change, at "
                            + "2025-04-01T00:00:00Z (now is 2026-04-01T09:30:00Z): the table is the same from then to now, so this shows "
                            + "its last day of changes.</p>");
            JsonNode api = json(b.get("/api/diff/customer"));
            assertThat(api.at("/from").asText() + " " + api.at("/to").asText()).isEqualTo("2025-03-31T00:00:00Z 2025-04-01T00:00:00Z");
            assertThat(api.at("/summary")).isEqualTo(parse("{'added':1,'removed':0,'changed':0,'columns':["
                    + "{'column':'email','keys':0},{'column':'city','keys':0},{'column':'last_login','keys':0}]}"));
            assertThat(api.at("/added/0/key")).isEqualTo(parse("{'customer_id':'C1'}"));
            assertThat(api.at("/added").size()).isEqualTo(1);
            // "to" given: it is kept, and only from is explained
            JsonNode given = json(b.get("/api/diff/customer?to=2025-02-01T12:00:00Z"));
            assertThat(given.at("/from").asText() + " " + given.at("/to").asText() + " " + given.at("/default_note").asText())
                    .isEqualTo("2025-01-31T12:00:00Z 2025-02-01T12:00:00Z From is a day before to.");
        });
    }

    @Test
    void diffSummaryCountsKeysPerColumnAndEachKeyLinksToItsHistoryWindow() {
        asAdmin(b -> {
            String html = b.get("/diff/customer?from=2025-02-10T00:00:00Z&to=2025-04-10T00:00:00Z").body();
            assertThat(section(html, "<p class=\"diff-counts\">", "</section>")).isEqualTo("""
                    <p class="diff-counts">Keys added: <span class="diff-added">1</span> · keys removed: <span class="diff-removed">0</span> · keys changed: <span class="diff-changed">1</span></p>
                      <table class="grid compact" id="diff-summary-table">
                      <thead><tr><th>column</th><th>keys changed</th></tr></thead>
                      <tbody>
                      \n    <tr><td>email</td><td>1</td></tr>
                      \n    <tr><td>city</td><td>0</td></tr>
                      \n    <tr><td>last_login</td><td>1</td></tr>
                      \n  </tbody>
                      </table>
                    </section>""");
            assertThat(section(html, "<tr class=\"added\">", "</tbody>").replaceAll("\n\\s*\n", "\n")).isEqualTo("""
                    <tr class="added"><td>added</td><td><a href="/history/customer?k=C3&amp;from=2025-02-10T00%3A00%3A00Z&amp;to=2025-04-15T21%3A36%3A00Z">[C3]</a></td>
                        <td>c@x.io</td><td></td><td></td></tr>
                        <tr class="changed-row"><td>changed</td><td><a href="/history/customer?k=C1&amp;from=2025-02-10T00%3A00%3A00Z&amp;to=2025-04-15T21%3A36%3A00Z">[C1]</a></td>
                          <td class="changed">a@x.io → b@x.io</td>
                          <td>Lyon</td>
                          <td class="changed">2 → 3</td>
                        </tr>
                      </tbody>""");
            // C1 deleted on 03-01, C3 new on 02-15
            JsonNode d = json(b.get("/api/diff/customer?from=2025-02-10T00:00:00Z&to=2025-03-10T00:00:00Z"));
            assertThat(d.at("/summary")).isEqualTo(parse("{'added':1,'removed':1,'changed':0,'columns':[{'column':'email','keys':0},"
                    + "{'column':'city','keys':0},{'column':'last_login','keys':0}]}"));
            assertThat(d.at("/removed")).isEqualTo(parse("[{'key':{'customer_id':'C1'},"
                    + "'link':'?k=C1&from=2025-02-10T00%3A00%3A00Z&to=2025-03-12T19%3A12%3A00Z',"
                    + "'before':{'email':'a@x.io','city':'Lyon','last_login':2},'after':null,'changed_columns':[]}]"));
            // the drill-down opens the key's history on that window
            String history = b.get("/history/customer" + d.at("/removed/0/link").asText()).body();
            assertThat(history).contains("<h2 id=\"key-title\">customer_id = C1 · 4 versions</h2>");
        });
    }

    @Test
    void asOfStepperMovesBetweenChangesAndMarksTheRowsChangedSinceThePreviousOne() {
        asAdmin(b -> {
            String html = b.get("/asof/customer?at=2025-02-10T00:00:00Z").body();
            assertThat(section(html, "<nav class=\"stepper\"", "</tbody>").replaceAll("\n\\s*\n", "\n")).isEqualTo("""
                    <nav class="stepper" id="asof-stepper" aria-label="changes of the table">
                      <a id="step-first" href="/asof/customer?tz=UTC&amp;prefix=&amp;sort=key_asc&amp;at=2025-01-01T00%3A00%3A00Z">⇤ first change</a>
                      <a id="step-prev" href="/asof/customer?tz=UTC&amp;prefix=&amp;sort=key_asc&amp;at=2025-01-15T00%3A00%3A00Z">← previous change</a>
                      <span id="step-current">state of the change at 2025-02-01T00:00:00Z</span>
                      <a id="step-next" href="/asof/customer?tz=UTC&amp;prefix=&amp;sort=key_asc&amp;at=2025-02-15T00%3A00%3A00Z">next change →</a>
                      <a id="step-last" href="/asof/customer?tz=UTC&amp;prefix=&amp;sort=key_asc&amp;at=2025-04-01T00%3A00%3A00Z">last change ⇥</a>
                    </nav>
                    <p class="legend" id="asof-legend"><span class="sw changed-since-step"></span>version changed since the previous change (2025-01-15T00:00:00Z)</p>
                    <p class="meta">Page 1 · 2 rows on this page.</p>
                    <div class="scroll"><table class="grid" id="asof-table">
                    <thead><tr><th>customer_id</th><th>email</th><th>city</th><th>last_login</th><th>valid_from</th><th>valid_to</th></tr></thead>
                    <tbody>
                      <tr class="changed-since-step"><td>C1</td><td>a@x.io</td><td>Lyon</td><td>2</td><td>2025-02-01T00:00:00Z</td><td>2025-03-01T00:00:00Z</td></tr>
                      <tr><td>C2</td><td>&lt;script&gt;alert(1)&lt;/script&gt;@x.io</td><td>Rome</td><td>5</td><td>2025-01-15T00:00:00Z</td><td><span class="null">NULL</span></td></tr>
                    </tbody>""");
            // following "next change": C3 appears on 02-15 and is the row marked
            JsonNode next = json(b.get("/api/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-02-15T00%3A00%3A00Z"));
            assertThat(next.at("/stepper")).isEqualTo(parse("{'first':'2025-01-01T00:00:00Z','previous':'2025-02-01T00:00:00Z',"
                    + "'current':'2025-02-15T00:00:00Z','next':'2025-03-01T00:00:00Z','last':'2025-04-01T00:00:00Z',"
                    + "'first_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-01-01T00%3A00%3A00Z',"
                    + "'previous_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-02-01T00%3A00%3A00Z',"
                    + "'next_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-03-01T00%3A00%3A00Z',"
                    + "'last_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-04-01T00%3A00%3A00Z'}"));
            assertThat(next.at("/changed_rows")).isEqualTo(parse("[2]"));
            assertThat(next.at("/rows/2/customer_id").asText()).isEqualTo("C3");
            // the last change (C1 back on 04-01) in Berlin time, key descending, prefix kept: no next/last link
            String last = b.get("/asof/customer?at=2025-04-01T02:00:00&tz=Europe/Berlin&sort=key_desc&prefix=C1").body();
            assertThat(section(last, "<nav class=\"stepper\"", "</tbody>").replaceAll("\n\\s*\n", "\n")).isEqualTo("""
                    <nav class="stepper" id="asof-stepper" aria-label="changes of the table">
                      <a id="step-first" href="/asof/customer?tz=Europe%2FBerlin&amp;prefix=C1&amp;sort=key_desc&amp;at=2025-01-01T00%3A00%3A00Z">⇤ first change</a>
                      <a id="step-prev" href="/asof/customer?tz=Europe%2FBerlin&amp;prefix=C1&amp;sort=key_desc&amp;at=2025-03-01T00%3A00%3A00Z">← previous change</a>
                      <span id="step-current">state of the change at 2025-04-01T00:00:00Z</span>
                      <span class="meta">next change →</span>
                      <span class="meta">last change ⇥</span>
                    </nav>
                    <p class="legend" id="asof-legend"><span class="sw changed-since-step"></span>version changed since the previous change (2025-03-01T00:00:00Z)</p>
                    <p class="meta">Page 1 · 1 rows on this page.</p>
                    <div class="scroll"><table class="grid" id="asof-table">
                    <thead><tr><th>customer_id</th><th>email</th><th>city</th><th>last_login</th><th>valid_from</th><th>valid_to</th></tr></thead>
                    <tbody>
                      <tr class="changed-since-step"><td>C1</td><td>b@x.io</td><td>Lyon</td><td>3</td><td>2025-04-01T00:00:00Z</td><td><span class="null">NULL</span></td></tr>
                    </tbody>""");
            // before the first change: no previous, nothing marked
            JsonNode before = json(b.get("/api/asof/customer?at=2024-02-10T00:00:00Z"));
            assertThat(before.at("/stepper")).isEqualTo(parse("{'first':'2025-01-01T00:00:00Z','previous':null,'current':null,"
                    + "'next':'2025-01-01T00:00:00Z','last':'2025-04-01T00:00:00Z',"
                    + "'first_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-01-01T00%3A00%3A00Z','previous_link':null,"
                    + "'next_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-01-01T00%3A00%3A00Z',"
                    + "'last_link':'/asof/customer?tz=UTC&prefix=&sort=key_asc&at=2025-04-01T00%3A00%3A00Z'}"));
            assertThat(before.at("/rows")).isEqualTo(parse("[]"));
            assertThat(before.at("/changed_rows")).isEqualTo(parse("[]"));
        });
    }
}
