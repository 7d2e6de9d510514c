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
}
