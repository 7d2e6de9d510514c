package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.testtools.JavalinTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The dashboard's service state and charts against the known data of {@link AdminFixture}: whole fragments. */
class DashboardChartsTest {

    private final AdminFixture f = AdminFixture.get();
    private final Instant now = Instant.now();

    private static final DateTimeFormatter HM = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    private interface Case {
        void run(Browser b) throws Exception;
    }

    private void asAdmin(Case c) {
        AdminServer server = new AdminServer(f.config, f.ds, new AdminSettings(OptionalInt.of(0), null, Clock.fixed(now, ZoneOffset.UTC)));
        JavalinTest.test(server.app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            assertThat(b.login("alice", AdminFixture.ADMIN_PASSWORD).statusCode()).isEqualTo(303);
            c.run(b);
        });
    }

    /** The window of ?window=1h: 30 buckets of 2 min, the last one holding now. */
    private Instant start() {
        long end = Math.floorDiv(now.getEpochSecond(), 120) * 120 + 120;
        return Instant.ofEpochSecond(end - 3600);
    }

    private static String x(int i) {
        double v = Math.round((44 + 308.0 * i / 29) * 10) / 10.0;
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** The figure titled {@code title} of the entity's charts. */
    private static String figure(String html, String entity, String title) {
        int from = html.indexOf("<div class=\"entity-charts\" data-entity=\"" + entity + "\">");
        assertThat(from).as("charts of " + entity).isPositive();
        int at = html.indexOf("<figure class=\"chart\">\n<figcaption>" + title + " ", from);
        return html.substring(at, html.indexOf("</figure>", at) + "</figure>".length());
    }

    @Test
    void anEntityWithoutBatchesHasFlatZeroLinesOverTheWholeWindow() {
        asAdmin(b -> {
            String html = b.get("/?window=1h").body();
            Instant start = start();
            StringBuilder path = new StringBuilder();
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < 30; i++) {
                path.append(i == 0 ? "M" : " L").append(x(i)).append(" 128");
                points.append("<circle cx=\"").append(x(i)).append("\" cy=\"128\" r=\"2\"><title>")
                        .append(HM.format(start.plusSeconds(120L * i))).append(" rows changed: 0 rows</title></circle>");
            }
            assertThat(figure(html, "broken", "Rows changed")).isEqualTo("<figure class=\"chart\">\n"
                    + "<figcaption>Rows changed <span class=\"meta\">(rows)</span></figcaption>\n"
                    + "<svg class=\"chart\" role=\"img\" aria-label=\"broken: Rows changed (rows) over time: rows changed; axis 0 to 1\" "
                    + "viewBox=\"0 0 360 150\" width=\"360\" height=\"150\">\n"
                    + "<line class=\"axis\" x1=\"44\" y1=\"128\" x2=\"352\" y2=\"128\"/>\n"
                    + "<line class=\"axis\" x1=\"44\" y1=\"8\" x2=\"44\" y2=\"128\"/>\n"
                    + "<line class=\"grid\" x1=\"44\" y1=\"128\" x2=\"352\" y2=\"128\"/><text class=\"ytick\" x=\"40\" y=\"128\">0</text>\n"
                    + "<line class=\"grid\" x1=\"44\" y1=\"68\" x2=\"352\" y2=\"68\"/><text class=\"ytick\" x=\"40\" y=\"68\">0.5</text>\n"
                    + "<line class=\"grid\" x1=\"44\" y1=\"8\" x2=\"352\" y2=\"8\"/><text class=\"ytick\" x=\"40\" y=\"8\">1</text>\n"
                    + "<text class=\"xtick\" x=\"44\" y=\"144\">" + HM.format(start) + "</text>\n"
                    + "<text class=\"xtick\" x=\"" + x(14) + "\" y=\"144\">" + HM.format(start.plusSeconds(120L * 14)) + "</text>\n"
                    + "<text class=\"xtick\" x=\"352\" y=\"144\">" + HM.format(start.plusSeconds(120L * 29)) + "</text>\n"
                    + "<g class=\"series-rows\"><path d=\"" + path + "\"/>" + points + "</g>\n"
                    + "</svg>\n"
                    + "<ul class=\"legend\"><li class=\"series-rows\"><span>rows changed</span></li></ul>\n"
                    + "</figure>");
        });
    }

    @Test
    void theSinksBatchesAreInTheirBucketsAndTheServiceStateIsAtTheTop() {
        asAdmin(b -> {
            // the fixture's two customer batches: 7 and 2 rows changed, at the time the sink wrote them
            long[] rows = new long[30];
            Instant start = start();
            try (Connection c = f.ds.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT finished_at, rows_inserted + rows_updated + rows_deleted FROM dimstream.sink_batches "
                         + "WHERE entity = 'customer'")) {
                while (rs.next()) {
                    Instant t = rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
                    rows[(int) ((t.getEpochSecond() - start.getEpochSecond()) / 120)] += rs.getLong(2);
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add(HM.format(start.plusSeconds(120L * i)) + " rows changed: " + rows[i] + " rows");
            }
            // other test classes in this JVM (ActionsPagesTest) record sink gaps in the shared database
            long gaps;
            try (Connection c = f.ds.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM dimstream.sink_gaps")) {
                rs.next();
                gaps = rs.getLong(1);
            }
            String html = b.get("/?window=1h").body();
            List<String> titles = new ArrayList<>();
            Matcher m = Pattern.compile("<title>([^<]*)</title>").matcher(figure(html, "customer", "Rows changed"));
            while (m.find()) {
                titles.add(m.group(1));
            }
            assertThat(titles).isEqualTo(expected);
            assertThat(java.util.Arrays.stream(rows).sum()).isEqualTo(9);

            assertThat(html).contains("<li data-health=\"stuck\" class=\"\">stuck partitions (records left, nothing committed for 5 min): none</li>")
                    .contains("<li data-health=\"gaps\" class=\"" + (gaps > 0 ? "error" : "") + "\">skipped ranges (sink gaps): " + gaps + "</li>")
                    .contains("<nav class=\"windows\" aria-label=\"chart window\">window: <a href=\"/?window=15m\">15m</a> "
                            + "<strong aria-current=\"page\">1h</strong> <a href=\"/?window=6h\">6h</a> <a href=\"/?window=24h\">24h</a> "
                            + "<a href=\"/?window=7d\">7d</a>\n");
            assertThat(html).doesNotContain("style=\"").doesNotContain("<script>");
            // the JSON twin: the buckets themselves; the broken entity's are all zeros
            var api = new com.fasterxml.jackson.databind.ObjectMapper().readTree(b.get("/api/dashboard/trends?window=1h").body());
            assertThat(api.get("window").asText()).isEqualTo("1h");
            assertThat(api.get("end").asText()).isEqualTo(start.plusSeconds(3600).toString());
            assertThat(api.at("/entities/broken").size()).isEqualTo(30);
            assertThat(api.at("/entities/broken/29")).isEqualTo(new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                    "{\"start\":\"" + start.plusSeconds(120L * 29) + "\",\"batches\":0,\"new_keys\":0,\"changed\":0,\"deleted\":0,"
                    + "\"unchanged\":0,\"late\":0,\"duplicates\":0,\"quarantined\":0,\"rejected\":0,\"rows_changed\":0,"
                    + "\"max_lag\":null,\"p50_apply_ms\":null,\"max_apply_ms\":null,\"dlq_inflow\":0,\"quarantine_inflow\":0}"));
            List<Long> rowsApi = new ArrayList<>();
            api.at("/entities/customer").forEach(n -> rowsApi.add(n.get("rows_changed").asLong()));
            assertThat(rowsApi).isEqualTo(java.util.Arrays.stream(rows).boxed().toList());
            var bad = b.get("/?window=2h");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("<p class=\"error\" id=\"error-message\">window: '2h' is not one of 15m, 1h, 6h, 24h, 7d</p>");
        });
    }
}
