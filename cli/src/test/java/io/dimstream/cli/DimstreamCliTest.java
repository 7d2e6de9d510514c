package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
    void missingRequiredOptionIsAUsageError() {
        CliRun run = CliRun.of("load", "--entity", "customer");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("Missing required option: '--config=FILE'\nUsage: dimstream load ");
    }
}
