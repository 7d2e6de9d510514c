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
 * A change loaded into a snapshot entity before slices loaded earlier is judged by them: a key the
 * change makes live at a later slice's instant, which that slice did not carry, is deleted there, so
 * the table is the one loading everything in time order gives (formats.md: "the table ends as if
 * every slice had been loaded in time order"). Before, such a key stayed live until some older
 * slice was loaded. Real PostgreSQL; the versions of both orders compared whole.
 */
class LoadChangesBeforeSlicesTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @TempDir
    Path dir;

    private Path config(String... tables) throws IOException, SQLException {
        StringBuilder entities = new StringBuilder();
        for (String t : tables) {
            entities.append("""
                      - name: %s
                        topic: crm.%s
                        mode: snapshot
                        table: %s
                        key: [id]
                        tracked: [name]
                        lateness-horizon: unlimited
                        columns: {id: text, name: text}
                    """.formatted(t, t, t));
            try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + t + ", " + t + "_events, " + t + "_superseded CASCADE");
                s.execute("DELETE FROM dimstream.snapshot_slices WHERE entity = '" + t + "'");
            } catch (SQLException noSchemaYet) {
                // dimstream's schema exists once a load has migrated it
            }
        }
        return Files.writeString(dir.resolve("dimstream.yml"), "postgres:\n  url: \"" + TestPostgres.jdbcUrl() + "\"\nentities:\n" + entities);
    }

    @Test
    void aChangeLoadedAfterLaterSlicesEndsAsLoadingInTimeOrder() throws Exception {
        Path config = config("slices_then_change", "in_time_order");
        Path first = Files.writeString(dir.resolve("2025-06-01.csv"), "id,name\nA,a1\nB,b1\n");
        Path third = Files.writeString(dir.resolve("2025-06-03.csv"), "id,name\nA,a1\nB,b1\n");
        Path fifth = Files.writeString(dir.resolve("2025-06-05.csv"), "id,name\nA,a2\nB,b1\n");
        // C is new at 06-04, which the slice of 06-05 does not carry; A changes at 06-02, which 06-03 carries
        Path changes = Files.writeString(dir.resolve("changes.jsonl"), """
                {"op":"upsert","event_time":"2025-06-02T00:00:00Z","data":{"id":"A","name":"a9"}}
                {"op":"upsert","event_time":"2025-06-04T00:00:00Z","data":{"id":"C","name":"c1"}}
                """);

        for (Path slice : List.of(first, third, fifth)) {
            load(config, "slices_then_change", slice, "--slice-at", slice.getFileName().toString().replace(".csv", "T00:00:00Z"));
        }
        CliRun late = load(config, "slices_then_change", changes);
        load(config, "in_time_order", first, "--slice-at", "2025-06-01T00:00:00Z");
        load(config, "in_time_order", third, "--slice-at", "2025-06-03T00:00:00Z");
        load(config, "in_time_order", changes);
        load(config, "in_time_order", fifth, "--slice-at", "2025-06-05T00:00:00Z");

        assertThat(late.exitCode()).isZero();
        List<String> want = List.of(
                "A|a1|2025-06-01|2025-06-02|false", "A|a9|2025-06-02|2025-06-03|false", "A|a1|2025-06-03|2025-06-05|false",
                "A|a2|2025-06-05|null|false",
                "B|b1|2025-06-01|null|false",
                "C|c1|2025-06-04|2025-06-05|false", "C|c1|2025-06-05|null|true");
        assertThat(versions("in_time_order")).isEqualTo(want);
        assertThat(versions("slices_then_change")).isEqualTo(want);
    }

    private static CliRun load(Path config, String entity, Path input, String... more) {
        List<String> args = new ArrayList<>(List.of("load", "--config", config.toString(), "--entity", entity, "--input", input.toString()));
        args.addAll(List.of(more));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.err()).isEmpty();
        return run;
    }

    private static List<String> versions(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id || '|' || name || '|' || valid_from::date || '|' || coalesce(valid_to::date::text, "
                     + "'null') || '|' || is_deleted FROM " + table + " ORDER BY id, valid_from")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
