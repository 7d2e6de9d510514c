package io.dimstream.cli;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.secrets.Secrets;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream dbt-sources --config FILE}: prints a dbt {@code sources.yml} for the configured
 * entities ({@link DbtSources}): {@code dimstream dbt-sources --config dimstream.yml > models/dimstream_sources.yml}.
 *
 * <p>It lists every column the tables have: it reads the columns added and widened while running
 * from the config's PostgreSQL ({@code dimstream.entity_columns}, one read-only connection giving up
 * after {@link #TIMEOUT}). A database it cannot read fails the command (exit 2, naming the address
 * and the reason) rather than print a file that leaves columns out unsaid: {@code --offline}
 * connects to nothing and lists the config's columns only, for a CI without the database. Where
 * there is nothing to read (an embedded database, or a database dimstream never ran in, without
 * {@code dimstream.entity_columns}), it lists the config's columns and says so on stderr.
 */
@Command(name = "dbt-sources", mixinStandardHelpOptions = true, description = {"Prints a dbt sources.yml (version 2) for the configured entities.",
        "Each history table and its _current view, every column with its description (those added while running included, "
                + "read from PostgreSQL), loaded_at freshness and the tests dimstream guarantees.",
        "Exits 2 when PostgreSQL cannot be read; --offline connects to nothing and lists the config's columns only."})
final class DbtSourcesCommand implements Callable<Integer> {

    /** How long connecting, logging in and each reply may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

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

    @Option(names = "--no-freshness", description = "leave out the freshness config (tables that change rarely)")
    boolean noFreshness;

    @Option(names = "--offline", description = "connect to nothing: list the config's columns only, without those added while running "
            + "and without the tables a connector found")
    boolean offline;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DbtSources.Options options = options();
            // --offline reads no database: the tables a connector found (kept there) are left out too
            DimstreamConfig cfg = offline ? CommandSupport.loadConfig(config)
                    : CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
            if (offline && !cfg.connectors().isEmpty()) {
                warn("--offline: the tables connector" + (cfg.connectors().size() == 1 ? " " : "s ")
                        + String.join(", ", cfg.connectors().stream().map(k -> k.name()).toList()) + " found are kept in the database "
                        + "(dimstream.connector_tables) and not listed; only the entities declared by hand are");
            }
            String yaml = offline ? DbtSources.yaml(cfg, DbtSources.Catalog.configOnly("Columns: the config's only (--offline): columns "
                    + "added while running are not listed."), options) : fromDatabase(cfg, options);
            PrintWriter out = spec.commandLine().getOut();
            out.print(yaml);
            out.flush();
            return 0;
        });
    }

    private DbtSources.Options options() {
        try {
            if (!sourceName.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("--source-name: expected a dbt name (letters, digits, _), got '" + sourceName + "'");
            }
            return noFreshness ? new DbtSources.Options(sourceName, null, null)
                    : new DbtSources.Options(sourceName, DbtSources.Period.parse("--warn-after", warnAfter),
                    DbtSources.Period.parse("--error-after", errorAfter));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(CliFailure.USAGE, e.getMessage(), null);
        }
    }

    /** The sources with the catalog read from the config's PostgreSQL; a database that cannot be read is a {@link CliFailure}. */
    private String fromDatabase(DimstreamConfig cfg, DbtSources.Options options) throws SQLException {
        PostgresConfig pg = cfg.postgres();
        if (pg.embedded()) {
            warn("postgres.url is embedded, a database that exists only inside a running dimstream: listing the config's columns "
                    + "only (columns added while running are left out)");
            return DbtSources.yaml(cfg, DbtSources.Catalog.configOnly("Columns: the config's only (postgres.url is embedded): columns "
                    + "added while running are not listed."), options);
        }
        String url = Secrets.mask(pg.url());
        try (Connection c = Databases.connectOnce(pg.url(), pg.user(), pg.password(), TIMEOUT)) {
            c.setReadOnly(true);
            if (!EvolvedColumns.catalogExists(c)) {
                warn("the database at " + url + " has no dimstream.entity_columns (dimstream has not run there), so no column was added "
                        + "while running: listing the config's columns");
                return DbtSources.yaml(cfg, DbtSources.Catalog.configOnly("Columns: the config's (the database had no "
                        + "dimstream.entity_columns: none were added while running)."), options);
            }
            return DbtSources.yaml(cfg, DbtSources.Catalog.read(c), options);
        } catch (SQLException e) {
            // the URL before a space: a masked password runs to the next one (Secrets.mask), and the failure is masked again
            String reason = String.valueOf(e.getMessage()).strip();
            throw new CliFailure(CliFailure.USAGE, "cannot read the columns added while running (dimstream.entity_columns) from PostgreSQL at "
                    + url + " (SQL state " + e.getSQLState() + "): " + reason + (reason.endsWith(".") ? "" : ".") + " Check postgres.url, "
                    + "user and password and that the database answers from here, or pass --offline to list the config's columns only", e);
        }
    }

    private void warn(String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + message);
        err.flush();
    }
}
