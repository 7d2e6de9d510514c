package io.dimstream.cli;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.IntegrityChecker;
import io.dimstream.db.read.IntegrityReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream check}: prints the integrity report of an entity's history table; exit 0 when
 * it is sound, 1 when it is broken, 2 when the check could not run (config, database).
 * The checking itself is {@link IntegrityChecker}'s; tests may give another {@link Checker}.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Checks an entity's history table and prints the integrity report.",
                "The table is checked against the SCD2 invariants (one current row, no overlaps, no gaps, ...).",
                "Exit 0 when sound, 1 when broken, 2 when the check could not run."})
final class CheckCommand implements Callable<Integer> {

    /** What the check found. */
    record Outcome(boolean ok, String rendered) {
    }

    /** Runs the integrity check of one entity. */
    @FunctionalInterface
    interface Checker {
        Outcome check(DataSource ds, EntitySpec entity) throws SQLException;
    }

    private final Checker checker;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "the entity of the config to check")
    String entity;

    /** The verb as the command line registers it: the real {@link IntegrityChecker}. */
    CheckCommand() {
        this((ds, e) -> {
            IntegrityReport report = new IntegrityChecker(ds).check(e);
            return new Outcome(report.ok(), report.render());
        });
    }

    CheckCommand(Checker checker) {
        this.checker = checker;
    }

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
            EntitySpec e = CommandSupport.entity(cfg, entity);
            Outcome outcome;
            try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                outcome = checker.check(db.dataSource(), e);
            } catch (SQLException ex) {
                throw new CliFailure(CliFailure.USAGE, "cannot check table " + e.table() + " of entity " + e.name() + ": "
                        + ex.getMessage() + " (SQL state " + ex.getSQLState() + ")", ex);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.print(outcome.rendered().endsWith("\n") ? outcome.rendered() : outcome.rendered() + "\n");
            out.flush();
            return outcome.ok() ? 0 : 1;
        });
    }
}
