package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The history page's timeline, attribute lanes, window links, comparison, key incidents and
 * collapsed version table, on an entity of its own ({@code trail}): key K1 has three versions,
 * the middle one late-placed (its event arrived after the third's, in a transaction of its own, so
 * v1 and v2 are marked as the correction of v1's earlier image) and holding a hostile value;
 * key K2 has 60 versions, one a day. The clock is fixed at 2025-04-01, so the open versions run
 * to then.
 */
class HistoryPagesTest {

    static final String HOSTILE = "<script>alert(\"x\")</script>'q";
    static final Instant NOW = Instant.parse("2025-04-01T00:00:00Z");

    static final String TRAIL = """
              - name: trail
                topic: crm.trail
                table: ui_trail
                key: [id]
                tracked: [email, plan]
                type1: [seen]
                lateness-horizon: unlimited
                columns: {id: text, email: text, plan: text, seen: bigint}
            """;

    private static AdminFixture f;
    private static DimstreamConfig config;
    private static long dlqId;
    private static long quarantineId;

    static Event ev(long seq, String t, String id, String email, String plan, long seen) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("email", email);
        d.put("plan", plan);
        d.put("seen", seen);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("crm.trail", 0, seq));
    }

    @BeforeAll
    static void writeTheTrail() throws Exception {
        f = AdminFixture.get();
        config = f.configWith(TRAIL, "");
        EntitySpec trail = config.entity("trail").toEntitySpec();
        EntityTables.ensure(f.ds, trail);
        Scd2Writer w = new Scd2Writer(f.ds);
        w.apply(trail, List.of(ev(1, "2025-01-01T00:00:00Z", "K1", "a@x.io", "free", 1),
                ev(2, "2025-03-01T00:00:00Z", "K1", "b@x.io", "free", 2)));
        // arrives after March's event but belongs to February: placed late
        w.apply(trail, List.of(ev(3, "2025-02-01T00:00:00Z", "K1", HOSTILE, "pro", 3)));
        List<Event> many = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            many.add(ev(100 + i, Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofDays(i)).toString(), "K2", "e" + i + "@x.io",
                    i < 30 ? "free" : "pro", i));
        }
        w.apply(trail, many);
        try (Connection c = f.ds.getConnection()) {
            try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.dlq_records (entity, source_topic, source_partition, "
                    + "source_offset, dlq_topic, dlq_partition, dlq_offset, key, value, error) "
                    + "VALUES ('trail', 'crm.trail', 0, 9, 'crm.trail.dlq', 0, 0, ?, ?, 'not JSON: <b>') RETURNING id")) {
                p.setBytes(1, "K1".getBytes(StandardCharsets.UTF_8));
                p.setBytes(2, "{oops".getBytes(StandardCharsets.UTF_8));
                try (var rs = p.executeQuery()) {
                    rs.next();
                    dlqId = rs.getLong(1);
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.quarantine (entity, event_key, event_time, event, seq, "
                    + "reason, source_topic, source_partition, source_offset) VALUES ('trail', '{\"id\": \"K1\"}', "
                    + "'2024-06-01T00:00:00Z', '{}', 7, 'beyond the horizon', 'crm.trail', 0, 7) RETURNING id")) {
                try (var rs = p.executeQuery()) {
                    rs.next();
                    quarantineId = rs.getLong(1);
                }
            }
        }
    }

    private interface Case {
        void run(Browser b) throws Exception;
    }

    private void asViewer(Case c) {
        AdminServer server = new AdminServer(config, f.ds, new AdminSettings(OptionalInt.of(0), null, Clock.fixed(NOW, ZoneOffset.UTC)));
        JavalinTest.test(server.app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("victor", AdminFixture.VIEWER_PASSWORD).statusCode()).isEqualTo(303);
            c.run(b);
        });
    }

    private static String main(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        String body = r.body();
        return squash(body.substring(body.indexOf("<main id=\"main\" tabindex=\"-1\">"), body.indexOf("</main>")));
    }

    /** Markup without the template's indentation between tags, so fragments compare whole. */
    private static String squash(String html) {
        return html.replaceAll(">\\s+<", "><");
    }

    @Test
    void theTimelineDrawsTheVersionsInOneLaneWithTheLatePlacedOneMarkedAndAnAxisInDays() {
        asViewer(b -> {
            String html = main(b.get("/history/trail?k=K1"));
            // 90 days over 840 px from x = 120: 9.333 px a day
            assertThat(html).contains(squash("""
                    <g class="lane versions" id="version-lane">
                     \s
                          <rect class="seg closed corrected" x="120.0" y="4.0" width="289.3" height="20" data-first="1" data-last="1" data-from="1735689600000" data-to="1738368000000"><title>v1 closed, correction #1: 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z</title></rect>
                     \s
                          <text class="label" x="123.0" y="18.0">v1</text>
                     \s
                          <rect class="seg closed late corrected" x="409.3" y="4.0" width="261.4" height="20" data-first="2" data-last="2" data-from="1738368000000" data-to="1740787200000"><title>v2 closed, late-placed, correction #1: 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z</title></rect>
                     \s
                          <text class="label" x="412.3" y="18.0">v2</text>
                     \s
                          <rect class="seg current" x="670.7" y="4.0" width="289.3" height="20" data-first="3" data-last="3" data-from="1740787200000" data-to="1743465600000"><title>v3 current: 2025-03-01T00:00:00Z .. open</title></rect>
                     \s
                          <text class="label" x="673.7" y="18.0">v3</text>
                        </g>""".strip()));
            // every 14 days (epoch-aligned), the first on January 2nd
            assertThat(html).contains("<text class=\"tick\" x=\"129.3\" y=\"102.0\" text-anchor=\"middle\">2025-01-02</text>")
                    .contains("<text class=\"tick\" x=\"913.3\" y=\"102.0\" text-anchor=\"middle\">2025-03-27</text>");
            assertThat(html).contains("<span class=\"meta\">window <span id=\"window-from\">2025-01-01T00:00:00Z</span> .. "
                    + "<span id=\"window-to\">2025-04-01T00:00:00Z</span> · ticks in days (UTC) · 3 of 3 versions in view</span>");
            assertThat(html).contains("<p class=\"meta\" id=\"window-note\">Showing the key's versions: from the first, at "
                    + "2025-01-01T00:00:00Z, to now; the current version began at 2025-03-01T00:00:00Z.</p>");
            // zoom in: half the window around the middle version's start (v2, 2025-02-01)
            assertThat(html).contains("<a id=\"zoom-in\" href=\"/history/trail?k=K1&amp;from=2025-01-09T12%3A00%3A00Z&amp;to=2025-02-23T12%3A00%3A00Z\">zoom in (+)</a>")
                    .contains("<a id=\"pan-back\" href=\"/history/trail?k=K1&amp;from=2024-11-17T00%3A00%3A00Z&amp;to=2025-02-15T00%3A00%3A00Z\">← earlier</a>")
                    .doesNotContain("id=\"whole\"");
            // the type-1 column is not a lane: it is listed apart with the newest value
            assertThat(html).contains("<dt>seen</dt><dd>2</dd>").doesNotContain("data-column=\"seen\"");
            // the late event rewrote v1's closed image in a transaction of its own: both rows it wrote are marked as its correction
            // (the space between the two tags is squashed here)
            assertThat(html).contains("<td>closed <span class=\"late-tag\">late-placed</span><a class=\"corr-tag\" href=\"#correction-1\">correction #1</a></td>");
        });
    }

    @Test
    void attributeLanesShowRunsOfEqualValuesWithMarkupEscapedInLabelsAndTitles() {
        asViewer(b -> {
            String html = main(b.get("/history/trail?k=K1"));
            assertThat(html).contains(squash("""
                    <g class="lane attribute" data-column="email">
                           \s
                            <rect class="run" x="120.0" y="36.0" width="289.3" height="20"><title>email = a@x.io · 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z (v1)</title></rect>
                            <text class="label" x="123.0" y="50.0">a@x.io</text>
                           \s
                            <rect class="run alt" x="409.3" y="36.0" width="261.4" height="20"><title>email = &lt;script&gt;alert("x")&lt;/script&gt;'q · 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z (v2)</title></rect>
                            <text class="label" x="412.3" y="50.0">&lt;script&gt;alert("x")&lt;/script&gt;'q</text>
                           \s
                            <rect class="run" x="670.7" y="36.0" width="289.3" height="20"><title>email = b@x.io · 2025-03-01T00:00:00Z .. open (v3)</title></rect>
                            <text class="label" x="673.7" y="50.0">b@x.io</text>
                           \s
                          </g>""".strip()));
            assertThat(html).doesNotContain("<script>alert");
        });
    }

    @Test
    void twoSelectedVersionsAreComparedSideBySideWithChangedCellsAndLineage() throws Exception {
        List<VersionRow> rows = new HistoryQueries(f.ds).history(config.entity("trail").toEntitySpec(), List.of("K1"));
        asViewer(b -> {
            String html = main(b.get("/history/trail?k=K1&a=1&b=2"));
            assertThat(html).contains("<h3>v1 and v2 side by side</h3>");
            assertThat(html).contains(String.join("",
                    "<tr class=\"period\"><th scope=\"row\">valid_from</th><td class=\"changed\">2025-01-01T00:00:00Z</td><td class=\"changed\">2025-02-01T00:00:00Z</td></tr>",
                    "<tr class=\"period\"><th scope=\"row\">valid_to</th><td class=\"changed\">2025-02-01T00:00:00Z</td><td class=\"changed\">2025-03-01T00:00:00Z</td></tr>",
                    "<tr class=\"period\"><th scope=\"row\">state</th><td class=\"changed\">closed</td><td class=\"changed\">closed, late-placed</td></tr>",
                    "<tr class=\"tracked\"><th scope=\"row\">email</th><td class=\"changed\">a@x.io</td><td class=\"changed\">&lt;script&gt;alert(\"x\")&lt;/script&gt;'q</td></tr>",
                    "<tr class=\"tracked\"><th scope=\"row\">plan</th><td class=\"changed\">free</td><td class=\"changed\">pro</td></tr>",
                    "<tr class=\"type1\"><th scope=\"row\">seen</th><td class=\"changed\">1</td><td class=\"changed\">3</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">surrogate_key</th><td class=\"changed\">" + rows.get(0).surrogateKey()
                            + "</td><td class=\"changed\">" + rows.get(1).surrogateKey() + "</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">record_hash</th><td class=\"changed\">" + rows.get(0).recordHash()
                            + "</td><td class=\"changed\">" + rows.get(1).recordHash() + "</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">topic</th><td class=\"\">crm.trail</td><td class=\"\">crm.trail</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">partition</th><td class=\"\">0</td><td class=\"\">0</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">offset</th><td class=\"changed\">1</td><td class=\"changed\">3</td></tr>",
                    "<tr class=\"lineage\"><th scope=\"row\">loaded_at</th><td class=\"" + (rows.get(0).loadedAt().equals(rows.get(1).loadedAt()) ? "" : "changed")
                            + "\">" + rows.get(0).loadedAt() + "</td><td class=\"" + (rows.get(0).loadedAt().equals(rows.get(1).loadedAt()) ? "" : "changed")
                            + "\">" + rows.get(1).loadedAt() + "</td></tr>"));
            // the selection is kept by the window links and checked in the table
            assertThat(html).contains("<a id=\"zoom-out\" href=\"/history/trail?k=K1&amp;from=2024-11-17T00%3A00%3A00Z&amp;to=2025-05-16T00%3A00%3A00Z&amp;a=1&amp;b=2\">zoom out (−)</a>")
                    .contains("<input type=\"radio\" name=\"a\" value=\"1\" id=\"a-1\" aria-label=\"compare v1 as A\" checked>")
                    .contains("<input type=\"radio\" name=\"b\" value=\"2\" id=\"b-2\" aria-label=\"compare v2 as B\" checked>");
        });
    }

    @Test
    void theKeysQuarantineAndDlqRowsAreLinked() {
        asViewer(b -> {
            String html = main(b.get("/history/trail?k=K1"));
            assertThat(html).contains("<ul id=\"quarantined\"><li><a href=\"/quarantine?entity=trail\">quarantine #" + quarantineId
                    + "</a> pending · event_time 2024-06-01T00:00:00Z · beyond the horizon</li></ul>");
            assertThat(html).contains("<ul id=\"dead-lettered\"><li><a href=\"/dlq?entity=trail&amp;before=" + (dlqId + 1)
                    + "\">DLQ #" + dlqId + "</a> re-drive none · crm.trail p0 @9 · not JSON: &lt;b&gt;</li></ul>");
            assertThat(main(b.get("/history/trail?k=K2"))).contains("<p class=\"meta\" id=\"no-incidents\">No quarantined event and no dead-lettered record of this key.</p>");
        });
    }

    @Test
    void sixtyVersionsOverFiveYearsAreGroupedWithACountAndTheTableShowsTheWindowsVersionsFirst() {
        asViewer(b -> {
            // 1917 days over 840 px: a day is 0.44 px, so v1..v59 (a day each) merge into one group;
            // its link opens their 59 days with a tenth (5.9 days) on either side
            String html = main(b.get("/history/trail?k=K2&from=2020-01-01&to=2025-04-01"));
            assertThat(html).contains("<p class=\"notice\" id=\"narrow\">59 versions are narrower than 3 px in this window and are drawn as "
                    + "groups (×count): zoom in, or click a group to open the window around it.</p>");
            assertThat(html).contains(squash("""
                    <a href="/history/trail?k=K2&amp;from=2024-12-26T02%3A24%3A00Z&amp;to=2025-03-06T21%3A36%3A01Z" class="group-link">
                            <rect class="seg group" x="920.6" y="4.0" width="25.8" height="20" data-first="1" data-last="59" data-from="1735689600000" data-to="1740787200000"><title>v1–v59: 59 versions narrower than 3 px here: zoom in</title></rect>
                          </a>
                         \s
                          <text class="label" x="923.6" y="18.0">×59</text>
                         \s
                          <rect class="seg current" x="946.4" y="4.0" width="13.6" height="20" data-first="60" data-last="60" data-from="1740787200000" data-to="1743465600000"><title>v60 current: 2025-03-01T00:00:00Z .. open</title></rect>""".strip()));
            assertThat(html).contains("<a id=\"whole\" href=\"/history/trail?k=K2\">whole history</a>");

            // ten days in February: v41..v50 lead the table, 50 rows shown, ten collapsed
            String zoomed = main(b.get("/history/trail?k=K2&from=2025-02-10&to=2025-02-20"));
            assertThat(zoomed).contains("10 of 60 versions fall in the window; they are listed first.")
                    .contains("<summary>10 more versions</summary>")
                    .doesNotContain("id=\"narrow\"");
            List<Integer> order = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("data-v=\"(\\d+)\"").matcher(zoomed);
            while (m.find()) {
                order.add(Integer.parseInt(m.group(1)));
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 41; i <= 50; i++) {
                expected.add(i);
            }
            for (int i = 1; i <= 60; i++) {
                if (i < 41 || i > 50) {
                    expected.add(i);
                }
            }
            assertThat(order).isEqualTo(expected);
            assertThat(zoomed.indexOf("data-v=\"40\"")).isLessThan(zoomed.indexOf("<details id=\"more-versions\">"));
            assertThat(zoomed.indexOf("data-v=\"51\"")).isGreaterThan(zoomed.indexOf("<details id=\"more-versions\">"));
            // the compare form keeps the window
            assertThat(zoomed).contains("<input type=\"hidden\" name=\"k\" value=\"K2\"><input type=\"hidden\" name=\"from\" value=\"2025-02-10T00:00:00Z\">"
                    + "<input type=\"hidden\" name=\"to\" value=\"2025-02-20T00:00:00Z\">");
        });
    }

    @Test
    void aBadWindowOrVersionIsRefusedNamingTheParameter() {
        asViewer(b -> {
            Map<String, String> actual = new LinkedHashMap<>();
            for (String q : List.of("from=nope", "from=2025-03-01&to=2025-02-01", "to=2024-01-01", "a=61&b=1", "a=x")) {
                HttpResponse<String> r = b.get("/api/history/trail?k=K2&" + q, "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN);
                actual.put(q, r.statusCode() + " " + JSON.readTree(r.body()).path("error").asText());
            }
            assertThat(actual).containsExactly(
                    Map.entry("from=nope", "400 from: not an instant (e.g. 2025-01-01T00:00:00Z, 2025-01-01T00:00 UTC, or 2025-01-01): \"nope\""),
                    Map.entry("from=2025-03-01&to=2025-02-01", "400 from, to: the window's end 2025-02-01T00:00:00Z must be after its start 2025-03-01T00:00:00Z"),
                    Map.entry("to=2024-01-01", "400 to: the window's end 2024-01-01T00:00:00Z must be after its start 2025-01-01T00:00:00Z"),
                    Map.entry("a=61&b=1", "400 a: no version 61 (the key has versions 1 to 60)"),
                    Map.entry("a=x", "400 a: not a version number: \"x\""));
        });
    }

    @Test
    void theJsonTwinCarriesTheWindowTheComparisonAndTheIncidents() throws Exception {
        asViewer(b -> {
            JsonNode api = JSON.readTree(b.get("/api/history/trail?k=K1&a=1&b=3&from=2025-02-01", "Authorization",
                    "Bearer " + AdminFixture.VIEWER_TOKEN).body());
            assertThat(api.get("window")).isEqualTo(parse("{'from':'2025-02-01T00:00:00Z','to':'2025-04-01T00:00:00Z'}"));
            assertThat(List.of(api.get("a").asInt(), api.get("b").asInt())).containsExactly(1, 3);
            List<Boolean> late = new ArrayList<>();
            api.at("/history/versions").forEach(v -> late.add(v.get("late").asBoolean()));
            assertThat(late).containsExactly(false, true, false);
            assertThat(api.at("/history/tracked_columns")).isEqualTo(parse("['email','plan']"));
            assertThat(api.at("/history/type1_columns")).isEqualTo(parse("['seen']"));
            assertThat(api.at("/compare/rows/3")).isEqualTo(parse("{'field':'email','group':'tracked','a':'a@x.io','b':'b@x.io','changed':true}"));
            assertThat(api.at("/compare/rows/4")).isEqualTo(parse("{'field':'plan','group':'tracked','a':'free','b':'free','changed':false}"));
            assertThat(api.get("quarantined")).isEqualTo(parse("[{'id':" + quarantineId + ",'event_time':'2024-06-01T00:00:00Z','reason':'beyond the horizon',"
                    + "'status':'pending','source_topic':'crm.trail','source_partition':0,'source_offset':7}]"));
            assertThat(api.get("dead_lettered")).isEqualTo(parse("[{'id':" + dlqId + ",'error':'not JSON: <b>','source_topic':'crm.trail',"
                    + "'source_partition':0,'source_offset':9,'record_timestamp':null,'redrive_state':'none'}]"));
            assertThat(api.has("screen")).isFalse();
        });
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode parse(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }
}
