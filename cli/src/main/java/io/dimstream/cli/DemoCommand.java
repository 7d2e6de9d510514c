package io.dimstream.cli;

import io.dimstream.admin.AdminServer;
import io.dimstream.admin.AdminSettings;
import io.dimstream.admin.auth.Sessions;
import io.dimstream.app.demo.StreamingDemo;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.app.load.LoadFields;
import io.dimstream.app.load.LoadReport;
import io.dimstream.app.metrics.MetricsHttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream demo}: the whole pipeline on embedded parts (a Kafka broker and PostgreSQL
 * inside the process) fed by a generated customer feed, whose source starts sending a new field
 * half-way through the burst ({@link StreamingDemo}); or, with {@code --file}, the bundled
 * sample file loaded through the same path as {@code load}, with its history printed.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs dimstream on an embedded Kafka broker and PostgreSQL, fed by generated customer events.",
                "The events are creates, changes, deletes, resurrections, duplicates, late and malformed records; from "
                        + "half-way through the burst they carry a new field, preferred_channel, which becomes a column while "
                        + "running. It prints what it did and where to look, then keeps a trickle of events flowing until Ctrl-C.",
                "With --file: loads the bundled sample file into an embedded PostgreSQL and prints every history."})
final class DemoCommand implements Callable<Integer> {

    static final String CONFIG = "demo/demo.yml";
    static final String EVENTS = "demo/customers.jsonl";

    @Spec
    CommandSpec spec;

    @Option(names = "--keep-running", description = "with --file: keep PostgreSQL running (to query it) until Ctrl-C")
    boolean keepRunning;

    @Option(names = "--file", description = "load the bundled sample file instead of streaming")
    boolean file;

    @Option(names = "--events", defaultValue = "3000", description = "events in the first burst; default: ${DEFAULT-VALUE}")
    int events;

    @Option(names = "--exit", description = "exit after the first burst instead of streaming on until Ctrl-C")
    boolean exitAfterBurst;

    @Option(names = "--metrics-port", defaultValue = "9464", description = "Prometheus scrape port, -1 for none; default: ${DEFAULT-VALUE}")
    int metricsPort;

    @Option(names = "--admin-port", defaultValue = "8080", description = "the admin UI's port (streaming demo), -1 for none; default: ${DEFAULT-VALUE}")
    int adminPort;

