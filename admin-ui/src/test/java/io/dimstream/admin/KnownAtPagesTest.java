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
import io.dimstream.db.schema.TransactionTimeDdl;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The history page "as known at" ({@code known=}) and its corrections list, on an entity of its own
 * ({@code belief}): key K1 written in three transactions, T1 (January free, March pro), T2 (May gold,
 * in order: March's version closed in place), T3 (a late February event, basic, that rewrites
 * January's closed version). The transaction times (and {@code loaded_at}) are then moved to fixed
 * instants, T1 = 2025-06-01, T2 = 2025-06-02, T3 = 2025-06-03 (midnight UTC), so the pages compare
 * whole. Entity {@code plain} keeps no transaction time.
 */
class KnownAtPagesTest {

    static final Instant NOW = Instant.parse("2025-07-01T00:00:00Z");
    static final String ENTITIES = """
              - name: belief
                topic: crm.belief
                table: ui_belief
                key: [id]
                tracked: [plan]
                type1: [seen]
                lateness-horizon: unlimited
                columns: {id: text, plan: text, seen: bigint}
              - name: plain
                topic: crm.plain
                table: ui_plain
                key: [id]
                tracked: [plan]
                lateness-horizon: unlimited
                transaction-time: false
                columns: {id: text, plan: text}
            """;

    private static AdminFixture f;
    private static DimstreamConfig config;
    /** valid_from of each of K1's versions now: its surrogate key and record hash (a superseded image has its version's). */
    private static final Map<String, VersionRow> NOW_ROWS = new LinkedHashMap<>();

    static Event ev(String entity, long seq, String t, String plan, Long seen) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", "K1");
        d.put("plan", plan);
        if (seen != null) {
            d.put("seen", seen);
        }
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("crm." + entity, 0, seq));
    }

    @BeforeAll
    static void writeInThreeTransactions() throws Exception {
        f = AdminFixture.get();
        config = f.configWith(ENTITIES, "");
        EntitySpec belief = config.entity("belief").toEntitySpec();
        EntitySpec plain = config.entity("plain").toEntitySpec();
        EntityTables.ensure(f.ds, belief);
        EntityTables.ensure(f.ds, plain);
        Scd2Writer w = new Scd2Writer(f.ds);
        w.apply(belief, List.of(ev("belief", 1, "2025-01-01T00:00:00Z", "free", 1L), ev("belief", 2, "2025-03-01T00:00:00Z", "pro", 2L)));
        w.apply(belief, List.of(ev("belief", 3, "2025-05-01T00:00:00Z", "gold", 3L)));
        w.apply(belief, List.of(ev("belief", 4, "2025-02-01T00:00:00Z", "basic", 4L)));
        w.apply(plain, List.of(ev("plain", 1, "2025-01-01T00:00:00Z", "free", null)));
        fixTransactionTimes();
        for (VersionRow r : new HistoryQueries(f.ds).history(belief, List.of("K1"))) {
            NOW_ROWS.put(r.validFrom().toString(), r);
        }
    }

    /** The three real transaction times, in order, become 2025-06-01, -02, -03 in every stamp and in the superseded images. */
    private static void fixTransactionTimes() throws Exception {
        try (Connection c = f.ds.getConnection()) {
            c.setAutoCommit(false);
            List<OffsetDateTime> real = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT known_from FROM ui_belief UNION SELECT known_from FROM ui_belief_superseded "
                    + "ORDER BY 1"); ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    real.add(rs.getObject(1, OffsetDateTime.class));
                }
            }
            assertThat(real).hasSize(3);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT set_config('" + TransactionTimeDdl.FORGET + "', 'on', true)");
            }
            for (int i = 0; i < real.size(); i++) {
                OffsetDateTime fixed = OffsetDateTime.parse("2025-06-0" + (i + 1) + "T00:00:00Z");
                for (String sql : List.of("UPDATE ui_belief SET known_from = ? WHERE known_from = ?",
                        "UPDATE ui_belief SET end_known_from = ? WHERE end_known_from = ?",
                        "UPDATE ui_belief SET loaded_at = ? WHERE loaded_at = ?",
                        "UPDATE ui_belief_superseded SET known_from = ? WHERE known_from = ?",
                        "UPDATE ui_belief_superseded SET end_known_from = ? WHERE end_known_from = ?",
                        "UPDATE ui_belief_superseded SET known_to = ? WHERE known_to = ?",
                        "UPDATE ui_belief_superseded SET row_image = row_image || jsonb_build_object('loaded_at', ?::timestamptz) "
                                + "WHERE (row_image->>'loaded_at')::timestamptz = ?")) {
                    try (PreparedStatement p = c.prepareStatement(sql)) {
                        p.setObject(1, fixed);
                        p.setObject(2, real.get(i));
                        p.executeUpdate();
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE ui_belief_superseded SET row_image = row_image || jsonb_build_object('known_from', known_from, "
                        + "'end_known_from', end_known_from)");
            }
            c.commit();
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
        return body.substring(body.indexOf("<main id=\"main\" tabindex=\"-1\">"), body.indexOf("</main>")).replaceAll(">\\s+<", "><");
    }

    /** The text of each row of the table with {@code id} (header included), cells separated by one space. */
    private static List<String> rows(String html, String id) {
        int start = html.indexOf("<table class=\"grid\" id=\"" + id + "\">");
        assertThat(start).as("table " + id).isNotNegative();
        String table = html.substring(start, html.indexOf("</table>", start));
        List<String> out = new ArrayList<>();
        for (String tr : table.split("<tr")) {
            if (tr.contains("</t")) {
                out.add(tr.replaceAll("<[^>]*>", " ").replaceAll("^[^>]*>", "").replace("&amp;", "&").replaceAll("\\s+", " ").strip());
            }
        }
        return out;
    }

    /** The version lane's segments: class and title. */
    private static List<String> lane(String html) {
        String g = html.substring(html.indexOf("<g class=\"lane versions\""), html.indexOf("</g>", html.indexOf("<g class=\"lane versions\"")));
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("<rect class=\"([^\"]+)\"[^>]*><title>([^<]*)</title>").matcher(g);
        while (m.find()) {
            out.add(m.group(1) + ": " + m.group(2));
        }
        return out;
    }

    private static long sk(String validFrom) {
        return NOW_ROWS.get(validFrom).surrogateKey();
    }

    private static final String HEAD = "A B # valid_from valid_to state plan seen surrogate_key lineage";
    private static final String CORRECTIONS_HEAD = "# valid_from valid_to state plan believed replaced by";
    private static final String CORRECTION_1 = "1 2025-01-01T00:00:00Z 2025-03-01T00:00:00Z closed free 2025-06-01T00:00:00Z .. 2025-06-03T00:00:00Z "
            + "2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z closed · crm.belief p0 @1 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z closed · crm.belief p0 @4";

    @Test
    void nowTheCorrectingVersionsAreMarkedAndTheCorrectionListsWhatReplacedTheSupersededImage() {
        asViewer(b -> {
            String html = main(b.get("/history/belief?k=K1"));
            assertThat(rows(html, "versions")).containsExactly(HEAD,
                    "1 2025-01-01T00:00:00Z 2025-02-01T00:00:00Z closed correction #1 free 1 " + sk("2025-01-01T00:00:00Z")
                            + " crm.belief p0 @1 · loaded 2025-06-03T00:00:00Z",
                    "2 2025-02-01T00:00:00Z 2025-03-01T00:00:00Z closed late-placed correction #1 basic 4 " + sk("2025-02-01T00:00:00Z")
                            + " crm.belief p0 @4 · loaded 2025-06-03T00:00:00Z",
                    "3 2025-03-01T00:00:00Z 2025-05-01T00:00:00Z closed pro 2 " + sk("2025-03-01T00:00:00Z")
                            + " crm.belief p0 @2 · loaded 2025-06-02T00:00:00Z",
                    "4 2025-05-01T00:00:00Z open current gold 3 " + sk("2025-05-01T00:00:00Z") + " crm.belief p0 @3 · loaded 2025-06-02T00:00:00Z");
            assertThat(rows(html, "corrections")).containsExactly(CORRECTIONS_HEAD, CORRECTION_1);
            assertThat(html).contains("<tr id=\"correction-1\">").contains("<a class=\"corr-tag\" href=\"#correction-1\">correction #1</a>");
            assertThat(lane(html)).containsExactly(
                    "seg closed corrected: v1 closed, correction #1: 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z",
                    "seg closed late corrected: v2 closed, late-placed, correction #1: 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z",
                    "seg closed: v3 closed: 2025-03-01T00:00:00Z .. 2025-05-01T00:00:00Z",
                    "seg current: v4 current: 2025-05-01T00:00:00Z .. open");
            // the control, no banner: the page is the table as it is now
            assertThat(html).contains("<form method=\"get\" action=\"/history/belief\" id=\"known-form\" class=\"filters\">"
                    + "<input type=\"hidden\" name=\"k\" value=\"K1\"><label for=\"known\">As known at</label>"
                    + "<input type=\"text\" name=\"known\" id=\"known\" size=\"30\" value=\"\" aria-describedby=\"known-help\">"
                    + "<button type=\"submit\" id=\"known-button\">Show</button>").doesNotContain("id=\"known-banner\"");
        });
    }

    @Test
    void asKnownAfterEachTransactionTheVersionsTheTableHeldThenWithTheOneCorrectedLaterMarked() {
        asViewer(b -> {
            String afterT1 = main(b.get("/history/belief?k=K1&known=2025-06-01T12:00:00Z"));
            assertThat(rows(afterT1, "versions")).containsExactly(HEAD,
                    "1 2025-01-01T00:00:00Z 2025-03-01T00:00:00Z closed corrected later (#1) free 1 " + sk("2025-01-01T00:00:00Z")
                            + " crm.belief p0 @1 · loaded 2025-06-01T00:00:00Z",
                    // loaded_at is when the row was last written: T2 closed it
                    "2 2025-03-01T00:00:00Z open current pro 2 " + sk("2025-03-01T00:00:00Z") + " crm.belief p0 @2 · loaded 2025-06-02T00:00:00Z");
            assertThat(lane(afterT1)).containsExactly(
                    "seg closed corrected: v1 closed, corrected later (#1): 2025-01-01T00:00:00Z .. 2025-03-01T00:00:00Z",
                    "seg current: v2 current: 2025-03-01T00:00:00Z .. open");
            assertThat(rows(afterT1, "corrections")).containsExactly(CORRECTIONS_HEAD, CORRECTION_1);
            assertThat(afterT1).contains("<p class=\"notice\" id=\"known-banner\">As known at <span id=\"known-instant\">2025-06-01T12:00:00Z</span>: "
                    + "the key's history as the table stood then (corrections made later not applied, versions closed later shown open). "
                    + "<a id=\"known-now\" href=\"/history/belief?k=K1\">Back to now</a></p>")
                    .contains("<input type=\"text\" name=\"known\" id=\"known\" size=\"30\" value=\"2025-06-01T12:00:00Z\" aria-describedby=\"known-help\">");

            // a date is midnight UTC: 2025-06-02 is T2 itself, whose rows are known from then on
            String afterT2 = main(b.get("/history/belief?k=K1&known=2025-06-02"));
            assertThat(rows(afterT2, "versions")).containsExactly(HEAD,
                    "1 2025-01-01T00:00:00Z 2025-03-01T00:00:00Z closed corrected later (#1) free 1 " + sk("2025-01-01T00:00:00Z")
                            + " crm.belief p0 @1 · loaded 2025-06-01T00:00:00Z",
                    "2 2025-03-01T00:00:00Z 2025-05-01T00:00:00Z closed pro 2 " + sk("2025-03-01T00:00:00Z")
                            + " crm.belief p0 @2 · loaded 2025-06-02T00:00:00Z",
                    "3 2025-05-01T00:00:00Z open current gold 3 " + sk("2025-05-01T00:00:00Z") + " crm.belief p0 @3 · loaded 2025-06-02T00:00:00Z");

            // at T3 and after: the table as it is now
            assertThat(rows(main(b.get("/history/belief?k=K1&known=2025-06-03T00:00")), "versions"))
                    .isEqualTo(rows(main(b.get("/history/belief?k=K1")), "versions"));
            // before T1 the key was not known
            assertThat(main(b.get("/history/belief?k=K1&known=2025-05-01"))).contains(
                    "<p class=\"meta\" id=\"message\">No version of key K1 as known at 2025-05-01T00:00:00Z.</p>");
        });
    }

    @Test
    void theKnownFormKeepsTheKeyWindowAndComparedVersionsAndEveryLinkKeepsTheInstant() {
        asViewer(b -> {
            String html = main(b.get("/history/belief?k=K1&known=2025-06-02T12:00:00Z&from=2025-01-01&to=2025-06-01&a=1&b=2"));
            assertThat(html).contains("<form method=\"get\" action=\"/history/belief\" id=\"known-form\" class=\"filters\">"
                    + "<input type=\"hidden\" name=\"k\" value=\"K1\"><input type=\"hidden\" name=\"from\" value=\"2025-01-01T00:00:00Z\">"
                    + "<input type=\"hidden\" name=\"to\" value=\"2025-06-01T00:00:00Z\"><input type=\"hidden\" name=\"a\" value=\"1\">"
                    + "<input type=\"hidden\" name=\"b\" value=\"2\"><label for=\"known\">As known at</label>");
            assertThat(html).contains("<a id=\"known-now\" href=\"/history/belief?k=K1&amp;from=2025-01-01T00%3A00%3A00Z&amp;"
                    + "to=2025-06-01T00%3A00%3A00Z&amp;a=1&amp;b=2\">Back to now</a>");
            assertThat(html).contains("<a id=\"whole\" href=\"/history/belief?k=K1&amp;a=1&amp;b=2&amp;known=2025-06-02T12%3A00%3A00Z\">");
            assertThat(html).contains("<input type=\"hidden\" name=\"k\" value=\"K1\"><input type=\"hidden\" name=\"from\" value=\"2025-01-01T00:00:00Z\">"
                    + "<input type=\"hidden\" name=\"to\" value=\"2025-06-01T00:00:00Z\"><input type=\"hidden\" name=\"known\" value=\"2025-06-02T12:00:00Z\">");
            // the comparison is of the versions as known then: v1 is the image later corrected
            assertThat(html).contains("<tr class=\"period\"><th scope=\"row\">valid_to</th><td class=\"changed\">2025-03-01T00:00:00Z</td>"
                    + "<td class=\"changed\">2025-05-01T00:00:00Z</td></tr>");
        });
    }

    @Test
    void withoutTransactionTimeThereIsNoControlNoCorrectionsAndKnownIsRefused() {
        asViewer(b -> {
            String html = main(b.get("/history/plain?k=K1"));
            assertThat(html).doesNotContain("known-form").doesNotContain("corrections-section").contains("<td>1</td>");
            Map<String, String> actual = new LinkedHashMap<>();
            for (String q : List.of("belief?k=K1&known=nope", "belief?k=K1&known=2025-13-01", "plain?k=K1&known=2025-06-01", "plain?known=2025-06-01")) {
                HttpResponse<String> r = b.get("/api/history/" + q, "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN);
                actual.put(q, r.statusCode() + " " + JSON.readTree(r.body()).path("error").asText());
            }
            String notKept = "400 known: entity plain does not keep transaction time (transaction-time: false), so its history as known at an "
                    + "earlier instant is not recorded; leave out known";
            assertThat(actual).containsExactly(
                    Map.entry("belief?k=K1&known=nope", "400 known: not an instant (e.g. 2025-01-01T00:00:00Z, 2025-01-01T00:00 UTC, or 2025-01-01): \"nope\""),
                    Map.entry("belief?k=K1&known=2025-13-01", "400 known: not an instant (e.g. 2025-01-01T00:00:00Z, 2025-01-01T00:00 UTC, or 2025-01-01): \"2025-13-01\""),
                    Map.entry("plain?k=K1&known=2025-06-01", notKept),
                    Map.entry("plain?known=2025-06-01", notKept));
            assertThat(b.get("/history/plain?k=K1&known=2025-06-01").statusCode()).isEqualTo(400);
        });
    }

    @Test
    void theJsonTwinAsKnownAtAnInstantWhole() {
        asViewer(b -> {
            JsonNode api = JSON.readTree(b.get("/api/history/belief?k=K1&known=2025-06-02T12:00:00Z", "Authorization",
                    "Bearer " + AdminFixture.VIEWER_TOKEN).body());
            String version = "{'number':%d,'valid_from':'%s','valid_to':%s,'is_current':%s,'is_deleted':false,'late':false,'surrogate_key':%d,"
                    + "'record_hash':'%s','values':{'id':'K1','plan':'%s','seen':%d},'changed':%s,"
                    + "'lineage':{'topic':'crm.belief','partition':0,'offset':%d,'loaded_at':'%s'},"
                    + "'known':{'known_from':'%s','known_to':%s,'corrected_by':%s,'corrects':[]}}";
            String expected = "{'entity':'belief','key_columns':['id'],'query':'','keys':[],'more_keys':false,"
                    + "'history':{'entity':'belief','key':{'id':'K1'},'key_columns':['id'],'attribute_columns':['plan','seen'],"
                    + "'tracked_columns':['plan'],'type1_columns':['seen'],'versions':["
                    + version.formatted(1, "2025-01-01T00:00:00Z", "'2025-03-01T00:00:00Z'", false, sk("2025-01-01T00:00:00Z"),
                            hash("2025-01-01T00:00:00Z"), "free", 1, "[]", 1, "2025-06-01T00:00:00Z", "2025-06-01T00:00:00Z", "'2025-06-03T00:00:00Z'", 1) + ","
                    + version.formatted(2, "2025-03-01T00:00:00Z", "'2025-05-01T00:00:00Z'", false, sk("2025-03-01T00:00:00Z"),
                            hash("2025-03-01T00:00:00Z"), "pro", 2, "['plan','seen']", 2, "2025-06-02T00:00:00Z", "2025-06-01T00:00:00Z", null, null) + ","
                    + version.formatted(3, "2025-05-01T00:00:00Z", null, true, sk("2025-05-01T00:00:00Z"),
                            hash("2025-05-01T00:00:00Z"), "gold", 3, "['plan','seen']", 3, "2025-06-02T00:00:00Z", "2025-06-02T00:00:00Z", null, null)
                    + "]},'window':{'from':'2025-01-01T00:00:00Z','to':'2025-07-01T00:00:00Z'},'a':null,'b':null,'compare':null,"
                    + "'quarantined':[],'dead_lettered':[],'message':null,'known':'2025-06-02T12:00:00Z','corrections':[{'number':1,"
                    + "'superseded':{'valid_from':'2025-01-01T00:00:00Z','valid_to':'2025-03-01T00:00:00Z','state':'closed','values':{'plan':'free'},"
                    + "'known_from':'2025-06-01T00:00:00Z','known_to':'2025-06-03T00:00:00Z','lineage':{'topic':'crm.belief','partition':0,'offset':1,"
                    + "'loaded_at':'2025-06-01T00:00:00Z'}},'replacements':["
                    + "{'valid_from':'2025-01-01T00:00:00Z','valid_to':'2025-02-01T00:00:00Z','state':'closed','values':{'plan':'free'},"
                    + "'known_from':'2025-06-03T00:00:00Z','known_to':null,'lineage':{'topic':'crm.belief','partition':0,'offset':1,"
                    + "'loaded_at':'2025-06-03T00:00:00Z'}},"
                    + "{'valid_from':'2025-02-01T00:00:00Z','valid_to':'2025-03-01T00:00:00Z','state':'closed','values':{'plan':'basic'},"
                    + "'known_from':'2025-06-03T00:00:00Z','known_to':null,'lineage':{'topic':'crm.belief','partition':0,'offset':4,"
                    + "'loaded_at':'2025-06-03T00:00:00Z'}}]}]}";
            assertThat(api).isEqualTo(parse(expected));
        });
    }

    private static String hash(String validFrom) {
        return NOW_ROWS.get(validFrom).recordHash();
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode parse(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }
}
