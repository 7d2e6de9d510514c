package io.dimstream.cli;

import io.dimstream.config.DimstreamConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream dbt-sources --config FILE}: prints a dbt {@code sources.yml} for the configured
 * entities ({@link DbtSources}); reads the config only (connects to nothing), so it runs in a dbt
 * project's CI: {@code dimstream dbt-sources --config dimstream.yml > models/dimstream_sources.yml}.
 */
@Command(name = "dbt-sources", mixinStandardHelpOptions = true, description = {"Prints a dbt sources.yml (version 2) for the configured entities.",
        "Each history table and its _current view, with the columns' descriptions, loaded_at freshness and the tests "
                + "dimstream guarantees. Connects to nothing."})
final class DbtSourcesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the YAML config file")
    Path config;

    @Option(names = "--source-name", paramLabel = "NAME", defaultValue = DbtSources.Options.DEFAULT_NAME,
            description = "the dbt source's name (default: ${DEFAULT-VALUE}; NAME_SCHEMA per schema when the tables span several)")
    String sourceName;

    @Option(names = "--warn-after", paramLabel = "PERIOD", defaultValue = "12h",
            description = "freshness warn_after on loaded_at: a count and m, h or d (default: ${DEFAULT-VALUE})")
    String warnAfter;

    @Option(names = "--error-after", paramLabel = "PERIOD", defaultValue = "24h",
            description = "freshness error_after on loaded_at (default: ${DEFAULT-VALUE})")
    String errorAfter;

    @Option(names = "--no-freshness", description = "leave out loaded_at_field and freshness (tables that change rarely)")
    boolean noFreshness;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DbtSources.Options options;
            try {
                if (!sourceName.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new IllegalArgumentException("--source-name: expected a dbt name (letters, digits, _), got '" + sourceName + "'");
                }
                options = noFreshness ? new DbtSources.Options(sourceName, null, null)
                        : new DbtSources.Options(sourceName, DbtSources.Period.parse("--warn-after", warnAfter),
                        DbtSources.Period.parse("--error-after", errorAfter));
            } catch (IllegalArgumentException e) {
                throw new CliFailure(CliFailure.USAGE, e.getMessage(), null);
            }
            DimstreamConfig cfg = CommandSupport.loadConfig(config);
            PrintWriter out = spec.commandLine().getOut();
            out.print(DbtSources.yaml(cfg, options));
            out.flush();
            return 0;
        });
    }
}
