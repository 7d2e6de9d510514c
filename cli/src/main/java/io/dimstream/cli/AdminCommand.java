package io.dimstream.cli;

import io.dimstream.admin.AdminServer;
import io.dimstream.admin.AdminSettings;
import io.dimstream.config.ConfigException;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream admin}: the web admin alone, over the config's PostgreSQL, until SIGTERM/Ctrl-C.
 * Migrates dimstream's schema and creates missing entity tables first (as {@code run} does), so
 * it may start before the service.
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = {"Runs the web admin (history, as of, diff, integrity, quarantine; JSON API under /api).",
                "Needs the config's admin: section (users, api-tokens). Exit 2 for a bad config, 1 when it cannot start."})
final class AdminCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--port", paramLabel = "PORT", description = "overrides admin.port (0: any free port)")
    Integer port;

    @Option(names = "--host", paramLabel = "HOST", description = "overrides admin.host")
    String host;

    /** Counted down by the shutdown hook, or by {@link #stop()} (tests). */
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Stops a running {@code admin} (its call returns 0). */
    void stop() {
        stopped.countDown();
    }

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            PrintWriter out = spec.commandLine().getOut();
            DimstreamConfig cfg = CommandSupport.loadResolvedWholeConfig(config, spec.commandLine().getErr());
            try {
                cfg.requireAdmin();
            } catch (ConfigException e) {
                throw new CliFailure(CliFailure.USAGE, "config " + config + ": " + e.getMessage(), e);
            }
            if (port != null && (port < 0 || port > 65535)) {
                throw new CliFailure(CliFailure.USAGE, "--port: must be between 0 and 65535, got " + port, null);
            }
            Databases.Handle db = CommandSupport.openDatabase(cfg.postgres());
            AdminServer.Running admin;
            try {
                Migrations.migrate(db.dataSource());
                for (EntityConfig e : cfg.entities()) {
                    EntityTables.ensure(db.dataSource(), e.toEntitySpec());
                }
                admin = AdminServer.start(cfg, db.dataSource(),
                        new AdminSettings(port == null ? OptionalInt.empty() : OptionalInt.of(port), host, Clock.systemUTC()));
            } catch (RuntimeException | java.sql.SQLException e) {
                db.close();
                throw new CliFailure(CliFailure.FAILED, "cannot start the admin: " + e.getMessage(), e);
            }
            out.println("admin UI: " + admin.url() + " (PostgreSQL " + db.jdbcUrl()
                    + "); Ctrl-C stops it");
            out.flush();
            Thread hook = new Thread(this::stop, "dimstream-admin-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                stopped.await();
            } finally {
                admin.close();
                db.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the JVM is stopping: the hook is what woke us
                }
            }
            return 0;
        });
    }
}
