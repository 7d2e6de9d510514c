package io.dimstream.cli;

import io.dimstream.app.load.EventFileLoader;
import io.dimstream.app.load.LoadException;
import io.dimstream.app.load.LoadFields;
import io.dimstream.app.load.LoadReport;
import io.dimstream.config.ConfigException;
import io.dimstream.config.ConnectorEntities;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.db.secrets.Secrets;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.TimeTexts;
import io.dimstream.db.schema.ConnectorTables;
import io.dimstream.db.schema.EntityTables;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;
import org.flywaydb.core.api.FlywayException;
import picocli.CommandLine.Model.CommandSpec;

/** What the verbs share: turning known failures into one-line messages with an exit code. */
final class CommandSupport {

    private CommandSupport() {
    }

    /** The body of a verb; returns its exit code. */
    interface Body {
        int run() throws Exception;
    }

    /**
     * Runs a verb, printing a {@link CliFailure} as {@code dimstream VERB: message} on stderr (secrets
     * masked, {@link Secrets#mask}) and returning its exit code. Anything else is a bug and goes to picocli (stack trace, exit 1).
     */
    static int run(CommandSpec spec, Body body) throws Exception {
        try {
            return body.run();
        } catch (CliFailure f) {
            PrintWriter err = spec.commandLine().getErr();
            // a failure may quote a JDBC URL or a driver's message: never print a secret
            err.println(spec.qualifiedName() + ": " + Secrets.mask(f.getMessage()));
            err.flush();
            return f.exitCode();
        }
    }

    /** The config file without its {@code admin:} section, which only {@code admin} (and {@code config}, {@link #loadWholeConfig}) read. */
    static DimstreamConfig loadConfig(Path file) {
        return load(file, DimstreamConfig.Sections.WITHOUT_ADMIN);
    }

    /** The whole config file, {@code admin:} included: what {@code admin} serves and {@code config} validates. */
    static DimstreamConfig loadWholeConfig(Path file) {
        return load(file, DimstreamConfig.Sections.ALL);
    }

    private static DimstreamConfig load(Path file, DimstreamConfig.Sections sections) {
        try {
            return DimstreamConfig.load(file, System.getenv(), sections);
        } catch (ConfigException e) {
            throw new CliFailure(CliFailure.USAGE, e.getMessage(), e);
        }
    }

    /**
     * {@link #loadConfig} with the entities of the tables its connectors found ({@code run} found
     * them and recorded them in {@code dimstream.connector_tables}): what every command that names
     * entities reads. A config without connectors is read as it is, without the database; a
     * database that cannot be read leaves the found tables out, saying so on standard error.
     */
    static DimstreamConfig loadResolvedConfig(Path file, PrintWriter err) {
        return resolved(loadConfig(file), err);
    }

    /** {@link #loadResolvedConfig} of the whole file, {@code admin:} included ({@code admin}). */
    static DimstreamConfig loadResolvedWholeConfig(Path file, PrintWriter err) {
        return resolved(loadWholeConfig(file), err);
    }

    private static DimstreamConfig resolved(DimstreamConfig cfg, PrintWriter err) {
        if (cfg.connectors().isEmpty()) {
            return cfg;
        }
        // read only: a command that merely names entities migrates nothing (run, admin and load do, as before)
        try (Databases.Handle db = openDatabase(cfg.postgres())) {
            ConnectorEntities.Resolved r = ConnectorEntities.resolve(cfg, ConnectorTables.all(db.dataSource()));
            r.leftOut().forEach((topic, why) -> err.println("topic " + topic + " gets no entity from its connector: " + why));
            err.flush();
            return r.config();
        } catch (SQLException | CliFailure e) {
            err.println((e instanceof SQLException q && UNDEFINED_TABLE.equals(q.getSQLState())
                    ? "dimstream has not run on this database yet (no dimstream.connector_tables)"
                    : "cannot read the tables the connectors found (dimstream.connector_tables): " + e.getMessage())
                    + "; only the entities declared by hand are known");
            err.flush();
            return cfg;
        }
    }

    /** PostgreSQL's SQL state of a relation that does not exist. */
    private static final String UNDEFINED_TABLE = "42P01";

