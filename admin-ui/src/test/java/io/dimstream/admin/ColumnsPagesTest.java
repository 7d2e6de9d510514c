package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Transactions;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code /columns/{entity}} and its JSON twin: an entity with configured columns (one with a
 * modifier, renamed system columns) and two columns the sink added while running, one of them
 * named like markup. Its own entity and tables, so the other admin tests' entities keep the
 * config's columns. One configured column's type is widened too.
 */
class ColumnsPagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOSTILE = "<img src=x onerror=alert(1)>";

    private static final String PEOPLE = """
              - name: people
                topic: crm.people
                table: ui_col_people
                key: [person_id]
                tracked: [name]
                type1: [score]
                lateness-horizon: unlimited
                schema-evolution: lenient
                new-columns: tracked
                columns: {person_id: text, name: varchar(40), score: "numeric(12,2)"}
                system-columns: {loaded_at: written_at}
            """;

    private static AdminFixture f;
    private static DimstreamConfig config;
    private static List<EvolvedColumns.Column> catalog;

    @BeforeAll
    static void addTwoColumnsWhileRunning() throws Exception {
        f = AdminFixture.get();
        config = f.configWith(PEOPLE, "");
        EntitySpec people = config.entity("people").toEntitySpec();
        EntityTables.ensure(f.ds, people);
        // two batches, as the sink adds them: vip first (type-1), the hostile name later (tracked)
        EntitySpec first = Transactions.inTransaction(f.ds, c -> EvolvedColumns.add(c, people,
                List.of(new EvolvedColumns.NewColumn("vip", ColumnType.BOOLEAN, false, "crm.people-1@7"))));
        Transactions.inTransaction(f.ds, c -> EvolvedColumns.add(c, first,
                List.of(new EvolvedColumns.NewColumn(HOSTILE, ColumnType.TEXT, true, "crm.people-0@42"))));
        // and a configured column's type widened: varchar(40) to varchar(80)
        Transactions.inTransaction(f.ds, c -> EvolvedColumns.widen(c, people, List.of(new EvolvedColumns.Widening("name",
                TypeWidening.ColumnDef.of(new TypeModifier.Length(80)), "crm.people-0@50"))));
        catalog = EvolvedColumns.list(f.ds, "people");
        assertThat(catalog).extracting(EvolvedColumns.Column::column).containsExactly("vip", HOSTILE, "name");
    }

    /** When the catalog says {@code column} was added. */
    private static Instant added(String column) {
        return catalog.stream().filter(c -> c.column().equals(column)).findFirst().orElseThrow().addedAt();
    }

    private static Instant widened() {
        return catalog.get(2).widenedAt().orElseThrow();
    }

    private void asViewer(Case c) {
        AdminServer server = new AdminServer(config, f.ds, new AdminSettings(OptionalInt.of(0), null,
                Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
        JavalinTest.test(server.app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("victor", AdminFixture.VIEWER_PASSWORD).statusCode()).isEqualTo(303);
            c.run(b);
        });
    }

    private interface Case {
        void run(Browser b) throws Exception;
    }

    @Test
    void pageListsEveryColumnInTheMergedOrderWithTypeRoleAndOriginAndEscapesTheHostileName() {
        asViewer(b -> {
            HttpResponse<String> r = b.get("/columns/people");
            assertThat(r.statusCode()).isEqualTo(200);
            String html = r.body();
            String rows = html.substring(html.indexOf("<tbody>"), html.indexOf("</tbody>") + "</tbody>".length());
            assertThat(rows).isEqualTo("<tbody>"
                    + row("config", "person_id", "text", "key", "config")
                    + row("config", "name", "character varying(80)", "tracked",
                            "config; type widened from character varying(40) at " + widened())
                    + row("added", "&lt;img src=x onerror=alert(1)&gt;", "text", "tracked",
                            "added while running at " + added(HOSTILE) + " from crm.people-0@42")
                    + row("config", "score", "numeric(12,2)", "type-1", "config")
                    + row("added", "vip", "boolean", "type-1", "added while running at " + added("vip") + " from crm.people-1@7")
                    + row("config", "surrogate_key", "bigint", "system column", "config")
                    + row("config", "valid_from", "timestamp with time zone", "system column", "config")
                    + row("config", "valid_to", "timestamp with time zone", "system column", "config")
                    + row("config", "is_current", "boolean", "system column", "config")
                    + row("config", "is_deleted", "boolean", "system column", "config")
                    + row("config", "record_hash", "bytea", "system column", "config")
                    + row("config", "source_topic", "text", "system column", "config")
                    + row("config", "source_partition", "integer", "system column", "config")
                    + row("config", "source_offset", "bigint", "system column", "config")
                    + row("config", "written_at", "timestamp with time zone", "system column", "config")
                    + row("config", "event_seq", "bigint", "system column", "config")
                    + row("config", "known_from", "timestamp with time zone", "system column", "config")
                    + row("config", "end_known_from", "timestamp with time zone", "system column", "config")
                    + "\n\n</tbody>");
            assertThat(html).doesNotContain(HOSTILE)
                    .contains("<p class=\"meta\" id=\"columns-summary\">Table ui_col_people: 18 columns, 2 added while running.")
                    .contains("<a href=\"/columns/people\" class=\"on\">columns</a>")
                    .contains("<a href=\"/columns/customer\" class=\"\">columns</a>");
        });
    }

    private static String row(String kind, String name, String type, String role, String origin) {
        return "\n\n  <tr class=\"origin-" + kind + "\"><td>" + name + "</td><td>" + type + "</td><td>" + role + "</td><td>"
                + origin + "</td></tr>";
    }

    @Test
    void jsonTwinIsTheSameRowsWithTheOriginsInstantAndSource() {
        asViewer(b -> {
            HttpResponse<String> r = b.get("/api/columns/people");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode actual = JSON.readTree(r.body());
            String hostile = HOSTILE.replace("'", "\\'");
            JsonNode expected = JSON.readTree(("{'entity':'people','table':'ui_col_people','columns':["
                    + config("person_id", "text", "key") + ","
                    + "{'name':'name','type':'character varying(80)','role':'tracked','origin':{'kind':'config','text':'config',"
                    + "'at':null,'source':null},'widened':{'from':'character varying(40)','at':'" + widened() + "','text':"
                    + "'type widened from character varying(40) at " + widened() + "'}},"
                    + "{'name':'" + hostile + "','type':'text','role':'tracked','origin':{'kind':'added','text':'added while running at "
                    + added(HOSTILE) + " from crm.people-0@42','at':'" + added(HOSTILE) + "','source':'crm.people-0@42'},'widened':null},"
                    + config("score", "numeric(12,2)", "type-1") + ","
                    + "{'name':'vip','type':'boolean','role':'type-1','origin':{'kind':'added','text':'added while running at "
                    + added("vip") + " from crm.people-1@7','at':'" + added("vip") + "','source':'crm.people-1@7'},'widened':null},"
                    + config("surrogate_key", "bigint", "system column") + ","
                    + config("valid_from", "timestamp with time zone", "system column") + ","
                    + config("valid_to", "timestamp with time zone", "system column") + ","
                    + config("is_current", "boolean", "system column") + ","
                    + config("is_deleted", "boolean", "system column") + ","
                    + config("record_hash", "bytea", "system column") + ","
                    + config("source_topic", "text", "system column") + ","
                    + config("source_partition", "integer", "system column") + ","
                    + config("source_offset", "bigint", "system column") + ","
                    + config("written_at", "timestamp with time zone", "system column") + ","
                    + config("event_seq", "bigint", "system column") + ","
                    + config("known_from", "timestamp with time zone", "system column") + ","
                    + config("end_known_from", "timestamp with time zone", "system column")
                    + "],'added_while_running':2}").replace('\'', '"'));
            assertThat(actual).isEqualTo(expected);
        });
    }

    private static String config(String name, String type, String role) {
        return "{'name':'" + name + "','type':'" + type + "','role':'" + role
                + "','origin':{'kind':'config','text':'config','at':null,'source':null},'widened':null}";
    }

    @Test
    void dashboardCountsTheColumnsAddedWhileRunningAndLinksToThem() {
        asViewer(b -> {
            HttpResponse<String> r = b.get("/api/dashboard");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode people = JSON.readTree(r.body()).at("/entities/0");
            assertThat(people.get("entity").asText()).isEqualTo("people");
            // the config declares 3 (person_id, name, score); the catalog adds 2
            assertThat(List.of(people.get("columns").asInt(), people.get("columns_added").asInt())).isEqualTo(List.of(5, 2));
            assertThat(b.get("/dashboard/table").body()).contains("<tr data-entity=\"people\">\n"
                    + "  <td><a href=\"/history/people\">people</a> <span class=\"meta\">ui_col_people</span></td>\n"
                    + "  <td class=\"num\" data-figure=\"columns\"><a href=\"/columns/people\">5 (2 added while running)</a></td>\n");
        });
    }

    @Test
    void anUnknownEntityIsNotFound() {
        asViewer(b -> {
            assertThat(b.get("/columns/nobody").statusCode()).isEqualTo(404);
            assertThat(b.get("/api/columns/nobody").body())
                    .isEqualTo("{\"error\":\"no entity named \\\"nobody\\\" (configured: people, customer, account, broken)\"}");
        });
    }
}
