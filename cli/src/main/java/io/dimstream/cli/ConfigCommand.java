package io.dimstream.cli;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.topology.StreamsConfigFactory;
import io.dimstream.config.DimstreamConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream config --config FILE}: reads and validates a config file exactly as {@code run}
 * does (environment variables resolved) and prints the effective config with secrets masked; then,
 * unless {@code --offline}, the columns added to each entity while running, read from the
 * config's PostgreSQL ({@link EvolvedColumnsPrinter}: one connection, each step giving up after 3 s). A database it
 * cannot read is one line of the output, not a failure: the exit code says whether the config is
 * valid. For a deployment's pre-flight check and CI (the compose stack's config is checked with
 * {@code --offline}).
 */
@Command(name = "config", mixinStandardHelpOptions = true, description = {"Validates a config file and prints the effective config (secrets masked).",
        "Then the columns added to each entity while running, read from PostgreSQL (--offline connects to nothing)."})
final class ConfigCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the YAML config file")
    Path config;

    @Option(names = "--offline", description = "connect to nothing: skip the catalog of columns added while running")
    boolean offline;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadWholeConfig(config);
            // the Kafka property names run checks before it starts anything
            List<String> problems = new ArrayList<>();
            cfg.kafka().ifPresent(k -> {
                problems.addAll(KafkaClients.problems(k.client()));
                problems.addAll(StreamsConfigFactory.problems(k.streams()));
            });
            if (!problems.isEmpty()) {
                throw new CliFailure(CliFailure.USAGE, config + ": " + String.join("; ", problems), null);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(cfg.describeMasked());
            if (!offline) {
                EvolvedColumnsPrinter.print(out, cfg);
            }
            out.flush();
            return 0;
        });
    }
}
