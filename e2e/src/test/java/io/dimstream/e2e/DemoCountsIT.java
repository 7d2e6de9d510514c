package io.dimstream.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.admin.AdminServer;
import io.dimstream.admin.AdminSettings;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.demo.StreamingDemo;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.DimstreamConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's summary and the admin dashboard count the same things (issue 30: for the same burst
 * the dashboard said late 2 and duplicate 32, the summary late 100 and duplicate 57). What
 * {@code ./dimstream demo} runs: its bundled config, {@link StreamingDemo}'s seeded burst of 3000
 * events (its default), the summary {@code DemoCommand} prints, and the admin over the same
 * PostgreSQL, whose dashboard is read through its JSON twin ({@code /api/dashboard}).
 *
 * <p>The summary's events by class, as the sink applied them, must be the dashboard's map of the
 * entity, whole. What never reached the sink (dropped by the topology as exact duplicates, sent to
 * the DLQ) is on a line of its own, and with the sink's classes it adds up to the burst: each of
 * the feed's re-deliveries is a duplicate once, either dropped by the topology or found by the
 * writer, and each malformed record is in the DLQ.
 */
class DemoCountsIT {

    private static final int EVENTS = 3000;
    private static final String PASSWORD = "demo counts password";
    private static final Pattern APPLIED = Pattern.compile(
            "(?m)^events by class, as the sink applied them to PostgreSQL \\(the admin dashboard's figures\\): (\\{.*})$");
    private static final Pattern BEFORE = Pattern.compile(
            "(?m)^events that never reached the sink, as the topology counted them \\(Prometheus dimstream_events_total\\): (\\{.*})$");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theSummaryCountsTheBurstByClassAsTheDashboardDoes(@TempDir Path dir) throws Exception {
        DimstreamConfig config = DimstreamConfig.parse(demoConfig(), "config demo/demo.yml (bundled)", Map.of());
        StreamingDemo demo = new StreamingDemo(config, dir.resolve("data"), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        StringWriter printed = new StringWriter();
        try (StreamingDemo.Running running = demo.start(new PrintWriter(printed), EVENTS)) {
            demo.report(new PrintWriter(printed), running, -1);
            String summary = printed.toString();

            AdminConfig adminConfig = new AdminConfig("127.0.0.1", 0, AdminConfig.DEFAULT_SESSION_TIMEOUT, false,
                    List.of(new AdminConfig.User("demo", AdminConfig.Role.ADMIN, Optional.empty(), Optional.of(PASSWORD))), List.of());
            DimstreamConfig withAdmin = new DimstreamConfig(config.kafka(), config.postgres(), config.entities(), config.batchSize(),
                    config.sink(), Optional.of(adminConfig));
            JsonNode dashboard;
            try (AdminServer.Running admin = AdminServer.start(withAdmin, running.service().database().dataSource(),
                    AdminSettings.onPort(0))) {
                dashboard = dashboardJson(admin.url());
            }
            JsonNode customer = dashboard.at("/entities/0");
            assertThat(customer.get("entity").asText()).isEqualTo("customer");
            Map<String, Long> onDashboard = JSON.convertValue(customer.get("events_last_hour"), new TypeReference<LinkedHashMap<String, Long>>() { });

            assertThat(line(APPLIED, summary)).as(summary).isEqualTo(onDashboard);

            Map<String, Long> beforeSink = line(BEFORE, summary);
            List<CustomerFeed.FeedRecord> feed = StreamingDemo.feed(EVENTS).next(EVENTS);
            long sinkTotal = onDashboard.values().stream().mapToLong(Long::longValue).sum();
            long beforeTotal = beforeSink.values().stream().mapToLong(Long::longValue).sum();
            assertThat(Map.of("events", sinkTotal + beforeTotal,
                    "duplicates", onDashboard.get("duplicate") + beforeSink.getOrDefault("duplicate", 0L),
                    "dlq", beforeSink.getOrDefault("dlq", 0L)))
                    .as(summary)
                    .isEqualTo(Map.of("events", (long) EVENTS,
                            "duplicates", feed.stream().filter(r -> r.kind().equals("duplicate")).count(),
                            "dlq", feed.stream().filter(r -> r.kind().equals("malformed")).count()));
        }
    }

    /** The map printed on the summary's line {@code pattern} matches, e.g. {@code {new=50, late=7}}. */
    private static Map<String, Long> line(Pattern pattern, String summary) {
        Matcher m = pattern.matcher(summary);
        assertThat(m.find()).as("a line matching %s in:%n%s", pattern, summary).isTrue();
        String body = m.group(1).substring(1, m.group(1).length() - 1);
        Map<String, Long> map = new LinkedHashMap<>();
        if (!body.isEmpty()) {
            for (String entry : body.split(", ")) {
                String[] kv = entry.split("=", 2);
                map.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        return map;
    }

    /** Logs in as the demo's admin (the login form, with its CSRF token) and reads {@code /api/dashboard}. */
    private static JsonNode dashboardJson(String base) throws Exception {
        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        String form = http.send(HttpRequest.newBuilder(URI.create(base + "login")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]*)\"").matcher(form);
        assertThat(csrf.find()).as(form).isTrue();
        String body = "_csrf=" + enc(csrf.group(1)) + "&next=%2F&username=demo&password=" + enc(PASSWORD);
        HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(base + "login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(login.statusCode()).as(login.body()).isEqualTo(303);
        HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create(base + "api/dashboard")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(api.statusCode()).as(api.body()).isEqualTo(200);
        return JSON.readTree(api.body());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String demoConfig() throws Exception {
        try (InputStream in = DemoCountsIT.class.getClassLoader().getResourceAsStream("demo/demo.yml")) {
            assertThat(in).as("the demo's bundled config (cli's demo/demo.yml)").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
