package io.dimstream.cli;

import io.dimstream.db.secrets.Secrets;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code dimstream} command line: {@code ./dimstream VERB ...} (see DESIGN section 4). */
@Command(name = "dimstream", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Keeps SCD Type 2 history tables in PostgreSQL from Kafka topics.",
        subcommands = {RunCommand.class, LoadCommand.class, CheckCommand.class, ReplayCommand.class, DemoCommand.class,
                AdminCommand.class, ConfigCommand.class, EraseCommand.class, PublishSnapshotCommand.class, DbtSourcesCommand.class,
                CommandLine.HelpCommand.class})
public final class DimstreamCli {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line as {@code main} runs it. An exception no verb turned into a one-line failure
     * (a bug) is printed with its stack trace like picocli does, but masked ({@link Secrets#mask}):
     * its message may quote a JDBC URL or a driver's error.
     */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new DimstreamCli());
        cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            StringWriter trace = new StringWriter();
            ex.printStackTrace(new PrintWriter(trace));
            PrintWriter err = cmd.getErr();
            err.print(Secrets.mask(trace.toString()));
            err.flush();
            return cmd.getExitCodeExceptionMapper() != null ? cmd.getExitCodeExceptionMapper().getExitCode(ex)
                    : cmd.getCommandSpec().exitCodeOnExecutionException();
        });
        return cli;
    }
}
