package io.dimstream.app.cli;

import io.dimstream.app.load.LoadReport;
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
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream demo}: starts PostgreSQL inside the process, loads the bundled sample
 * customers through the same path as {@code load}, and prints the history it produced.
 * (The embedded broker and the UI join the demo when they exist.)
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Loads sample customers into an embedded PostgreSQL and prints their history.",
                "The bundled events hold creates, changes, deletes, a resurrection, duplicates, a same-time tie,",
                "late events and one malformed line; the demo prints the load counts and the history table."})
final class DemoCommand implements Callable<Integer> {

    static final String CONFIG = "demo/demo.yml";
    static final String EVENTS = "demo/customers.jsonl";

    @Spec
    CommandSpec spec;

    @Option(names = "--keep-running", description = "keep PostgreSQL running (to query it) until Ctrl-C")
    boolean keepRunning;

    @Override
    public Integer call() throws Exception {
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
                    report = CommandSupport.prepareAndLoad(out, db.dataSource(), customer, config.batchSize(), in, "customers.jsonl");
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
