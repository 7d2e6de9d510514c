package io.dimstream.cli;

import io.dimstream.config.keys.ConfigDefaults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.replay.ReplaySettings;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.ServiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code run}'s flags override the config's {@code service:} section, key by key, checked as the file is. */
class RunCommandServiceTest {

    private static final DimstreamConfig FILE = DimstreamConfig.parse("""
            postgres: {url: embedded}
            service:
              application-id: crm
              partitions: 12
              prune-interval: PT15M
              replay: {batch-size: 50, pause: PT0.05S, lease: PT3S, poll: PT0.5S}
            entities:
              - {name: c, topic: t, table: c, key: [id], tracked: [a], columns: {id: text, a: text}}
            """, "config t.yml", Map.of());

    private static RunCommand run(String... flags) {
        RunCommand cmd = new RunCommand();
        String[] args = new String[flags.length + 2];
        args[0] = "--config";
        args[1] = "t.yml";
        System.arraycopy(flags, 0, args, 2, flags.length);
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void withoutFlagsTheFileDecidesAndReachesThePipelineOptions() {
        DimstreamConfig cfg = run().withFlags(FILE);

        assertThat(cfg).isEqualTo(FILE);
        assertThat(ServiceOptions.of(Path.of("data"), cfg.service())).isEqualTo(new ServiceOptions(Path.of("data"), "crm", 12,
                Duration.ofMinutes(15), true, new ReplaySettings(Duration.ofMillis(500), Duration.ofSeconds(3), 50, Duration.ofMillis(50)),
                Optional.empty()));
    }

    @Test
    void eachFlagOverridesItsKeyAndLeavesTheOthers() {
        DimstreamConfig cfg = run("--application-id", "crm-blue", "--replay-lease", "PT10S", "--prune-interval", "PT5M").withFlags(FILE);

        assertThat(cfg.service()).isEqualTo(new ServiceConfig("crm-blue", 12, Duration.ofMinutes(5),
                new ServiceConfig.Replay(50, Duration.ofMillis(50), Duration.ofSeconds(10), Duration.ofMillis(500))));
        assertThat(cfg.describeMasked()).contains("  application-id: crm-blue\n").contains("    lease: PT10S\n");
        assertThat(run("--partitions", "4", "--replay-batch-size", "7", "--replay-pause", "PT1S", "--replay-poll", "PT1S")
                .withFlags(FILE).service()).isEqualTo(new ServiceConfig("crm", 4, Duration.ofMinutes(15),
                new ServiceConfig.Replay(7, Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(1))));
    }

    @Test
    void withoutFileOrFlagsTheDefaultsAreTheOldFlagDefaults() {
        DimstreamConfig noService = FILE.withService(ConfigDefaults.SERVICE);

        assertThat(ServiceOptions.of(Path.of("data"), run().withFlags(noService).service()))
                .isEqualTo(ServiceOptions.defaults(Path.of("data")))
                .isEqualTo(new ServiceOptions(Path.of("data"), "dimstream", 3, Duration.ofHours(1)));
    }

    @Test
    void aWrongFlagIsAUsageErrorNamingTheFlag() {
        assertThatThrownBy(() -> run("--replay-lease", "PT0.1S", "--partitions", "0").withFlags(FILE))
                .isInstanceOf(CliFailure.class)
                .hasMessage("--replay-lease: must be at least PT0.3S, got PT0.1S; --partitions: must be at least 1, got 0")
                .satisfies(e -> assertThat(((CliFailure) e).exitCode()).isEqualTo(CliFailure.USAGE));
    }
}
