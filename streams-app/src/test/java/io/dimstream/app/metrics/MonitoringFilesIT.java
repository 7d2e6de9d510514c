package io.dimstream.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.sink.SinkMetrics;
import io.dimstream.app.topology.StreamThreadSupervisor;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard ({@code deploy/grafana/dashboards/dimstream.json}) and the Prometheus
 * alert rules ({@code deploy/prometheus/dimstream-alerts.yml}) name only metrics dimstream
 * exports: the whole service runs (embedded broker, PostgreSQL, Kafka Streams, the sink, the admin
 * workers) on a {@link PrometheusMeterRegistry}, takes good events and a record for the DLQ, and
 * the scrape's sample names are compared with every metric name in every PromQL expression of
 * both files. A renamed meter fails here instead of leaving a panel empty or an alert silent.
 */
class MonitoringFilesIT {

    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    static final Path RULES = DEPLOY.resolve("prometheus/dimstream-alerts.yml");
    static final Path DASHBOARD = DEPLOY.resolve("grafana/dashboards/dimstream.json");
    /** Series Prometheus itself makes for every target; not dimstream's to export. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up", "scrape_duration_seconds", "ALERTS");
    private static final String TOPIC = "monitoring.customers";

    private static Set<String> exported;

    @BeforeAll
    static void runTheServiceAndScrape(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)));
            DimstreamConfig config = DimstreamConfig.parse("""
                    kafka:
                      bootstrap-servers: %s
                    postgres:
                      url: %s
                    entities:
                      - name: customer
                        topic: %s
                        format: json
                        table: dim_customer_monitoring_it
                        key: [customer_id]
                        tracked: [email]
                        type1: [city]
                        columns: {customer_id: text, email: text, city: text}
                    """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), TOPIC), "test config", Map.of());
            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "monitoring-it", 2, Duration.ofHours(1));
            try (DimstreamService service = DimstreamService.start(config, options, registry)) {
                List<FeedFixtures.TextRecord> feed = List.of(
                        event("C1", "a@x", "2025-08-01T00:00:00Z"),
                        event("C2", "b@x", "2025-08-01T00:00:00Z"),
                        event("C1", "c@x", "2025-08-02T00:00:00Z"),
                        event("C1", "c@x", "2025-08-03T00:00:00Z"),
                        new FeedFixtures.TextRecord("C3", "not json"));
                FeedFixtures.produceText(kafka.bootstrapServers(), TOPIC, feed);
                assertThat(service.awaitCaughtUp(feed.size(), Duration.ofMinutes(2))).as("caught up").isTrue();
                // the gauges of the health probes and the sink lag are there once the first probe and poll ran
                await().atMost(Duration.ofSeconds(30)).until(() -> registry.scrape().contains("dimstream_health_ready 1.0"));
                // meters registered only when their fault happens (SinkIT, TopologyFailureTest and
                // StreamThreadSupervisorTest cause them for real): registered here by the same code
                SinkMetrics sink = new SinkMetrics(registry);
                sink.partitionFailure("customer", "other");
                sink.partitionStopped("customer");
                sink.gap("customer", 3);
                sink.offsetsRegressed("customer");
                new StreamThreadSupervisor(registry, "customer").handle(new IllegalStateException("test: a fatal cause"));
                // Micrometer registers jvm_gc_pause at the JVM's first GC notification: a short test JVM
                // (a large heap, the serial collector) may not have collected yet
                System.gc();
                await().atMost(Duration.ofSeconds(30)).until(() -> registry.scrape().contains("jvm_gc_pause_seconds_sum"));
                exported = sampleNames(registry.scrape());
            }
        }
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "exported-metrics.txt"), exported);
    }

    private static FeedFixtures.TextRecord event(String id, String email, String at) {
        return new FeedFixtures.TextRecord(id, "{\"op\":\"upsert\",\"event_time\":\"" + at + "\",\"data\":{\"customer_id\":\"" + id
                + "\",\"email\":\"" + email + "\",\"city\":\"Oslo\"}}");
    }

    /** The sample names of a scrape in the text format (_total, _count, _sum, _max, _bucket as they are). */
    static Set<String> sampleNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    @Test
    void theAlertRulesNameOnlyExportedMetrics() throws IOException {
        Map<String, Set<String>> unknown = new TreeMap<>();
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
        List<String> alerts = new ArrayList<>();
        for (JsonNode group : rules.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                alerts.add(rule.get("alert").asText());
                check(rule.get("alert").asText(), rule.get("expr").asText(), unknown);
            }
        }
        assertThat(alerts).as("alerts in " + RULES).contains("DimstreamNotReady", "DimstreamSinkPartitionStuck",
                "DimstreamReplayJobFailed", "DimstreamDeadLetters");
        assertThat(unknown).as("metrics the rules name that dimstream does not export (exported: target/exported-metrics.txt)")
                .isEmpty();
    }

    @Test
    void theDashboardNamesOnlyExportedMetrics() throws IOException {
        Map<String, Set<String>> unknown = new TreeMap<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> titles = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            titles.add(panel.get("title").asText());
            for (JsonNode target : panel.path("targets")) {
                check(panel.get("title").asText(), target.get("expr").asText(), unknown);
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            String query = variable.path("query").isObject() ? variable.path("query").path("query").asText()
                    : variable.path("query").asText();
            // label_values(metric, label): the label is not a metric
            check("variable " + variable.get("name").asText(), query.replaceAll("^label_values\\((.*),\\s*\\w+\\)$", "$1"), unknown);
        }
        assertThat(titles).as("panels of " + DASHBOARD).isNotEmpty();
        assertThat(unknown).as("metrics the dashboard names that dimstream does not export (exported: target/exported-metrics.txt)")
                .isEmpty();
    }

    private static void check(String where, String expr, Map<String, Set<String>> unknown) {
        for (String name : PromQlNames.of(expr)) {
            if (!exported.contains(name) && !PROMETHEUS_OWN.contains(name)) {
                unknown.computeIfAbsent(where, w -> new TreeSet<>()).add(name);
            }
        }
    }
}
