package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.dimstream.config.keys.ConfigKey;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConfigKeys.ServiceReplayKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DimstreamCliTest {

    @Test
    void helpListsTheVerbs() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("Usage: dimstream [-hV] [COMMAND]").contains("  load ").contains("  check ").contains("  demo ")
                .contains("  publish-snapshot ");
    }

    @Test
    void versionNamesTheProjectVersion() {
        CliRun run = CliRun.of("--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).matches("dimstream \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\nJava .+\\n");
    }

    @Test
    void unknownVerbIsAUsageError() {
        CliRun run = CliRun.of("frobnicate");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("Unmatched argument at index 0: 'frobnicate'\nUsage: dimstream [-hV] [COMMAND]");
    }

    @Test
    void everyVerbPrintsItsUsageOnHelpEvenWithoutItsRequiredOptions() {
        for (String verb : DimstreamCli.commandLine().getSubcommands().keySet()) {
            CliRun run = CliRun.of(verb, "--help");

            assertThat(run.exitCode()).as(verb).isZero();
            assertThat(run.err()).as(verb).isEmpty();
            assertThat(run.out()).as(verb + ": a placeholder picocli did not resolve").doesNotContain("${");
            if (verb.equals("help")) { // picocli's own verb: its description first, and -h only
                assertThat(run.out()).startsWith("Display help information").contains("Usage: dimstream help [-h] [COMMAND]\n");
            } else {
                assertThat(run.out()).as(verb).startsWith("Usage: dimstream " + verb + " [-hV]");
            }
        }
        assertThat(DimstreamCli.commandLine().getSubcommands().keySet())
                .contains("run", "demo", "load", "check", "config", "dbt-sources", "replay", "admin", "publish-snapshot");
    }

    @Test
    void flagsThatOverrideAConfigKeyNameTheKeysDefaultFromConfigKeys() {
        CommandLine cli = DimstreamCli.commandLine();
        Map<String, String> run = new LinkedHashMap<>();
        for (String flag : List.of("--application-id", "--partitions", "--prune-interval", "--replay-batch-size", "--replay-pause",
                "--replay-lease")) {
            Matcher m = OVERRIDES.matcher(description(cli, "run", flag));
            run.put(flag, m.find() ? m.group() : "no \"overrides <key> (default <value>)\"");
        }
        assertThat(run).containsExactly(
                entry("--application-id", said(ConfigKeys.SERVICE_APPLICATION_ID)),
                entry("--partitions", said(ConfigKeys.SERVICE_PARTITIONS)),
                entry("--prune-interval", said(ConfigKeys.SERVICE_PRUNE_INTERVAL)),
                entry("--replay-batch-size", said(ServiceReplayKeys.BATCH_SIZE)),
                entry("--replay-pause", said(ServiceReplayKeys.PAUSE)),
                entry("--replay-lease", said(ServiceReplayKeys.LEASE)));
        assertThat(run.values()).containsExactly("overrides service.application-id (default dimstream)",
                "overrides service.partitions (default 3)", "overrides service.prune-interval (default PT1H)",
                "overrides service.replay.batch-size (default 5000)", "overrides service.replay.pause (default PT0S)",
                "overrides service.replay.lease (default PT30S)");

        assertThat(description(cli, "load", "--batch-size"))
                .endsWith("(default: load.batch-size of the config, " + ConfigKeys.LOAD_BATCH_SIZE.defaultText() + " if unset).");
    }

    private static final Pattern OVERRIDES = Pattern.compile("overrides \\S+ \\(default [^)]*\\)");

    private static String said(ConfigKey<?> key) {
        return "overrides " + key.path() + " (default " + key.defaultText() + ")";
    }

    /** A verb's flag's description as picocli prints it (placeholders resolved), its lines joined. */
    private static String description(CommandLine cli, String verb, String flag) {
        return String.join(" ", cli.getSubcommands().get(verb).getCommandSpec().findOption(flag).description());
    }

    @Test
    void missingRequiredOptionIsAUsageError() {
        CliRun run = CliRun.of("load", "--entity", "customer");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("Missing required option: '--config=FILE'\nUsage: dimstream load ");
    }
}
