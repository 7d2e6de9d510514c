package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadCommandTest {

    @TempDir
    Path dir;

    /** A config for the test database; {@code table} keeps each test's rows apart. */
    private Path config(String table, String horizon) throws IOException {
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: customer
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: [email, city]
                    type1: [last_login]
                    lateness-horizon: %s
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                """.formatted(TestPostgres.jdbcUrl(), table, horizon));
        return file;
    }

    private Path input(String... lines) throws IOException {
        Path file = dir.resolve("events.jsonl");
        Files.write(file, List.of(lines));
        return file;
    }

    private static String upsert(String time, String id, String email, String city, int lastLogin) {
        return "{\"op\": \"upsert\", \"event_time\": \"" + time + "\", \"data\": {\"customer_id\": \"" + id
                + "\", \"email\": \"" + email + "\", \"city\": \"" + city + "\", \"last_login\": " + lastLogin + "}}";
    }

    @Test
    void loadPrintsEveryCountAndEachRefusedLineInLineOrder() throws Exception {
        Path config = config("cli_load_customer", "P30D");
        Path input = input(
                upsert("2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1),                        // 1 new
                "",                                                                                  // 2 blank
                upsert("2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1),                         // 3 new
                upsert("2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2),                         // 4 changed
                upsert("2025-08-03T09:00:00Z", "C1", "a@x.io", "Lyon", 3),                         // 5 unchanged (type 1 only)
                "{\"op\": \"delete\", \"event_time\": \"2025-08-04T09:00:00Z\", \"data\": {\"customer_id\": \"C2\"}}", // 6 deleted
                upsert("2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2),                         // 7 duplicate of 4
                "not json",                                                                          // 8 rejected by the parser
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-05T09:00:00Z\", \"data\": {\"customer_id\": \"C3\", \"city\": 5}}", // 9 rejected
                upsert("2025-08-01T12:00:00Z", "C1", "a@x.io", "Nice", 9),                         // 10 late, within the horizon
                upsert("2025-06-01T09:00:00Z", "C2", "b@x.io", "Rome", 1),                         // 11 beyond the horizon
                "{\"op\": \"upsert\", \"data\": {\"customer_id\": \"C4\"}}");                        // 12 rejected: no event_time

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer",
                "--input", input.toString(), "--batch-size", "4");

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo("""
                applied             6
                new                 2
                changed             1
                deleted             1
                unchanged           1
                late                1
                duplicates          1
                quarantined         1
                rejected            3
                line 8: not valid JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')
                line 9: column 'city': expected text, got number 5
                line 12: event_time is missing
                """);
        assertThat(run.exitCode()).isZero();
        assertThat(history("cli_load_customer")).containsExactly(
                "C1 2025-08-01 09:00:00+00 -> 2025-08-01 12:00:00+00 Paris 1",
                "C1 2025-08-01 12:00:00+00 -> 2025-08-02 09:00:00+00 Nice 9",
                "C1 2025-08-02 09:00:00+00 -> current Lyon 3",
                "C2 2025-08-01 10:00:00+00 -> 2025-08-04 09:00:00+00 Rome 1",
                "C2 2025-08-04 09:00:00+00 -> deleted Rome 1");
    }

    @Test
    void aValueThePostgresTableRefusesIsReportedWithItsLineAndSqlStateAndTheRestLands() throws Exception {
        Path config = config("cli_load_refused", "P30D");
        // first load creates the table; then a constraint added by hand that validation cannot know
        CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input",
                input(upsert("2025-08-01T09:00:00Z", "C0", "z@x.io", "Oslo", 1)).toString());
        try (java.sql.Connection c = TestPostgres.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("ALTER TABLE cli_load_refused ADD CONSTRAINT no_atlantis CHECK (city <> 'Atlantis')");
        }
        Path input = input(
                upsert("2025-08-02T09:00:00Z", "C1", "a@x.io", "Paris", 1),
                upsert("2025-08-02T10:00:00Z", "C2", "b@x.io", "Atlantis", 1),
                upsert("2025-08-03T09:00:00Z", "C1", "a@x.io", "Atlantis", 2),
                upsert("2025-08-04T09:00:00Z", "C1", "a@x.io", "Lyon", 3));

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", input.toString(),
                "--parallel", "2");

        assertThat(run.err()).isEmpty();
        String refused = ": PostgreSQL refused the event: ERROR: new row for relation \"cli_load_refused\" violates check constraint"
                + " \"no_atlantis\"";
        assertThat(run.out()).isEqualTo("""
                applied             2
                new                 1
                changed             1
                deleted             0
                unchanged           0
                late                0
                duplicates          0
                quarantined         0
                rejected            2
                line 2""" + refused + """

                line 3""" + refused + "\n");
        assertThat(run.exitCode()).isZero();
        assertThat(history("cli_load_refused")).containsExactly(
                "C0 2025-08-01 09:00:00+00 -> current Oslo 1",
                "C1 2025-08-02 09:00:00+00 -> 2025-08-04 09:00:00+00 Paris 1",
                "C1 2025-08-04 09:00:00+00 -> current Lyon 3");
    }

    @Test
    void badConfigExitsTwoWithTheFieldNamingMessageAndNoStackTrace() throws Exception {
        Path config = config("cli_bad_config", "P3X");
        Path input = input(upsert("2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1));

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", input.toString());

        assertThat(run).isEqualTo(new CliRun(2, "", "dimstream load: config " + config
                + ": entities[0].lateness-horizon: \"P3X\" is not an ISO-8601 duration or \"unlimited\"\n"));
    }

    @Test
    void missingInputFileExitsTwo() throws Exception {
        Path config = config("cli_missing_input", "P30D");
        Path missing = dir.resolve("missing.jsonl");

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", missing.toString());

        assertThat(run).isEqualTo(new CliRun(2, "", "dimstream load: input file not found: " + missing + "\n"));
    }

    @Test
    void unknownEntityExitsTwoNamingTheConfiguredOnes() throws Exception {
        Path config = config("cli_unknown_entity", "P30D");
        Path input = input(upsert("2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1));

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "order", "--input", input.toString());

        assertThat(run).isEqualTo(new CliRun(2, "",
                "dimstream load: --entity: no entity named \"order\" in the config (configured: customer)\n"));
    }

    /** Each version as {@code key valid_from -> valid_to|current|deleted city last_login}. */
    private static List<String> history(String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            try (ResultSet rs = s.executeQuery("SELECT customer_id, valid_from::text, valid_to::text, is_current, is_deleted,"
                    + " city, last_login FROM " + table + " ORDER BY customer_id, valid_from")) {
                while (rs.next()) {
                    String to = rs.getBoolean("is_deleted") ? "deleted"
                            : rs.getBoolean("is_current") ? "current" : rs.getString("valid_to");
                    rows.add(rs.getString(1) + " " + rs.getString(2) + " -> " + to + " " + rs.getString("city") + " "
                            + rs.getLong("last_login"));
                }
            }
        }
        return rows;
    }
}
