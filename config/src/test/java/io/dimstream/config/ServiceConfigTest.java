package io.dimstream.config;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.config.model.ServiceConfig;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code service:}: what were {@code run}'s flags only. */
class ServiceConfigTest {

    private static final String BASE = """
            postgres: {url: embedded}
            entities:
              - {name: c, topic: t, table: c, key: [id], tracked: [a], columns: {id: text, a: text}}
            """;

    private static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "config t.yml", Map.of());
    }

    private static String refusal(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void withoutAServiceSectionTheDefaultsOfTheFormerFlagsApplyAndNothingIsPrinted() {
        DimstreamConfig config = parse(BASE);

        assertThat(config.service()).isEqualTo(new ServiceConfig("dimstream", 3, Duration.ofHours(1),
                new ServiceConfig.Replay(5000, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(2))));
        assertThat(config.describeMasked()).doesNotContain("service");
    }

    @Test
    void aWholeServiceSectionIsReadPrintedAndReadBackTheSame() {
        DimstreamConfig config = parse(BASE + """
                service:
                  application-id: crm
                  partitions: 12
                  prune-interval: PT15M
                  replay: {batch-size: 50, pause: PT0.05S, lease: PT3S, poll: PT0.5S}
                """);

        assertThat(config.service()).isEqualTo(new ServiceConfig("crm", 12, Duration.ofMinutes(15),
                new ServiceConfig.Replay(50, Duration.ofMillis(50), Duration.ofSeconds(3), Duration.ofMillis(500))));
        assertThat(config.describeMasked()).contains("""
                service:
                  application-id: crm
                  partitions: 12
                  prune-interval: PT15M
                  replay:
                    batch-size: 50
                    pause: PT0.05S
                    lease: PT3S
                    poll: PT0.5S
                    keep-replaced-tables: forever
                """);
        assertThat(parse(config.describeMasked())).isEqualTo(config);
        assertThat(parse(BASE + "service:\n  partitions: 6\n").service())
                .isEqualTo(new ServiceConfig("dimstream", 6, Duration.ofHours(1), ConfigDefaults.REPLAY));
    }

    @Test
    void wrongServiceKeysAreRefusedNamingTheirPath() {
        assertThat(refusal(BASE + """
                service:
                  application-id: " "
                  partitions: 0
                  prune-interval: 1h
                  replay: {batch-size: 0, pause: -PT1S, lease: PT0.1S, poll: PT0S}
                """)).isEqualTo("config t.yml: 7 problems: service.application-id: must not be empty; "
                + "service.partitions: must be at least 1, got 0; "
                + "service.prune-interval: \"1h\" is not an ISO-8601 duration (e.g. PT1H); "
                + "service.replay.batch-size: must be at least 1, got 0; "
                + "service.replay.pause: must not be negative, got -PT1S; "
                + "service.replay.lease: must be at least PT0.3S, got PT0.1S; "
                + "service.replay.poll: must be positive, got PT0S");
        assertThat(refusal(BASE + "service:\n  replay:\n    leases: PT3S\n"))
                .isEqualTo("config t.yml: service.replay.leases: unknown key (known here: batch-size, keep-replaced-tables, lease, pause, poll)");
        assertThat(refusal(BASE + "service:\n  partitions: many\n"))
                .isEqualTo("config t.yml: service.partitions: \"many\" is not an integer");
    }

    @Test
    void keepReplacedTablesIsADurationOrForeverAndARefusalNamesTheField() {
        assertThat(parse(BASE).service().replay().keepReplacedTables()).isEmpty();
        DimstreamConfig week = parse(BASE + "service:\n  replay: {keep-replaced-tables: P7D}\n");
        assertThat(week.service().replay()).isEqualTo(new ServiceConfig.Replay(5000, Duration.ZERO, Duration.ofSeconds(30),
                Duration.ofSeconds(2), java.util.Optional.of(Duration.ofDays(7))));
        assertThat(week.describeMasked()).contains("""
                service:
                  application-id: dimstream
                  partitions: 3
                  prune-interval: PT1H
                  replay:
                    batch-size: 5000
                    pause: PT0S
                    lease: PT30S
                    poll: PT2S
                    keep-replaced-tables: P7D
                """);
        assertThat(parse(week.describeMasked())).isEqualTo(week);
        assertThat(parse(BASE + "service:\n  replay: {keep-replaced-tables: forever}\n").service().replay().keepReplacedTables()).isEmpty();

        assertThat(refusal(BASE + "service:\n  replay: {keep-replaced-tables: 7d}\n"))
                .isEqualTo("config t.yml: service.replay.keep-replaced-tables: \"7d\" is not an ISO-8601 duration (e.g. P7D)");
        assertThat(refusal(BASE + "service:\n  replay: {keep-replaced-tables: PT0S}\n"))
                .isEqualTo("config t.yml: service.replay.keep-replaced-tables: must be positive, got PT0S");
    }
}
