package io.dimstream.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The check verb's contract (report printed, exit 0/1/2) with the checker given in the test;
 * the real checker is wired once io.dimstream.db.read.IntegrityChecker is on main.
 */
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
        CommandLine cli = new CommandLine(new DimstreamCli()).addSubcommand(new CheckCommand(checker));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
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
