package io.dimstream.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code dimstream} command line: {@code ./dimstream VERB ...} (see DESIGN section 4). */
@Command(name = "dimstream", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Keeps SCD Type 2 history tables in PostgreSQL from Kafka topics.",
        subcommands = {RunCommand.class, LoadCommand.class, CheckCommand.class, ReplayCommand.class, DemoCommand.class,
                AdminCommand.class, ConfigCommand.class, PublishSnapshotCommand.class, CommandLine.HelpCommand.class})
public final class DimstreamCli {

    public static void main(String[] args) {
        System.exit(new CommandLine(new DimstreamCli()).execute(args));
    }
}