    static EntitySpec entity(DimstreamConfig config, String name) {
        try {
            return config.entity(name).toEntitySpec();
        } catch (ConfigException e) {
            throw new CliFailure(CliFailure.USAGE, "--entity: " + e.getMessage(), e);
        }
    }

    static BufferedReader openInput(Path file) {
        try {
            if (Files.isDirectory(file)) {
                throw new CliFailure(CliFailure.USAGE, "input " + file + " is a directory, not a file", null);
            }
            return Files.newBufferedReader(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new CliFailure(CliFailure.USAGE, "input file not found: " + file, e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(CliFailure.USAGE, "input file " + file + " is not readable (permission denied)", e);
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, "cannot open input file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Opens the configured database; an unreachable one is a usage failure with the reason. */
    static Databases.Handle openDatabase(PostgresConfig pg) {
        try {
            return Databases.open(pg.url(), pg.user(), pg.password(), pg.poolSize());
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new CliFailure(CliFailure.USAGE, Secrets.mask(withRootCause(e)), e);
        }
    }

    /**
     * Prepares the entity's tables and applies the events of {@code in}, as {@code load} and
     * {@code demo} both do. On a failure part-way, prints what the committed batches did first.
     */
    static LoadReport prepareAndLoad(PrintWriter out, DataSource ds, EntitySpec entity, LoadFields fields, int batchSize,
                                     BufferedReader in, String inputName) {
        EventFileLoader loader = new EventFileLoader(ds, entity, batchSize, 1, fields);
        prepare(loader, entity);
        try {
            return loader.load(in, inputName, Instant.now(), new TimeTexts(null));
        } catch (LoadException e) {
            out.println("stopped; the batches committed before the failure did:");
            LoadReportPrinter.print(out, e.soFar());
            throw new CliFailure(CliFailure.FAILED, e.getMessage(), e);
        }
    }

    /**
     * As above, from a file's bytes (each line decoded strictly, one that is not UTF-8 refused on its
     * own), each batch applied on {@code parallelism} connections at once (disjoint keys), texts
     * without a UTC offset read in the zone of {@code times} ({@code --time-zone}), the seqs counted
     * from what {@code start} says once dimstream's schema is there ({@link LoadArrival}).
     */
    static LoadReport prepareAndLoad(PrintWriter out, DataSource ds, EntitySpec entity, LoadFields fields, int batchSize, int parallelism,
                                     InputStream in, String inputName, TimeTexts times, java.util.function.Supplier<Instant> start) {
        EventFileLoader loader = new EventFileLoader(ds, entity, batchSize, parallelism, fields);
        prepare(loader, entity);
        try {
            return loader.load(in, inputName, start.get(), times);
        } catch (LoadException e) {
            out.println("stopped; the batches committed before the failure did:");
            LoadReportPrinter.print(out, e.soFar());
            throw new CliFailure(CliFailure.FAILED, e.getMessage(), e);
        }
    }

    /** Brings dimstream's schema up to date and creates or checks the entity's tables, failures as {@link CliFailure}s. */
    static void prepare(EventFileLoader loader, EntitySpec entity) {
        try {
            loader.prepare();
        } catch (EntityTables.SchemaMismatchException e) {
            throw new CliFailure(CliFailure.USAGE, "entity " + entity.name() + ": " + e.getMessage(), e);
        } catch (FlywayException e) {
            throw new CliFailure(CliFailure.FAILED, "cannot migrate dimstream's own schema: "
                    + e.getMessage().lines().findFirst().orElse(""), e);
        } catch (SQLException e) {
            throw new CliFailure(CliFailure.FAILED, "cannot create or check the tables of entity " + entity.name() + ": "
                    + e.getMessage() + " (SQL state " + e.getSQLState() + ")", e);
        }
    }

    /** The message, and the root cause's when it says something the message does not. */
    private static String withRootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = e.getMessage();
        if (root != e && root.getMessage() != null && !msg.contains(root.getMessage())) {
            return msg + " (cause: " + root.getMessage() + ")";
        }
        return msg;
    }
}
