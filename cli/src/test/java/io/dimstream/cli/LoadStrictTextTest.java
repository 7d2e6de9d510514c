package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load} reads text strictly on every input: a JSON line, a CSV or Parquet text column or a CSV header
 * that is not UTF-8 (a bad sequence, a surrogate encoded on its own as CESU-8 writes it) and a JSON
 * line with content after its object are refused with the reason, never loaded with U+FFFD or with
 * the content dropped; the rows around land exactly (the table equals the model of the good rows).
 * Before, the JSON lines were read through a UTF-8 Reader ({@code a\uFFFD(b} landed) and the
 * content after an object vanished.
 */
class LoadStrictTextTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final String HEADER_COUNTS = "%-12s %8d%n";

    @TempDir
    Path dir;

    private Path config(String table) throws IOException {
        Path file = dir.resolve("dimstream-" + table + ".yml");
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
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                """.formatted(TestPostgres.jdbcUrl(), table));
        return file;
    }

    private static String counts(long applied, long neu, long rejected) {
        return HEADER_COUNTS.formatted("applied", applied) + HEADER_COUNTS.formatted("new", neu) + HEADER_COUNTS.formatted("changed", 0)
                + HEADER_COUNTS.formatted("deleted", 0) + HEADER_COUNTS.formatted("unchanged", 0)
                + HEADER_COUNTS.formatted("late", 0) + HEADER_COUNTS.formatted("duplicates", 0)
                + HEADER_COUNTS.formatted("quarantined", 0) + HEADER_COUNTS.formatted("rejected", rejected);
    }

    private static Event upsert(String time, long seq, String id, String email, String city, Object lastLogin) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("email", email);
        m.put("city", city);
        m.put("last_login", lastLogin);
        return Event.upsert(Instant.parse(time), m, seq, new Source("model", null, seq));
    }

    private static byte[] bytes(String... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String p : parts) {
            out.writeBytes(p.startsWith("0x") ? HexFormat.of().parseHex(p.substring(2)) : p.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static String line(String id, String email) {
        return "{\"op\":\"upsert\",\"event_time\":\"2025-08-01T09:00:00Z\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\"" + email
                + "\",\"city\":\"Oslo\",\"last_login\":1}}";
    }

    @Test
    void jsonLinesThatAreNotUtf8OrHaveContentAfterTheirObjectAreRefusedAndTheRestLands() throws Exception {
        Path config = config("strict_jsonl");
        Path file = dir.resolve("events.jsonl");
        String head = "{\"op\":\"upsert\",\"event_time\":\"2025-08-01T09:00:00Z\",\"data\":{\"customer_id\":\"C9\",\"email\":\"";
        Files.write(file, bytes(line("C1", "é@x.io"), "\n",
                head, "0x61c32862", "\",\"city\":\"Oslo\",\"last_login\":1}}\r\n",                          // line 2: a C3 ( b
                head, "0x78eda080", "\",\"city\":\"Oslo\",\"last_login\":1}}\n",                            // line 3: U+D800 as CESU-8
                line("C8", "h@x.io"), "{\"op\":\"delete\",\"event_time\":\"2025-08-02T09:00:00Z\",\"data\":{\"customer_id\":\"C8\"}}\n",
                line("C2", "b@x.io"), " \t\n",                                                               // line 5: whitespace after it
                "\n",
                line("C3", "c@x.io")));                                                                      // line 7, no line end

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", file.toString());

        int trailingAt = line("C8", "h@x.io").length();
        assertThat(run).isEqualTo(new CliRun(0, counts(3, 3, 3) + """
                line 2: not valid UTF-8: malformed byte sequence at byte %d
                line 3: not valid UTF-8: malformed byte sequence at byte %d
                line 4: trailing content after the JSON value at byte %d
                """.formatted(head.length() + 1, head.length() + 1, trailingAt), ""));
        EntitySpec spec = DimstreamConfig.load(config, Map.of()).entity("customer").toEntitySpec();
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(List.of(
                upsert("2025-08-01T09:00:00Z", 1, "C1", "é@x.io", "Oslo", 1L),
                upsert("2025-08-01T09:00:00Z", 5, "C2", "b@x.io", "Oslo", 1L),
                upsert("2025-08-01T09:00:00Z", 7, "C3", "c@x.io", "Oslo", 1L))));
    }

    @Test
    void csvTextThatIsNotUtf8IsARefusedRowAndABadHeaderIsRefusedNamingTheByte() throws Exception {
        Path config = config("strict_csv");
        Path csv = dir.resolve("customers.csv");
        Files.write(csv, bytes("customer_id,email,city,last_login\n",
                "C1,a@x.io,Zürich,1\n",
                "C2,", "0x61c32862", ",Rome,1\n",
                "C3,c@x.io,", "0x78eda080", ",1\n",
                "C4,d@x.io,Oslo,1\n"));

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--event-time", "2025-08-01T00:00:00Z");

        assertThat(run).isEqualTo(new CliRun(0, counts(2, 2, 2) + """
                row 2: CSV invalid encoding: Invalid unicode (byte sequence mismatch) detected. This file is not utf-8 encoded.
                row 3: CSV invalid encoding: Invalid unicode (byte sequence mismatch) detected. This file is not utf-8 encoded.
                """, ""));
        EntitySpec spec = DimstreamConfig.load(config, Map.of()).entity("customer").toEntitySpec();
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(List.of(
                upsert("2025-08-01T00:00:00Z", 1, "C1", "a@x.io", "Zürich", "1"),
                upsert("2025-08-01T00:00:00Z", 4, "C4", "d@x.io", "Oslo", "1"))));

        Path badHeader = dir.resolve("bad-header.csv");
        Files.write(badHeader, bytes("customer_id,e", "0xc3286d61696c", ",city,last_login\n", "C1,a@x.io,Paris,1\n"));
        CliRun refused = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", badHeader.toString(),
                "--event-time", "2025-08-01T00:00:00Z");
        assertThat(refused).isEqualTo(new CliRun(CliFailure.USAGE, "", "dimstream load: cannot read " + badHeader
                + ": the header line of " + badHeader + " is not valid UTF-8: malformed byte sequence at byte 13\n"));
    }

    /**
     * A Parquet file DuckDB writes of {@code rows} (SQL values of customer_id, email, city, last_login),
     * then each hex byte run {@code from} replaced by the {@code to} after it in the file's bytes (the
     * value and any statistic holding it): how a file with text that is not UTF-8 is made.
     */
    private Path damagedParquet(String name, String rows, String... fromTo) throws Exception {
        Path parquet = dir.resolve(name);
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT * FROM (VALUES " + rows + ") t(customer_id, email, city, last_login)) TO '" + parquet
                    + "' (FORMAT parquet, COMPRESSION uncompressed)");
        }
        String hex = HexFormat.of().formatHex(Files.readAllBytes(parquet));
        for (int i = 0; i < fromTo.length; i += 2) {
            assertThat(hex).contains(fromTo[i]);
            hex = hex.replace(fromTo[i], fromTo[i + 1]);
        }
        Files.write(parquet, HexFormat.of().parseHex(hex));
        return parquet;
    }

    /**
     * Parquet: a string that is not UTF-8 (a bad sequence; a surrogate encoded on its own) makes its
     * row refused, naming the column; the rows around land. DuckDB's reader would stop the file at the
     * first such value ({@code SourceRows#parquet} reads it twice, mending bad bytes two ways, and
     * compares). The values are written by DuckDB and their bytes changed in the file afterwards.
     */
    @Test
    void parquetTextThatIsNotUtf8IsARefusedRowNamingTheColumn() throws Exception {
        Path parquet = damagedParquet("customers.parquet", "('C1', 'a@x.io', 'Zürich', 1::BIGINT), ('C2', 'aQQb', 'Rome', 2::BIGINT), "
                + "('C3', 'c@x.io', 'xQQQ', 3::BIGINT), ('C4', 'd@x.io', 'Oslo', 4::BIGINT)", "61515162", "61c32862", "78515151", "78eda080");
        // the default batch, and batches of one event, so batches end next to the refused rows too: the same report, the same table
        for (List<String> batching : List.of(List.<String>of(), List.of("--batch-size", "1"))) {
            Path config = config("strict_parquet" + (batching.isEmpty() ? "" : "_b1"));
            List<String> args = new ArrayList<>(List.of("load", "--config", config.toString(), "--entity", "customer",
                    "--input", parquet.toString(), "--event-time", "2025-08-01T00:00:00Z"));
            args.addAll(batching);

            CliRun run = CliRun.of(args.toArray(String[]::new));

            assertThat(run).as("load %s", batching).isEqualTo(new CliRun(0, counts(2, 2, 2) + """
                    row 2: Parquet column email holds text that is not valid UTF-8
                    row 3: Parquet column city holds text that is not valid UTF-8
                    """, ""));
            EntitySpec spec = DimstreamConfig.load(config, Map.of()).entity("customer").toEntitySpec();
            assertThat(EntityTableReader.rows(DS, spec)).as("table after load %s", batching).containsExactlyElementsOf(
                    new ReferenceModel(spec).rows(List.of(
                            upsert("2025-08-01T00:00:00Z", 1, "C1", "a@x.io", "Zürich", 1L),
                            upsert("2025-08-01T00:00:00Z", 4, "C4", "d@x.io", "Oslo", 4L))));
        }
    }

    /**
     * Parquet's JSON type is the exception: DuckDB's reader checks it as JSON in every mode, so bytes
     * that are not UTF-8 there stop the load, naming the value; nothing is loaded mended. The value's
     * error is DuckDB's own message (its streaming driver gives only "Invalid result set" for an error
     * in a result's first chunk; {@code SourceRows} asks again without streaming).
     */
    @Test
    void aParquetJsonValueThatIsNotUtf8StopsTheLoadNamingIt() throws Exception {
        Path config = config("strict_parquet_json");
        Path parquet = damagedParquet("customers-json.parquet", "('C1', '{\"e\": \"a@x.io\"}'::JSON, 'Paris', 1::BIGINT), "
                + "('C2', '{\"e\": \"aQQb\"}'::JSON, 'Rome', 2::BIGINT)", "61515162", "61c32862");

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", parquet.toString(),
                "--event-time", "2025-08-01T00:00:00Z");

        // DuckDB's message shows the bad bytes as Latin-1 (C3 28 as "\u00c3(")
        assertThat(run).isEqualTo(new CliRun(CliFailure.USAGE, "", "dimstream load: cannot read " + parquet + ": Invalid Input Error: "
                + "Invalid JSON found in Parquet file: Malformed JSON at byte 8 of input: invalid UTF-8 encoding in string. "
                + "Input: \"{\"e\": \"a\u00c3(b\"}\"\n"));
        EntitySpec spec = DimstreamConfig.load(config, Map.of()).entity("customer").toEntitySpec();
        assertThat(EntityTableReader.rows(DS, spec)).isEmpty();
    }
}
