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
 * {@code load} reads an entity's fields as its topic does: a field {@code schema-evolution: lenient}
 * finds missing carries its value on (a column of the config's or one added while running), a field
 * new to the entity becomes a column with {@code new-columns:}, a CSV file may hold the columns added
 * while running, and an undeclared field is dropped with the line landing ({@code undeclared-columns:
 * ignore}) or refuses the line ({@code reject}); a new field only an erased key's line carries adds no
 * column. Before, a load read a missing field as NULL, refused
 * an undeclared one and refused a CSV header naming a column added while running. Real PostgreSQL;
 * whole tables and reports compared.
 */
class LoadSchemaEvolutionTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final String COUNTS = "%-12s %8d%n";

    @TempDir
    Path dir;

    private Path config(String table) throws IOException, SQLException {
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: [email, city]
                    lateness-horizon: unlimited
                    schema-evolution: lenient
                    new-columns: tracked
                    columns: {customer_id: text, email: text, city: text}
                  - name: %s_plain
                    topic: crm.plain
                    table: %s_plain
                    key: [customer_id]
                    tracked: [email]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text}
                  - name: %s_strict
                    topic: crm.strict
                    table: %s_strict
                    key: [customer_id]
                    tracked: [email]
                    lateness-horizon: unlimited
                    undeclared-columns: reject
                    columns: {customer_id: text, email: text}
                """.formatted(TestPostgres.jdbcUrl(), table, table, table, table, table, table));
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            for (String t : List.of(table, table + "_plain", table + "_strict")) {
                s.execute("DROP TABLE IF EXISTS " + t + ", " + t + "_events, " + t + "_superseded CASCADE");
            }
        }
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM dimstream.entity_columns WHERE entity = '" + table + "'");
            s.execute("DELETE FROM dimstream.erased_keys WHERE entity = '" + table + "'");
        } catch (SQLException noCatalogYet) {
            // the catalog exists once a load has migrated dimstream's schema
        }
        return file;
    }

    private static String counts(long applied, long neu, long changed, long rejected) {
        return counts(applied, neu, changed, 0, rejected);
    }

    /** The load report's counts; {@code erased} shows only when there are some, as the report prints it. */
    private static String counts(long applied, long neu, long changed, long erased, long rejected) {
        return COUNTS.formatted("applied", applied) + COUNTS.formatted("new", neu) + COUNTS.formatted("changed", changed)
                + COUNTS.formatted("deleted", 0) + COUNTS.formatted("unchanged", 0) + COUNTS.formatted("late", 0)
                + COUNTS.formatted("duplicates", 0) + COUNTS.formatted("quarantined", 0)
                + (erased > 0 ? COUNTS.formatted("erased", erased) : "") + COUNTS.formatted("rejected", rejected);
    }

    @Test
    void aLenientEntityCarriesMissingFieldsOnAndTakesNewOnesAsColumnsFromJsonLinesAndCsv() throws Exception {
        Path config = config("load_evolving");
        Path jsonl = dir.resolve("changes.jsonl");
        Files.writeString(jsonl, """
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C1","email":"a@x","city":"Oslo"}}
                {"op":"upsert","event_time":"2025-08-02T00:00:00Z","data":{"customer_id":"C1","email":"b@x"}}
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C2","email":"c@x","city":"Rome","segment":"gold"}}
                {"op":"upsert","event_time":"2025-08-03T00:00:00Z","data":{"customer_id":"C2","email":"d@x","city":"Rome"}}
                """);
        CliRun first = CliRun.of("load", "--config", config.toString(), "--entity", "load_evolving", "--input", jsonl.toString());
        assertThat(first.out()).isEqualTo(counts(4, 2, 2, 0));
        assertThat(first.exitCode()).isZero();

        // a CSV file holding the column the first load added, then one without it
        Path withSegment = dir.resolve("with-segment.csv");
        Files.writeString(withSegment, """
                customer_id,email,city,segment,ts
                C3,e@x,Lima,silver,2025-08-01T00:00:00Z
                """);
        CliRun second = CliRun.of("load", "--config", config.toString(), "--entity", "load_evolving", "--input", withSegment.toString(),
                "--time-column", "ts");
        assertThat(second.err()).isEmpty();
        assertThat(second.out()).isEqualTo(counts(1, 1, 0, 0));
        Path withoutSegment = dir.resolve("without-segment.csv");
        Files.writeString(withoutSegment, """
                customer_id,email,city,ts
                C3,f@x,Lima,2025-08-04T00:00:00Z
                """);
        CliRun third = CliRun.of("load", "--config", config.toString(), "--entity", "load_evolving", "--input", withoutSegment.toString(),
                "--time-column", "ts");
        assertThat(third.err()).isEmpty();
        assertThat(third.out()).isEqualTo(counts(1, 0, 1, 0));

        assertThat(rows("SELECT customer_id, email, city, segment, valid_from, valid_to FROM load_evolving ORDER BY customer_id, valid_from"))
                .containsExactly(
                        "C1|a@x|Oslo|null|2025-08-01 00:00:00+00|2025-08-02 00:00:00+00",
                        "C1|b@x|Oslo|null|2025-08-02 00:00:00+00|null",
                        "C2|c@x|Rome|gold|2025-08-01 00:00:00+00|2025-08-03 00:00:00+00",
                        "C2|d@x|Rome|gold|2025-08-03 00:00:00+00|null",
                        "C3|e@x|Lima|silver|2025-08-01 00:00:00+00|2025-08-04 00:00:00+00",
                        "C3|f@x|Lima|silver|2025-08-04 00:00:00+00|null");
        assertThat(rows("SELECT column_name, sql_type, role, origin, first_source FROM dimstream.entity_columns WHERE entity = 'load_evolving'"))
                .containsExactly("segment|text|tracked|evolution|file:changes.jsonl line 3");
    }

    @Test
    void aColumnAddedWhileRunningThatTheConfigDeclaresSinceKeepsEveryHashAndMakesNoVersion() throws Exception {
        Path config = config("load_declared");
        Path jsonl = dir.resolve("changes.jsonl");
        Files.writeString(jsonl, """
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C1","email":"a@x","city":"Oslo"}}
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C2","email":"c@x","city":"Rome","segment":"gold"}}
                """);
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "load_declared", "--input", jsonl.toString()).out())
                .isEqualTo(counts(2, 2, 0, 0));
        String versions = "SELECT customer_id, email, city, segment, valid_from, valid_to, encode(record_hash, 'hex') FROM load_declared "
                + "ORDER BY customer_id, valid_from";
        List<String> before = rows(versions);

        // the user declares the column the load added, in the middle of the config's tracked columns
        Files.writeString(config, Files.readString(config)
                .replaceFirst("tracked: \\[email, city\\]", "tracked: [email, segment, city]")
                .replaceFirst("columns: \\{customer_id: text, email: text, city: text\\}",
                        "columns: {customer_id: text, email: text, segment: text, city: text}"));
        Path again = dir.resolve("again.jsonl");
        Files.writeString(again, """
                {"op":"upsert","event_time":"2025-08-05T00:00:00Z","data":{"customer_id":"C1","email":"a@x","city":"Oslo","segment":null}}
                {"op":"upsert","event_time":"2025-08-05T00:00:00Z","data":{"customer_id":"C2","email":"c@x","city":"Rome","segment":"gold"}}
                {"op":"upsert","event_time":"2025-08-06T00:00:00Z","data":{"customer_id":"C2","email":"c@x","city":"Rome","segment":"silver"}}
                """);
        CliRun second = CliRun.of("load", "--config", config.toString(), "--entity", "load_declared", "--input", again.toString());
        assertThat(second.err()).isEmpty();
        assertThat(second.out()).isEqualTo(COUNTS.formatted("applied", 3) + COUNTS.formatted("new", 0) + COUNTS.formatted("changed", 1)
                + COUNTS.formatted("deleted", 0) + COUNTS.formatted("unchanged", 2) + COUNTS.formatted("late", 0)
                + COUNTS.formatted("duplicates", 0) + COUNTS.formatted("quarantined", 0) + COUNTS.formatted("rejected", 0));

        // the versions before keep their rows and hashes; only C2's segment change made one
        List<String> after = rows(versions);
        assertThat(after).hasSize(3);
        assertThat(after.subList(0, 2)).containsExactly(before.get(0), before.get(1).replace("|null|", "|2025-08-06 00:00:00+00|"));
        assertThat(after.get(2).substring(0, after.get(2).lastIndexOf('|'))).isEqualTo(
                "C2|c@x|Rome|silver|2025-08-06 00:00:00+00|null");
    }

    @Test
    void anUndeclaredFieldIsDroppedWithTheLineLandingOrRefusesTheLineWhenTheEntityRejectsThem() throws Exception {
        Path config = config("load_undeclared");
        Path jsonl = dir.resolve("wide.jsonl");
        Files.writeString(jsonl, """
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C1","email":"a@x","tier":"vip"}}
                {"op":"upsert","event_time":"2025-08-02T00:00:00Z","data":{"customer_id":"C1","email":"b@x"}}
                """);
        CliRun plain = CliRun.of("load", "--config", config.toString(), "--entity", "load_undeclared_plain", "--input", jsonl.toString());
        assertThat(plain.out()).isEqualTo(counts(2, 1, 1, 0));
        assertThat(plain.exitCode()).isZero();
        assertThat(rows("SELECT customer_id, email, valid_from, valid_to FROM load_undeclared_plain ORDER BY valid_from")).containsExactly(
                "C1|a@x|2025-08-01 00:00:00+00|2025-08-02 00:00:00+00",
                "C1|b@x|2025-08-02 00:00:00+00|null");

        CliRun strict = CliRun.of("load", "--config", config.toString(), "--entity", "load_undeclared_strict", "--input", jsonl.toString());
        assertThat(strict.out()).isEqualTo(counts(1, 1, 0, 1) + "line 1: column 'tier' is not declared for entity 'load_undeclared_strict'\n");
        assertThat(rows("SELECT customer_id, email, valid_from, valid_to FROM load_undeclared_strict ORDER BY valid_from")).containsExactly(
                "C1|b@x|2025-08-02 00:00:00+00|null");
    }

    @Test
    void aNewFieldOnlyAnErasedKeyCarriesAddsNoColumnAndItsLinesAreErasedNotRefused() throws Exception {
        Path config = config("load_erased");
        Path first = dir.resolve("first.jsonl");
        Files.writeString(first, """
                {"op":"upsert","event_time":"2025-08-01T00:00:00Z","data":{"customer_id":"C9","email":"z@x","city":"Oslo"}}
                """);
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "load_erased", "--input", first.toString()).exitCode()).isZero();
        CliRun erase = CliRun.of("erase", "--config", config.toString(), "--entity", "load_erased", "--key", "C9", "--user", "dpo");
        assertThat(erase.exitCode()).isZero();

        Path later = dir.resolve("later.jsonl");
        Files.writeString(later, """
                {"op":"upsert","event_time":"2025-08-02T00:00:00Z","data":{"customer_id":"C9","email":"z@y","city":"Oslo","tier":"vip"}}
                {"op":"upsert","event_time":"2025-08-02T00:00:00Z","data":{"customer_id":"C1","email":"a@x","city":"Rome"}}
                """);
        CliRun load = CliRun.of("load", "--config", config.toString(), "--entity", "load_erased", "--input", later.toString());

        assertThat(load.out()).isEqualTo(counts(1, 1, 0, 1, 0));
        assertThat(rows("SELECT column_name FROM information_schema.columns WHERE table_name = 'load_erased' AND column_name = 'tier'"))
                .isEmpty();
        assertThat(rows("SELECT column_name FROM dimstream.entity_columns WHERE entity = 'load_erased'")).isEmpty();
        assertThat(rows("SELECT customer_id, email, city, valid_from, valid_to FROM load_erased ORDER BY customer_id")).containsExactly(
                "C1|a@x|Rome|2025-08-02 00:00:00+00|null");
    }

    private static List<String> rows(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            try (ResultSet rs = s.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> cols = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        cols.add(String.valueOf(rs.getString(i)));
                    }
                    out.add(String.join("|", cols));
                }
            }
        }
        return out;
    }
}
