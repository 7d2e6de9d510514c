package io.dimstream.app.service;

import io.dimstream.app.sink.SinkSettings;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The sink's settings take the {@code sink:} keys' defaults from the config, where they are declared once. */
class SinkSettingsFromConfigTest {

    private static final String BASE = """
            postgres: {url: embedded}
            entities:
              - {name: c, topic: t, table: c, key: [id], tracked: [a], columns: {id: text, a: text}}
            """;

    private static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "config t.yml", Map.of());
    }

    @Test
    void withoutASinkSectionTheSettingsAreTheDefaults() {
        assertThat(SinkSettingsFromConfig.of(parse(BASE).sink(), "app")).isEqualTo(SinkSettingsFromConfig.defaults().withApplicationId("app")
                .withGroupId("app-sink"));
        assertThat(SinkSettingsFromConfig.defaults()).isEqualTo(new SinkSettings("dimstream", "dimstream-sink", 20_000, Duration.ofMillis(200),
                Duration.ofMillis(100), Duration.ofSeconds(10), Map.of(), 2, SinkSettings.OnOffsetOutOfRange.STOP, Duration.ofMinutes(5),
                Optional.empty()));
    }

    @Test
    void everyKeyOfTheSinkSectionReachesTheSettings() {
        DimstreamConfig config = parse(BASE + """
                sink:
                  group-id: crm-sink
                  batch-size: 800
                  batch-max-wait: PT0.05S
                  parallelism: 3
                  on-offset-out-of-range: skip
                  stuck-after: PT1M
                """);

        assertThat(SinkSettingsFromConfig.of(config.sink(), "app")).isEqualTo(new SinkSettings("app", "crm-sink", 800, Duration.ofMillis(50),
                Duration.ofMillis(100), Duration.ofSeconds(10), Map.of(), 3, SinkSettings.OnOffsetOutOfRange.SKIP, Duration.ofMinutes(1),
                Optional.empty()));
    }

    @Test
    void theSinkConsumerRebalancesIncrementallyWithAOneSecondHeartbeatAndKeepsItsOwnSettingsWhateverTheOverridesSay() {
        SinkSettings settings = SinkSettingsFromConfig.defaults().withApplicationId("app").withGroupId("app-sink").withInstanceId("a-1");
        Map<String, Object> client = Map.of("bootstrap.servers", "k:9092", "security.protocol", "SSL", "enable.auto.commit", true);

        assertThat(settings.consumerProperties(client)).isEqualTo(Map.ofEntries(
                Map.entry("bootstrap.servers", "k:9092"),
                Map.entry("security.protocol", "SSL"),
                Map.entry("group.id", "app-sink"),
                Map.entry("group.instance.id", "a-1"),
                Map.entry("isolation.level", "read_committed"),
                Map.entry("enable.auto.commit", false),
                Map.entry("auto.offset.reset", "none"),
                Map.entry("max.poll.records", 40_000),
                Map.entry("max.partition.fetch.bytes", 4 * 1024 * 1024),
                Map.entry("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
                Map.entry("heartbeat.interval.ms", 1000)));
        // consumer overrides (an embedding program's) still choose another assignor or heartbeat: they win over these defaults
        SinkSettings overridden = new SinkSettings("app", "app-sink", 100, Duration.ofMillis(200), Duration.ofMillis(100), Duration.ofSeconds(10),
                Map.of("partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor", "heartbeat.interval.ms", 3000),
                1, SinkSettings.OnOffsetOutOfRange.STOP, Duration.ofMinutes(5), Optional.empty());
        assertThat(overridden.consumerProperties(Map.of())).containsEntry("partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.RangeAssignor").containsEntry("heartbeat.interval.ms", 3000)
                .containsEntry("max.poll.records", 100).doesNotContainKey("group.instance.id");
    }
}
