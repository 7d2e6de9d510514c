package io.dimstream.cli;

import io.dimstream.app.load.LoadReport;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dimstream load}: applies a file of native JSON events through the SCD2 writer. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"Applies a file of native JSON events to an entity's history table.",
                "One event per line, through the same writer as the Kafka pipeline.",
                "Prints what happened to the events, then each refused line with its reason.",
                "Exit 0 when it ran (even with refused lines); 2 for a bad config, a missing input file",
                "or an unreachable database; 1 when it failed part-way (committed batches stay)."})
final class LoadCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "the entity of the config to load into")
    String entity;

    @Option(names = "--input", required = true, paramLabel = "EVENTS.jsonl",
            description = "native events, one JSON object per line: {\"op\": \"upsert\"|\"delete\", \"event_time\": \"...Z\", \"data\": {...}}")
    Path input;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "events per database transaction (default: batch-size of the config, 10000 if unset)")
    Integer batchSize;

    @Option(names = "--parallel", paramLabel = "N",
            description = "connections each batch is applied on at once, each with a disjoint set of keys in its own "
                    + "transaction (default: the machine's cores, at most 4 and at most postgres.pool-size); 1: one "
                    + "transaction per batch")
    Integer parallel;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadConfig(config);
            EntitySpec e = CommandSupport.entity(cfg, entity);
            int n = batchSize != null ? batchSize : cfg.batchSize();
            if (n < 1) {
                throw new CliFailure(CliFailure.USAGE, "--batch-size: must be at least 1, got " + n, null);
            }
            int p = parallel != null ? parallel
                    : Math.max(1, Math.min(Math.min(Runtime.getRuntime().availableProcessors(), 4), cfg.postgres().poolSize()));
            if (p < 1 || p > cfg.postgres().poolSize()) {
                throw new CliFailure(CliFailure.USAGE, "--parallel: must be from 1 to postgres.pool-size ("
                        + cfg.postgres().poolSize() + "), got " + p, null);
            }
            try (BufferedReader in = CommandSupport.openInput(input);
                 Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                LoadReport report = CommandSupport.prepareAndLoad(spec.commandLine().getOut(), db.dataSource(), e, n, p, in,
                        String.valueOf(input.getFileName()));
                LoadReportPrinter.print(spec.commandLine().getOut(), report);
            }
            return 0;
        });
    }
}
