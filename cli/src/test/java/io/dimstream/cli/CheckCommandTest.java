package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The check verb: the report printed, exit 0 when sound, 1 when broken, 2 when it cannot run. */
class CheckCommandTest {

    @TempDir
    Path dir;

    private final List<String> checked = new ArrayList<>();

    private Path config() throws IOException {
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: customer
                    topic: crm.customers
                    table: cli_check_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """.formatted(TestPostgres.jdbcUrl()));
        return file;
    }

    private CliRun run(CheckCommand.Checker checker, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine.IFactory withChecker = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> cls) throws Exception {
                return cls == CheckCommand.class ? cls.cast(new CheckCommand(checker)) : CommandLine.defaultFactory().create(cls);
            }
        };
        CommandLine cli = new CommandLine(new DimstreamCli(), withChecker);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    @Test
    void realCheckerReportsALoadedTableSoundAndAHandBrokenOneBroken() throws Exception {
        Path config = config();
        Path input = dir.resolve("events.jsonl");
        Files.write(input, List.of(
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-01T09:00:00Z\", \"data\": {\"customer_id\": \"C1\", \"email\": \"a@x.io\"}}",
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-02T09:00:00Z\", \"data\": {\"customer_id\": \"C1\", \"email\": \"b@x.io\"}}",
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-03T09:00:00Z\", \"data\": {\"customer_id\": \"C1\", \"email\": \"c@x.io\"}}"));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", input.toString()).exitCode())
                .isZero();

        CliRun sound = CliRun.of("check", "--config", config.toString(), "--entity", "customer");

        assertThat(sound).isEqualTo(new CliRun(0, "OK: customer: 3 rows, no findings\n", ""));

        try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM cli_check_customer WHERE valid_from = '2025-08-02T09:00:00Z'");
        }
        CliRun broken = CliRun.of("check", "--config", config.toString(), "--entity", "customer");

        assertThat(broken.exitCode()).isEqualTo(1);
        assertThat(broken.out()).startsWith("FAILED: customer: 2 rows, 1 finding (GAP 1)\n");
        assertThat(broken.err()).isEmpty();
    }

    private CheckCommand.Checker answering(boolean ok, String report) {
        return (ds, e) -> {
            checked.add(e.name() + " " + e.table());
            return new CheckCommand.Outcome(ok, report);
        };
    }

    @Test
    void soundTablePrintsTheReportAndExitsZero() throws Exception {
        CliRun run = run(answering(true, "dim ok: 12 rows, no findings"), "check", "--config", config().toString(), "--entity", "customer");

        assertThat(run).isEqualTo(new CliRun(0, "dim ok: 12 rows, no findings\n", ""));
        assertThat(checked).containsExactly("customer cli_check_customer");
    }

    @Test
    void brokenTablePrintsTheReportAndExitsOne() throws Exception {
        CliRun run = run(answering(false, "2 findings\noverlap C1\n"), "check", "--config", config().toString(), "--entity", "customer");

        assertThat(run).isEqualTo(new CliRun(1, "2 findings\noverlap C1\n", ""));
    }

    @Test
    void checkThatCannotRunExitsTwoWithTheReason() throws Exception {
        CheckCommand.Checker failing = (ds, e) -> {
            throw new SQLException("relation \"cli_check_customer\" does not exist", "42P01");
        };

        CliRun run = run(failing, "check", "--config", config().toString(), "--entity", "customer");

        assertThat(run).isEqualTo(new CliRun(2, "", "dimstream check: cannot check table cli_check_customer of entity customer:"
                + " relation \"cli_check_customer\" does not exist (SQL state 42P01)\n"));
    }
}
