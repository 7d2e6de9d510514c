package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
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

/**
 * {@code dimstream load} into an entity with {@code valid-to-current: infinity}: the table's open
 * versions end at infinity; the same table under a config that says {@code null} is refused before
 * anything is written, with what to do.
 */
class ValidToCurrentLoadTest {

    @TempDir
    Path dir;

    private Path config(String validToCurrent) throws Exception {
        return Files.writeString(dir.resolve("dimstream-" + validToCurrent + ".yml"), """
                postgres:
                  url: "%s"
                entities:
                  - name: plan
                    topic: crm.plans
                    table: cli_vtc_plan
                    key: [id]
                    tracked: [tier]
                    lateness-horizon: unlimited
                    columns: {id: text, tier: text}
                    valid-to-current: %s
                """.formatted(TestPostgres.jdbcUrl(), validToCurrent));
    }

    @Test
    void loadWritesInfinityAndTheSameTableUnderNullIsRefused() throws Exception {
        Path events = Files.write(dir.resolve("events.jsonl"), List.of(
                "{\"op\": \"upsert\", \"event_time\": \"2025-01-01T00:00:00Z\", \"data\": {\"id\": \"P1\", \"tier\": \"free\"}}",
                "{\"op\": \"upsert\", \"event_time\": \"2025-02-01T00:00:00Z\", \"data\": {\"id\": \"P1\", \"tier\": \"pro\"}}",
                "{\"op\": \"upsert\", \"event_time\": \"2025-01-15T00:00:00Z\", \"data\": {\"id\": \"P2\", \"tier\": \"free\"}}",
                "{\"op\": \"delete\", \"event_time\": \"2025-03-01T00:00:00Z\", \"data\": {\"id\": \"P2\"}}"));
        CliRun load = CliRun.of("load", "--config", config("infinity").toString(), "--entity", "plan", "--input", events.toString());
        assertThat(load.exitCode()).as(load.err()).isZero();
        List<String> table = rows();
        assertThat(table).isEqualTo(List.of(
                "P1 free 2025-01-01 00:00:00+00 2025-02-01 00:00:00+00 f f",
                "P1 pro 2025-02-01 00:00:00+00 infinity t f",
                "P2 free 2025-01-15 00:00:00+00 2025-03-01 00:00:00+00 f f",
                "P2 free 2025-03-01 00:00:00+00 infinity f t"));

        CliRun refused = CliRun.of("load", "--config", config("null").toString(), "--entity", "plan", "--input", events.toString());
        assertThat(refused).isEqualTo(new CliRun(2, "", "dimstream load: entity plan: table cli_vtc_plan ends its open versions at "
                + "'infinity' (it was created with valid-to-current: infinity), but the config says valid-to-current: null. dimstream "
                + "does not convert an existing table (its generated column is_current would have to be dropped, and with it every view "
                + "on the table). Either keep valid-to-current: infinity for entity plan, or rebuild: give it a new table: with "
                + "valid-to-current: null, fill that from the topic (dimstream replay --config FILE --entity plan --from earliest --wait) "
                + "or from files (dimstream load), then drop cli_vtc_plan (docs/configuration.md, \"Open versions: NULL or infinity\")\n"));
        assertThat(rows()).as("nothing written").isEqualTo(table);
    }

    private static List<String> rows() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            try (ResultSet rs = s.executeQuery("SELECT id, tier, valid_from, valid_to, is_current, is_deleted FROM cli_vtc_plan ORDER BY id, valid_from")) {
                while (rs.next()) {
                    out.add(String.join(" ", rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6)));
                }
            }
        }
        return out;
    }
}
