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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load} of the same file again is the same arrival ({@link LoadArrival}): its lines get the
 * seqs of its first load, so every event is a duplicate, and a same-time event that lost its tie
 * loses it again. Before, every run was a later arrival: the tie's loser won for a moment and lost
 * again, rewriting the version (a new event_seq and loaded_at, an image in the superseded table),
 * and a loser older than the horizon went to the quarantine. Another file is a later arrival and
 * wins its ties; the first file loaded after it does not take them back. Real PostgreSQL; whole rows.
 */
class LoadSameInputAgainTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final String ROW = "%-12s %8d%n";

    @TempDir
    Path dir;

    private Path config(String table) throws IOException, SQLException {
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.%s
                    table: %s
                    key: [id]
                    tracked: [name]
                    lateness-horizon: P30D
                    columns: {id: text, name: text}
                """.formatted(TestPostgres.jdbcUrl(), table, table, table));
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_events, " + table + "_superseded CASCADE");
            s.execute("DELETE FROM dimstream.quarantine WHERE entity = '" + table + "'");
        } catch (SQLException noSchemaYet) {
            // dimstream's schema exists once a load has migrated it
        }
        return file;
    }

    private static String report(long applied, long neu, long changed, long late, long duplicates) {
        return ROW.formatted("applied", applied) + ROW.formatted("new", neu) + ROW.formatted("changed", changed)
                + ROW.formatted("deleted", 0) + ROW.formatted("unchanged", 0) + ROW.formatted("late", late)
                + ROW.formatted("duplicates", duplicates) + ROW.formatted("quarantined", 0) + ROW.formatted("rejected", 0);
    }

    @Test
    void theSameFileAgainIsTheSameArrivalInAnyBatchingAndAnotherFileWinsItsTiesForGood() throws Exception {
        String table = "load_again";
        Path config = config(table);
        Path first = dir.resolve("first.jsonl");
        // two events of each key at one time (the later line wins), then one 59 days (1) and 4 days (2) later
        Files.writeString(first, """
                {"op":"upsert","event_time":"2025-01-01T00:00:00Z","data":{"id":"1","name":"A"}}
                {"op":"upsert","event_time":"2025-01-01T00:00:00Z","data":{"id":"1","name":"B"}}
                {"op":"upsert","event_time":"2025-03-01T00:00:00Z","data":{"id":"1","name":"C"}}
                {"op":"upsert","event_time":"2025-01-01T00:00:00Z","data":{"id":"2","name":"A"}}
                {"op":"upsert","event_time":"2025-01-01T00:00:00Z","data":{"id":"2","name":"B"}}
                {"op":"upsert","event_time":"2025-01-05T00:00:00Z","data":{"id":"2","name":"C"}}
                """);
        CliRun once = load(config, table, first);
        assertThat(once).isEqualTo(new CliRun(0, report(6, 4, 2, 0, 0), ""));
        assertThat(names(table)).containsExactly("1|B|2025-01-01|2025-03-01", "1|C|2025-03-01|null", "2|B|2025-01-01|2025-01-05",
                "2|C|2025-01-05|null");
        List<String> rows = wholeRows(table);

        for (String batchSize : List.of("1", "1000")) {
            CliRun again = load(config, table, first, "--batch-size", batchSize);
            assertThat(again).isEqualTo(new CliRun(0, report(0, 0, 0, 0, 6), ""));
            assertThat(wholeRows(table)).isEqualTo(rows);
            assertThat(count("SELECT count(*) FROM " + table + "_superseded")).isZero();
            assertThat(count("SELECT count(*) FROM dimstream.quarantine WHERE entity = '" + table + "'")).isZero();
        }

        // another file with another name for 2 at the same time: a later arrival, it wins the tie
        Path correction = dir.resolve("correction.jsonl");
        Files.writeString(correction, """
                {"op":"upsert","event_time":"2025-01-01T00:00:00Z","data":{"id":"2","name":"Z"}}
                """);
        assertThat(load(config, table, correction)).isEqualTo(new CliRun(0, report(1, 0, 0, 1, 0), ""));
        List<String> corrected = names(table);
        assertThat(corrected).containsExactly("1|B|2025-01-01|2025-03-01", "1|C|2025-03-01|null", "2|Z|2025-01-01|2025-01-05",
                "2|C|2025-01-05|null");
        // and the first file loaded again does not take it back: its B arrived before Z
        assertThat(load(config, table, first)).isEqualTo(new CliRun(0, report(0, 0, 0, 0, 6), ""));
        assertThat(names(table)).isEqualTo(corrected);
        assertThat(count("SELECT loads FROM dimstream.load_inputs WHERE entity = '" + table + "' AND input_name = '" + first + "'"))
                .isEqualTo(4);
    }

    /** Each load in a second of its own: a load's seq counts whole seconds, so a run in the same second could not tell. */
    private static CliRun load(Path config, String table, Path input, String... more) throws InterruptedException {
        Thread.sleep(1_001 - System.currentTimeMillis() % 1_000);
        List<String> args = new ArrayList<>(List.of("load", "--config", config.toString(), "--entity", table, "--input", input.toString()));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    /** Every column of every version (lineage, loaded_at and event_seq included) as JSON text. */
    private static List<String> wholeRows(String table) throws SQLException {
        return strings("SELECT to_jsonb(t)::text FROM " + table + " t ORDER BY id, valid_from");
    }

    private static List<String> names(String table) throws SQLException {
        return strings("SELECT id || '|' || name || '|' || valid_from::date || '|' || coalesce(valid_to::date::text, 'null') FROM "
                + table + " ORDER BY id, valid_from");
    }

    private static List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            try (ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = DS.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