    @Option(names = "--data-dir", description = "where the embedded broker and PostgreSQL keep data; default: a temporary folder")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
        return file ? fileDemo() : streamingDemo();
    }

    private Integer streamingDemo() throws Exception {
        return CommandSupport.run(spec, () -> {
            PrintWriter out = spec.commandLine().getOut();
            DimstreamConfig config = DimstreamConfig.parse(resource(CONFIG), "config " + CONFIG + " (bundled)", Map.of());
            Path dir = dataDir != null ? dataDir : Files.createTempDirectory("dimstream-demo");
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            StreamingDemo demo = new StreamingDemo(config, dir, registry);
            StreamingDemo.Running running = demo.start(out, events);
            MetricsHttpServer metrics = metricsPort < 0 ? null : MetricsHttpServer.start("127.0.0.1", metricsPort, registry,
                    running.service()::health);
            AdminServer.Running admin = null;
            try {
                demo.report(out, running, metrics == null ? -1 : metrics.port());
                if (exitAfterBurst) {
                    return 0;
                }
                admin = startAdmin(out, config, running);
                out.println("streaming 2 events a second; press Ctrl-C to stop");
                out.flush();
                Thread producer = Thread.currentThread();
                Runtime.getRuntime().addShutdownHook(new Thread(producer::interrupt, "dimstream-demo-stop"));
                try {
                    running.trickle(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            } finally {
                if (admin != null) {
                    admin.close();
                }
                if (metrics != null) {
                    metrics.close();
                }
                running.close();
            }
        });
    }

    /**
     * The admin UI over the demo's PostgreSQL, with one admin login whose password is made up now
     * and printed (a demo on a shared machine is not open to everyone). Null when it is switched
     * off or cannot start (the demo goes on without it).
     */
    private AdminServer.Running startAdmin(PrintWriter out, DimstreamConfig config, StreamingDemo.Running running) {
        if (adminPort < 0) {
            return null;
        }
        String password = Sessions.randomToken().substring(0, 16);
        // the demo serves plain http on 127.0.0.1, so its cookies cannot be Secure (the one place
        // secure-cookie is off: a config's admin section has it on unless it says otherwise)
        AdminConfig admin = new AdminConfig("127.0.0.1", adminPort, AdminConfig.DEFAULT_SESSION_TIMEOUT, false,
                List.of(new AdminConfig.User("demo", AdminConfig.Role.ADMIN, Optional.empty(), Optional.of(password))), List.of());
        DimstreamConfig withAdmin = new DimstreamConfig(config.kafka(), config.postgres(), config.entities(), config.batchSize(),
                config.sink(), Optional.of(admin));
        try {
            AdminServer.Running h = AdminServer.start(withAdmin, running.service().database().dataSource(), AdminSettings.fromConfig());
            out.println("admin UI: " + h.url() + "  (login: demo / " + password + ")");
            out.flush();
            return h;
        } catch (RuntimeException e) {
            out.println("admin UI not started on port " + adminPort + ": " + e.getMessage() + " (try --admin-port)");
            out.flush();
            return null;
        }
    }

    private Integer fileDemo() throws Exception {
        return CommandSupport.run(spec, () -> {
            PrintWriter out = spec.commandLine().getOut();
            // the bundled config references no environment variable
            DimstreamConfig config = DimstreamConfig.parse(resource(CONFIG), "config " + CONFIG + " (bundled)", Map.of());
            EntitySpec customer = config.entity("customer").toEntitySpec();
            out.println("starting embedded PostgreSQL ...");
            out.flush();
            Databases.Handle db = startPostgres();
            boolean stopOnReturn = true;
            try {
                LoadReport report;
                try (BufferedReader in = new BufferedReader(new InputStreamReader(open(EVENTS), StandardCharsets.UTF_8))) {
                    report = CommandSupport.prepareAndLoad(out, db.dataSource(), customer, LoadFields.of(config.entity("customer")),
                            config.batchSize(), in, "customers.jsonl");
                }
                out.println("loaded " + EVENTS + " (" + report.lines() + " lines) into entity " + customer.name()
                        + ", table " + customer.table() + ":");
                LoadReportPrinter.print(out, report);
                out.println();
                out.println("history of every " + customer.name() + " (table " + customer.table() + "):");
                HistoryTablePrinter.print(out, db.dataSource(), customer);
                out.println();
                out.println("JDBC URL: " + db.jdbcUrl());
                out.flush();
                if (keepRunning) {
                    stopOnReturn = false;
                    waitForCtrlC(out, db);
                }
            } finally {
                if (stopOnReturn) {
                    db.close();
                }
            }
            return 0;
        });
    }

    private static Databases.Handle startPostgres() {
        try {
            return Databases.embedded(null);
        } catch (UncheckedIOException e) {
            throw new CliFailure(CliFailure.FAILED, e.getMessage(), e);
        }
    }

    /**
     * Blocks until the JVM is asked to stop (Ctrl-C); a shutdown hook then stops PostgreSQL.
     * The latch is never counted down: the hook, not this thread, ends the demo.
     */
    private static void waitForCtrlC(PrintWriter out, Databases.Handle db) {
        Thread hook = new Thread(() -> {
            out.println("stopping PostgreSQL");
            out.flush();
            db.close();
        }, "dimstream-demo-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("PostgreSQL keeps running; press Ctrl-C to stop it.");
        out.flush();
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Runtime.getRuntime().removeShutdownHook(hook);
            db.close();
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = open(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static InputStream open(String name) {
        InputStream in = DemoCommand.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("resource " + name + " is missing from the classpath (broken build)");
        }
        return in;
    }
}
