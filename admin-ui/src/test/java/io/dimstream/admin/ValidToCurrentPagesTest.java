package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin over an entity with {@code valid-to-current: infinity} ({@code span}: K1 with two
 * versions, the second open; K2 deleted in March): the history page and its JSON say "open" and
 * "current" for the open version, never a date in the year 294276; the as-of table and its CSV
 * show {@code valid_to} as the table holds it, {@code infinity}; the diff compares as for NULL.
 */
class ValidToCurrentPagesTest {

    /** A version's transaction time in the JSON twin, its instant masked: known since it was written, never corrected. */
    private static final String KNOWN = "\"known\":{\"known_from\":\"-\",\"known_to\":null,\"corrected_by\":null,\"corrects\":[]}";


    static final Instant NOW = Instant.parse("2025-04-01T00:00:00Z");

    static final String SPAN = """
              - name: span
                topic: crm.span
                table: ui_span
                key: [id]
                tracked: [plan]
                lateness-horizon: unlimited
                columns: {id: text, plan: text}
                valid-to-current: infinity
            """;

    private static AdminFixture f;
    private static DimstreamConfig config;

    static Event ev(long seq, String t, String id, String plan) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("plan", plan);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("crm.span", 0, seq));
    }

    @BeforeAll
    static void write() throws Exception {
        f = AdminFixture.get();
        config = f.configWith(SPAN, "");
        EntitySpec span = config.entity("span").toEntitySpec();
        assertThat(span.validToCurrent()).isEqualTo(ValidToCurrent.INFINITY);
        EntityTables.ensure(f.ds, span);
        Scd2Writer w = new Scd2Writer(f.ds);
        w.apply(span, List.of(ev(1, "2025-01-01T00:00:00Z", "K1", "free"), ev(2, "2025-01-01T00:00:00Z", "K2", "free")));
        w.apply(span, List.of(ev(3, "2025-02-01T00:00:00Z", "K1", "pro"),
                Event.delete(Instant.parse("2025-03-01T00:00:00Z"), new LinkedHashMap<>(Map.of("id", "K2")), 4, Source.kafka("crm.span", 0, 4))));
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
        return body.substring(body.indexOf("<main id=\"main\" tabindex=\"-1\">"), body.indexOf("</main>")).replaceAll(">\\s+<", "><");
    }

    private static String between(String html, String from, String to) {
        int i = html.indexOf(from);
        assertThat(i).as("%s in %s", from, html).isNotNegative();
        return html.substring(i, html.indexOf(to, i) + to.length());
    }

    @Test
    void theHistoryPageSaysOpenForTheCurrentVersion() {
        asViewer(b -> {
            String html = main(b.get("/history/span?k=K1&a=1&b=2"));
            assertThat(between(html, "<g class=\"lane versions\"", "</g>")).isEqualTo("<g class=\"lane versions\" id=\"version-lane\">"
                    + "<rect class=\"seg closed\" x=\"120.0\" y=\"4.0\" width=\"763.6\" height=\"20\" data-first=\"1\" data-last=\"1\" "
                    + "data-from=\"1735689600000\" data-to=\"1738368000000\"><title>v1 closed: 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z</title>"
                    + "</rect><text class=\"label\" x=\"123.0\" y=\"18.0\">v1</text><rect class=\"seg current\" x=\"883.6\" y=\"4.0\" "
                    + "width=\"76.4\" height=\"20\" data-first=\"2\" data-last=\"2\" data-from=\"1738368000000\" data-to=\"1738635840000\">"
                    + "<title>v2 current: 2025-02-01T00:00:00Z .. open</title></rect><text class=\"label\" x=\"886.6\" y=\"18.0\">v2</text></g>");
            assertThat(between(html, "<p class=\"meta\" id=\"window-note\">", "</p>")).isEqualTo("<p class=\"meta\" id=\"window-note\">"
                    + "Showing the key's versions: from the first, at 2025-01-01T00:00:00Z, to a little after the latest change, at "
                    + "2025-02-01T00:00:00Z: the current version runs on to now (2025-04-01T00:00:00Z), long after the changes, so the "
                    + "window ends a tenth of the key's history after it. Zoom out or pan to see more.</p>");
            assertThat(between(html, "<tr class=\"period\"><th scope=\"row\">valid_to</th>", "</tr>")).isEqualTo(
                    "<tr class=\"period\"><th scope=\"row\">valid_to</th><td class=\"changed\">2025-02-01T00:00:00Z</td>"
                            + "<td class=\"changed\">open</td></tr>");
            assertThat(between(html, "<tbody><tr class=\"\" data-v=\"1\">", "</tbody>").replaceAll("<td><input[^>]*></td>", "")
                    .replaceAll("loaded [0-9T:.Z-]+", "loaded L").replaceAll("\"num\">-?[0-9]+", "\"num\">SK")).isEqualTo(
                    "<tbody><tr class=\"\" data-v=\"1\"><td>1</td><td>2025-01-01T00:00:00Z</td><td>2025-02-01T00:00:00Z</td><td>closed</td>"
                            + "<td class=\"\">free</td><td class=\"num\">SK</td><td class=\"meta\">crm.span p0 @1 · loaded L</td></tr>"
                            + "<tr class=\"current\" data-v=\"2\"><td>2</td><td>2025-02-01T00:00:00Z</td><td>open</td><td>current</td>"
                            + "<td class=\"changed\">pro</td><td class=\"num\">SK</td><td class=\"meta\">crm.span p0 @3 · loaded L</td></tr></tbody>");
            JsonNode api = JSON.readTree(b.get("/api/history/span?k=K1", "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN).body());
            api.at("/history/versions").forEach(v -> ((ObjectNode) v.get("lineage")).remove("loaded_at"));
            // transaction time: when each version was written (KnownAtPagesTest compares it); never corrected here
            api.at("/history/versions").forEach(v -> ((ObjectNode) v.get("known")).put("known_from", "-"));
            // the JSON twin says open as for NULL: valid_to null
            assertThat(api.at("/history/versions").toString()).isEqualTo("[{\"number\":1,\"valid_from\":\"2025-01-01T00:00:00Z\","
                    + "\"valid_to\":\"2025-02-01T00:00:00Z\",\"is_current\":false,\"is_deleted\":false,\"late\":false,"
                    + "\"surrogate_key\":5557321430960589939,\"record_hash\":\"580d0b182d5c3a39bc84c4446f6c8c5cba59df25c0c1a539a7a567fe78644502\","
                    + "\"values\":{\"id\":\"K1\",\"plan\":\"free\"},\"changed\":[],\"lineage\":{\"topic\":\"crm.span\",\"partition\":0,"
                    + "\"offset\":1}," + KNOWN + "},{\"number\":2,\"valid_from\":\"2025-02-01T00:00:00Z\",\"valid_to\":null,\"is_current\":true,"
                    + "\"is_deleted\":false,\"late\":false,\"surrogate_key\":5465842046643895758,"
                    + "\"record_hash\":\"78c600cc92250fbc827a14d8fab2966214f069aa3c6882d007c1e23586fec574\",\"values\":{\"id\":\"K1\","
                    + "\"plan\":\"pro\"},\"changed\":[\"plan\"],\"lineage\":{\"topic\":\"crm.span\",\"partition\":0,\"offset\":3},"
                    + KNOWN + "}]");
        });
    }

    @Test
    void theAsOfTableAndItsCsvShowInfinityAsStored() {
        asViewer(b -> {
            String html = main(b.get("/asof/span?at=2025-02-15T00:00:00Z"));
            assertThat(between(html, "<table", "</table>")).isEqualTo("<table class=\"grid\" id=\"asof-table\"><thead><tr><th>id</th>"
                    + "<th>plan</th><th>valid_from</th><th>valid_to</th></tr></thead><tbody><tr class=\"changed-since-step\"><td>K1</td>"
                    + "<td>pro</td><td>2025-02-01T00:00:00Z</td><td>infinity</td></tr><tr><td>K2</td><td>free</td><td>2025-01-01T00:00:00Z</td>"
                    + "<td>2025-03-01T00:00:00Z</td></tr></tbody></table>");
            assertThat(b.get("/asof/span/csv?at=2025-02-15T00:00:00Z").body()).isEqualTo("id,plan,valid_from,valid_to\r\n"
                    + "K1,pro,2025-02-01T00:00:00Z,infinity\r\nK2,free,2025-01-01T00:00:00Z,2025-03-01T00:00:00Z\r\n");
            JsonNode api = JSON.readTree(b.get("/api/asof/span?at=2025-02-15T00:00:00Z", "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN).body());
            assertThat(api.get("rows").toString()).isEqualTo("[{\"id\":\"K1\",\"plan\":\"pro\",\"valid_from\":\"2025-02-01T00:00:00Z\","
                    + "\"valid_to\":\"infinity\"},{\"id\":\"K2\",\"plan\":\"free\",\"valid_from\":\"2025-01-01T00:00:00Z\","
                    + "\"valid_to\":\"2025-03-01T00:00:00Z\"}]");
            JsonNode diff = JSON.readTree(b.get("/api/diff/span?from=2025-02-15T00:00:00Z&to=2025-03-15T00:00:00Z", "Authorization",
                    "Bearer " + AdminFixture.VIEWER_TOKEN).body());
            // K2 deleted in between, K1 the same open version on both sides
            assertThat(diff.toString()).isEqualTo("{\"entity\":\"span\",\"from\":\"2025-02-15T00:00:00Z\",\"to\":\"2025-03-15T00:00:00Z\","
                    + "\"zone\":\"UTC\",\"from_local\":\"2025-02-15T00:00:00\",\"to_local\":\"2025-03-15T00:00:00\",\"attribute_columns\":[\"plan\"],"
                    + "\"summary\":{\"added\":0,\"removed\":1,\"changed\":0,\"columns\":[{\"column\":\"plan\",\"keys\":0}]},\"added\":[],"
                    + "\"removed\":[{\"key\":{\"id\":\"K2\"},\"link\":\"?k=K2&from=2025-02-15T00%3A00%3A00Z&to=2025-03-17T19%3A12%3A00Z\","
                    + "\"before\":{\"plan\":\"free\"},\"after\":null,\"changed_columns\":[]}],\"changed\":[],\"truncated\":false,"
                    + "\"default_note\":null}");
        });
    }

    private static final ObjectMapper JSON = new ObjectMapper();
}
