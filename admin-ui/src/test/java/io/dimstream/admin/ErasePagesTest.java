package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * The erase form under a key's history (admin role only, CSRF, a confirmation) and its JSON twin:
 * the key's rows are gone, the other key's are whole, the outcome and the audit entry never name the key.
 */
class ErasePagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PASSWORD = "erase password 42";
    private static final String TOKEN = "erase-token-0123456789abcdef";
    private final DataSource ds = TestPostgres.dataSource();
    /** The entity {@link #server} made. */
    private EntitySpec spec;

    private static Event ev(long seq, int day, String id, long amount) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("amount", amount);
        return Event.upsert(Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofDays(day)), d, seq, Source.kafka("fin.register", 0, seq));
    }

    private AdminServer server(String entity) throws Exception {
        String hash = new BCryptPasswordEncoder(4).encode(PASSWORD);
        DimstreamConfig config = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - name: %2$s
                    topic: fin.register
                    table: ui_%2$s
                    key: [id]
                    tracked: [amount]
                    lateness-horizon: P30D
                    columns: {id: text, amount: bigint}
                admin:
                  users:
                    - {name: erin, role: admin, password-hash: "%1$s"}
                    - {name: vic, role: viewer, password-hash: "%1$s"}
                  api-tokens:
                    - {name: ops-bot, role: admin, token: "${ADMIN_TOKEN}"}
                """.formatted(hash, entity), "erase test config", Map.of("ADMIN_TOKEN", TOKEN));
        spec = config.entity(entity).toEntitySpec();
        EntityTables.ensure(ds, spec);
        new Scd2Writer(ds).apply(spec, events());
        return new AdminServer(config, ds, new AdminSettings(OptionalInt.of(0), null, Clock.systemUTC()));
    }

    /** R1: three versions, a late event and one quarantined; R2: two versions. */
    private static List<Event> events() {
        return List.of(ev(1, 0, "R1", 10), ev(2, 5, "R1", 20), ev(3, 2, "R1", 15), ev(4, 90, "R1", 30), ev(5, 10, "R1", 40),
                ev(6, 0, "R2", 7), ev(7, 3, "R2", 8));
    }

    private static List<Event> of(String key) {
        return events().stream().filter(e -> e.data().get("id").equals(key)).toList();
    }

    @Test
    void anAdminErasesTheShownKeyAfterConfirmingAndAViewerSeesNoForm() throws Exception {
        AdminServer server = server("erase_form");
        JavalinTest.test(server.app(), (app, client) -> {
            Browser viewer = new Browser(client.getOrigin());
            viewer.login("vic", PASSWORD);
            assertThat(viewer.get("/history/erase_form?k=R1").body()).contains("id=\"key-title\"").doesNotContain("erase-form");

            Browser b = new Browser(client.getOrigin());
            b.login("erin", PASSWORD);
            String page = b.get("/history/erase_form?k=R1").body();
            assertThat(page).contains("<form method=\"post\" action=\"/history/erase_form/erase\" id=\"erase-form\">")
                    .contains("<input type=\"hidden\" name=\"k\" value=\"R1\">")
                    .contains("<input type=\"checkbox\" name=\"confirm\" value=\"erase\" id=\"erase-confirm\" required>");
            String token = Browser.csrf(page);

            HttpResponse<String> unconfirmed = b.post("/history/erase_form/erase", Map.of("_csrf", token, "k", "R1"));
            assertThat(unconfirmed.statusCode()).isEqualTo(400);
            assertThat(unconfirmed.body()).contains("confirm: tick the confirmation (confirm=erase) to erase the key; nothing was erased");
            assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(withoutQuarantined()));

            HttpResponse<String> erased = b.post("/history/erase_form/erase", Map.of("_csrf", token, "k", "R1", "confirm", "erase"));
            assertThat(erased.statusCode()).isEqualTo(200);
            assertThat(erased.body()).contains("<p id=\"action-outcome\" class=\"notice\" data-outcome=\"erased\">A key of erase_form was "
                    + "erased by erin in one transaction: 9 rows removed or rewritten; its tombstone drops its events from now on. Kafka keeps "
                    + "its copies until compaction or retention removes them.</p>")
                    .contains("<tr><th scope=\"row\">versions</th><td class=\"num\">4</td></tr>")
                    .contains("<tr><th scope=\"row\">quarantine</th><td class=\"num\">1</td></tr>");
            // the erased key is named nowhere on the page (the CSRF tokens left out: a random token may hold "R1")
            assertThat(erased.body().replaceAll("value=\"[A-Za-z0-9_-]{43}\"", "value=\"TOKEN\"")).doesNotContain("R1");
            assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(of("R2")));
            assertThat(b.get("/history/erase_form?k=R1").body()).contains("No version of key R1.");
            List<AuditLog.Entry> audit = new AuditLog(ds).page("erin", "erase", null, 5);
            assertThat(audit.stream().map(e -> e.target() + " " + e.detail()).toList()).isEqualTo(List.of("entity:erase_form {\"keys\": 1, "
                    + "\"entity\": \"erase_form\", \"removed\": {\"versions\": 4, \"DLQ mirror\": 0, \"quarantine\": 1, \"event memory\": 4, "
                    + "\"sink rejects\": 0, \"audit entries\": 0, \"integrity findings\": 0, \"superseded versions\": 0, "
                    + "\"repair job key lists\": 0, \"shadow and retired tables\": 0}, \"tombstones\": 1}"));
        });
    }

    private static List<Event> withoutQuarantined() {
        return events().stream().filter(e -> !(e.data().get("id").equals("R1") && e.seq() == 5)).toList();
    }

    @Test
    void theApiErasesAKeyWithoutATombstoneAndAnswersWhatItRemovedPerPlace() throws Exception {
        AdminServer server = server("erase_api");
        JavalinTest.test(server.app(), (app, client) -> {
            Browser api = new Browser(client.getOrigin());
            HttpResponse<String> r = api.post("/api/erase/erase_api", Map.of("k", "R2", "confirm", "erase", "no_tombstone", "on"),
                    "Authorization", "Bearer " + TOKEN);

            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode expected = JSON.readTree("""
                    {"entity": "erase_api", "keys": 1, "removed": {"versions": 2, "event memory": 2, "superseded versions": 0,
                     "shadow and retired tables": 0, "quarantine": 0, "sink rejects": 0, "DLQ mirror": 0, "repair job key lists": 0,
                     "audit entries": 0, "integrity findings": 0}, "total": 4, "tombstone": false, "tombstones": 0,
                     "message": "A key of erase_api was erased by ops-bot in one transaction: 4 rows removed or rewritten; no tombstone was kept: a replay of the topic brings the key back. Kafka keeps its copies until compaction or retention removes them."}
                    """);
            assertThat(JSON.readTree(r.body())).isEqualTo(expected);
        });
    }
}
