package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;

/**
 * {@code dimstream load} of the files users have, against a real PostgreSQL: PostgreSQL's own CSV
 * export, offset-less times with and without {@code --time-zone}, standard input, gzip, names
 * without a known extension, a CSV separated by another character, the exit codes. Each table is
 * compared whole with the reference model, each output whole.
 */
class LoadWhatUsersHaveTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @TempDir
    Path dir;

    private Path config(String table) throws IOException {
        Path file = dir.resolve("dimstream-" + table + ".yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: orders
                    topic: shop.orders
                    table: %s
                    key: [order_id]
                    tracked: [status, placed_at, ship_date]
                    type1: [local_ts]
                    lateness-horizon: unlimited
                    columns: {order_id: text, status: text, placed_at: timestamptz, ship_date: date, local_ts: timestamp}
                """.formatted(TestPostgres.jdbcUrl(), table));
        return file;
    }

    private static EntitySpec spec(Path config) {
        return DimstreamConfig.load(config, Map.of()).entity("orders").toEntitySpec();
    }

    private static Event order(String time, long seq, String id, String status, String placed, String ship, String local) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("order_id", id);
        m.put("status", status);
        m.put("placed_at", Instant.parse(placed));
        m.put("ship_date", ship == null ? null : LocalDate.parse(ship));
        m.put("local_ts", LocalDateTime.parse(local));
        return Event.upsert(Instant.parse(time), m, seq, new Source("model", null, seq));
    }

    private static String counts(long applied, long neu, long changed, long deleted, long unchanged, long rejected) {
        String f = "%-12s %8d%n";
        return f.formatted("applied", applied) + f.formatted("new", neu) + f.formatted("changed", changed)
                + f.formatted("deleted", deleted) + f.formatted("unchanged", unchanged) + f.formatted("late", 0)
                + f.formatted("duplicates", 0) + f.formatted("quarantined", 0) + f.formatted("rejected", rejected);
    }

    /** The report of a load whose every good event was a duplicate. */
    private static String duplicates(long duplicates, long rejected) {
        String f = "%-12s %8d%n";
        return f.formatted("applied", 0) + f.formatted("new", 0) + f.formatted("changed", 0) + f.formatted("deleted", 0)
                + f.formatted("unchanged", 0) + f.formatted("late", 0) + f.formatted("duplicates", duplicates)
                + f.formatted("quarantined", 0) + f.formatted("rejected", rejected);
    }

    /** The four changes of two orders every test loads, in its own spelling. */
    private static List<Event> model() {
        return List.of(
                order("2025-08-20T09:00:00Z", 1, "O1", "new", "2025-08-20T09:00:00Z", "2025-08-22", "2025-08-20T11:00:00"),
                order("2025-08-20T10:30:00.500Z", 2, "O2", "new", "2025-08-20T10:30:00.500Z", null, "2025-08-20T12:30:00.500"),
                order("2025-08-22T06:00:00.123456Z", 3, "O1", "shipped", "2025-08-20T09:00:00Z", "2025-08-22", "2025-08-22T08:00:00"),
                order("2025-12-01T16:45:00Z", 4, "O2", "cancelled", "2025-08-20T10:30:00.500Z", null, "2025-12-01T17:45:00"));
    }

    @Test
    void aCsvThatPostgresExportedIsLoadedWholeWithItsOwnTimestampSpelling() throws Exception {
        Path config = config("users_pg_export");
        Path csv = dir.resolve("orders.csv");
        // the source table, exported as psql's \copy ... TO 'orders.csv' CSV HEADER does (COPY TO STDOUT), in a session
        // whose time zone is not UTC: the file holds PostgreSQL's own text, +02 in summer and +01 in winter
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'Europe/Berlin'");
            s.execute("CREATE TABLE users_pg_export_src (order_id text, status text, placed_at timestamptz, ship_date date, "
                    + "local_ts timestamp, updated_at timestamptz)");
            s.execute("""
                    INSERT INTO users_pg_export_src VALUES
                      ('O1', 'new', '2025-08-20 09:00:00+00', '2025-08-22', '2025-08-20 11:00:00', '2025-08-20 09:00:00+00'),
                      ('O2', 'new', '2025-08-20 10:30:00.5+00', NULL, '2025-08-20 12:30:00.5', '2025-08-20 10:30:00.5+00'),
                      ('O1', 'shipped', '2025-08-20 09:00:00+00', '2025-08-22', '2025-08-22 08:00:00', '2025-08-22 06:00:00.123456+00'),
                      ('O2', 'cancelled', '2025-08-20 10:30:00.5+00', NULL, '2025-12-01 17:45:00', '2025-12-01 16:45:00+00')
                    """);
            StringWriter out = new StringWriter();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT * FROM users_pg_export_src ORDER BY updated_at) TO STDOUT "
                    + "WITH (FORMAT csv, HEADER)", out);
            Files.writeString(csv, out.toString());
        }
        assertThat(Files.readString(csv)).isEqualTo("""
                order_id,status,placed_at,ship_date,local_ts,updated_at
                O1,new,2025-08-20 11:00:00+02,2025-08-22,2025-08-20 11:00:00,2025-08-20 11:00:00+02
                O2,new,2025-08-20 12:30:00.5+02,,2025-08-20 12:30:00.5,2025-08-20 12:30:00.5+02
                O1,shipped,2025-08-20 11:00:00+02,2025-08-22,2025-08-22 08:00:00,2025-08-22 08:00:00.123456+02
                O2,cancelled,2025-08-20 12:30:00.5+02,,2025-12-01 17:45:00,2025-12-01 17:45:00+01
                """);

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", csv.toString(),
                "--time-column", "updated_at");

        assertThat(run).isEqualTo(new CliRun(0, counts(4, 2, 2, 0, 0, 0), ""));
        EntitySpec spec = spec(config);
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model()));
    }

    @Test
    void booleansAsPostgresExportsThemAndAsItReadsThemLandAndAnyOtherTextIsRefusedNamingIt() throws Exception {
        Path config = dir.resolve("dimstream-flags.yml");
        Files.writeString(config, """
                postgres:
                  url: "%s"
                entities:
                  - name: flags
                    topic: shop.flags
                    table: users_flags
                    key: [id]
                    tracked: [active]
                    lateness-horizon: unlimited
                    columns: {id: text, active: boolean}
                """.formatted(TestPostgres.jdbcUrl()));
        Path exported = dir.resolve("flags.csv");
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS users_flags, users_flags_events, users_flags_superseded CASCADE");
            StringWriter out = new StringWriter();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (VALUES ('A', true), ('B', false), ('C', NULL::boolean)) TO STDOUT "
                    + "WITH (FORMAT csv, HEADER)", out);
            Files.writeString(exported, out.toString().replace("column1,column2", "id,active"));
        }
        assertThat(Files.readString(exported)).isEqualTo("id,active\nA,t\nB,f\nC,\n");
        Path spelled = dir.resolve("spelled.csv");
        Files.writeString(spelled, "id,active\nA,FALSE\nB, Yes \nC,off\nD,1\nE,maybe\n");

        CliRun first = CliRun.of("load", "--config", config.toString(), "--entity", "flags", "--input", exported.toString(),
                "--event-time", "2025-06-01T00:00:00Z");
        CliRun second = CliRun.of("load", "--config", config.toString(), "--entity", "flags", "--input", spelled.toString(),
                "--event-time", "2025-07-01T00:00:00Z");

        assertThat(first).isEqualTo(new CliRun(0, counts(3, 3, 0, 0, 0, 0), ""));
        assertThat(second).isEqualTo(new CliRun(0, counts(4, 1, 3, 0, 0, 1)
                + "row 5: column 'active': expected boolean, got string \"maybe\"\n", ""));
        List<String> rows = new java.util.ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, active, valid_from::date, valid_to::date FROM users_flags ORDER BY id, valid_from")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4));
            }
        }
        assertThat(rows).containsExactly(
                "A|t|2025-06-01|2025-07-01", "A|f|2025-07-01|null",
                "B|f|2025-06-01|2025-07-01", "B|t|2025-07-01|null",
                "C|null|2025-06-01|2025-07-01", "C|f|2025-07-01|null",
                "D|t|2025-07-01|null");
    }

    private static final String NO_OFFSET = " has no UTC offset: give --time-zone ZONE, the zone the file's times are in "
            + "(e.g. --time-zone UTC or --time-zone Europe/Berlin), or write the times with an offset (2025-08-20 09:00:00+00)";

    @Test
    void timesWithoutAnOffsetAreRefusedSayingToGiveATimeZoneEveryRowRefusedExitsThreeAndWithTheZoneTheyLand() throws Exception {
        Path config = config("users_naive");
        Path csv = dir.resolve("orders-pandas.csv");
        // pandas' to_csv of naive datetime64 columns (Berlin wall-clock times), Spark's T, a bare date for midnight
        Files.writeString(csv, """
                order_id,status,placed_at,ship_date,local_ts,updated_at
                O1,new,2025-08-20 11:00:00,2025-08-22,2025-08-20 11:00:00,2025-08-20 11:00:00
                O2,new,2025-08-20T12:30:00.500,,2025-08-20 12:30:00.5,2025-08-20T12:30:00.500000
                O1,shipped,2025-08-20 11:00:00,2025-08-22 00:00:00,2025-08-22T08:00:00,2025-08-22 08:00:00.123456
                O2,cancelled,2025-08-20 12:30:00.5,,2025-12-01 17:45:00,2025-12-01 17:45
                """);

        CliRun refused = CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", csv.toString(),
                "--time-column", "updated_at");

        assertThat(refused).isEqualTo(new CliRun(3, counts(0, 0, 0, 0, 0, 4)
                + "row 1: column 'placed_at': \"2025-08-20 11:00:00\"" + NO_OFFSET + "\n"
                + "row 2: column 'placed_at': \"2025-08-20T12:30:00.500\"" + NO_OFFSET + "\n"
                + "row 3: column 'placed_at': \"2025-08-20 11:00:00\"" + NO_OFFSET + "\n"
                + "row 4: column 'placed_at': \"2025-08-20 12:30:00.5\"" + NO_OFFSET + "\n",
                "dimstream load: every row was refused (4 of 4), nothing was applied; the reasons are above\n"));
        EntitySpec spec = spec(config);
        assertThat(EntityTableReader.rows(DS, spec)).isEmpty();

        CliRun landed = CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", csv.toString(),
                "--time-column", "updated_at", "--time-zone", "Europe/Berlin");

        assertThat(landed).isEqualTo(new CliRun(0, counts(4, 2, 2, 0, 0, 0), ""));
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model()));
    }

    private static String jsonl(String time, String id, String status, String placed, String ship, String local) {
        return "{\"op\": \"upsert\", \"event_time\": \"" + time + "\", \"data\": {\"order_id\": \"" + id + "\", \"status\": \"" + status
                + "\", \"placed_at\": \"" + placed + "\", \"ship_date\": " + (ship == null ? "null" : "\"" + ship + "\"")
                + ", \"local_ts\": \"" + local + "\"}}\n";
    }

    /** The model's four changes as JSON lines, in the spellings of PostgreSQL, Spark and pandas, and a bare date. */
    private static final String EVENTS = jsonl("2025-08-20 09:00:00+00", "O1", "new", "2025-08-20 11:00:00+02", "2025-08-22",
            "2025-08-20 11:00:00")
            + jsonl("2025-08-20T10:30:00.500Z", "O2", "new", "2025-08-20 10:30:00.5+0000", null, "2025-08-20T12:30:00.5")
            + jsonl("2025-08-22 06:00:00.123456+00:00", "O1", "shipped", "2025-08-20T09:00:00Z", "2025-08-22", "2025-08-22 08:00")
            + jsonl("2025-12-01 16:45:00Z", "O2", "cancelled", "2025-08-20 10:30:00.5+00", null, "2025-12-01 17:45:00");

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(b)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    private static CliRun withStdin(byte[] stdin, String... args) {
        InputStream before = System.in;
        System.setIn(new ByteArrayInputStream(stdin));
        try {
            return CliRun.of(args);
        } finally {
            System.setIn(before);
        }
    }

    @Test
    void jsonLinesFromStandardInputGzipOrNotAndFromGzipFilesLandAsTheModel() throws Exception {
        Path config = config("users_stdin");
        EntitySpec spec = spec(config);
        List<Event> model = model();

        CliRun fromStdin = withStdin(EVENTS.getBytes(StandardCharsets.UTF_8), "load", "--config", config.toString(), "--entity",
                "orders", "--input", "-");
        assertThat(fromStdin).isEqualTo(new CliRun(0, counts(4, 2, 2, 0, 0, 0), ""));
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model));
        try (Connection c = DS.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT DISTINCT source_topic FROM users_stdin")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("file:stdin");
            assertThat(rs.next()).isFalse();
        }

        // the same events again, gzip from standard input, then as .jsonl.gz and .ndjson.gz files: nothing changes
        String unchanged = duplicates(4, 0);
        assertThat(withStdin(gzip(EVENTS), "load", "--config", config.toString(), "--entity", "orders", "--input", "-"))
                .isEqualTo(new CliRun(0, unchanged, ""));
        for (String name : List.of("orders.jsonl.gz", "orders.ndjson.gz")) {
            Path gz = dir.resolve(name);
            Files.write(gz, gzip(EVENTS));
            assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", gz.toString()))
                    .as(name).isEqualTo(new CliRun(0, unchanged, ""));
        }
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model));
    }

    @Test
    void aFileWhoseNameDoesNotSayItsKindIsRefusedNamingFormatAndLoadedWithIt() throws Exception {
        Path config = config("users_format");
        Path json = dir.resolve("events.json");
        Files.writeString(json, EVENTS);
        Path bare = dir.resolve("export");
        Files.write(bare, gzip("""
                order_id,status,placed_at,ship_date,local_ts,updated_at
                O1,new,2025-08-20 11:00:00+02,2025-08-22,2025-08-20 11:00:00,2025-08-20 11:00:00+02
                """));

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", json.toString()))
                .isEqualTo(new CliRun(2, "", "dimstream load: input " + json + ": its name does not say what it holds: give --format "
                        + "jsonl (native events, one JSON object per line), --format csv or --format parquet (a .json file of one "
                        + "event per line is --format jsonl; a JSON array is not read: 'jq -c .[]' makes lines of it); by name, "
                        + "dimstream reads .jsonl, .ndjson, .csv (each also .gz) and .parquet\n"));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", json.toString(),
                "--format", "jsonl")).isEqualTo(new CliRun(0, counts(4, 2, 2, 0, 0, 0), ""));
        // a gzip CSV without an extension, --format csv: gzip by its first bytes; the same first change again
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", bare.toString(),
                "--format", "csv", "--time-column", "updated_at")).isEqualTo(new CliRun(0, duplicates(1, 0), ""));
        EntitySpec spec = spec(config);
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model()));
    }

    @Test
    void aCsvFromStandardInputWithFormatCsvLands() throws Exception {
        Path config = config("users_stdin_csv");
        String csv = """
                order_id,status,placed_at,ship_date,local_ts,updated_at
                O1,new,2025-08-20 11:00:00+02,2025-08-22,2025-08-20 11:00:00,2025-08-20 11:00:00+02
                O2,new,2025-08-20 12:30:00.5+02,,2025-08-20 12:30:00.5,2025-08-20 12:30:00.5+02
                O1,shipped,2025-08-20 11:00:00+02,2025-08-22,2025-08-22 08:00:00,2025-08-22 08:00:00.123456+02
                O2,cancelled,2025-08-20 12:30:00.5+02,,2025-12-01 17:45:00,2025-12-01 17:45:00+01
                """;

        assertThat(withStdin(csv.getBytes(StandardCharsets.UTF_8), "load", "--config", config.toString(), "--entity", "orders",
                "--input", "-", "--format", "csv", "--time-column", "updated_at"))
                .isEqualTo(new CliRun(0, counts(4, 2, 2, 0, 0, 0), ""));
        EntitySpec spec = spec(config);
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model()));
    }

    @Test
    void aCsvSeparatedBySemicolonsWithTheDefaultDelimiterIsRefusedNamingTheHeaderAndTheOption() throws Exception {
        Path config = config("users_semicolons");
        Path csv = dir.resolve("orders-excel.csv");
        Files.writeString(csv, "order_id;status;placed_at;ship_date;local_ts;updated_at\n"
                + "O1;new;2025-08-20 11:00:00+02;2025-08-22;2025-08-20 11:00:00;2025-08-20 11:00:00+02\n");

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", csv.toString(),
                "--event-time", "2025-08-20 09:00:00+00")).isEqualTo(new CliRun(2, "", "dimstream load: file:orders-excel.csv does not "
                + "hold the columns of entity 'orders': missing 'order_id', 'status', 'placed_at', 'ship_date', 'local_ts'; unknown "
                + "'order_id;status;placed_at;ship_date;local_ts;updated_at' (map an operation or event time with --op-column / "
                + "--time-column); its columns: 'order_id;status;placed_at;ship_date;local_ts;updated_at'; the entity's: 'order_id', "
                + "'status', 'placed_at', 'ship_date', 'local_ts'; the header line reads "
                + "'order_id;status;placed_at;ship_date;local_ts;updated_at': if its fields are separated by ';', give "
                + "--csv-delimiter ';'\n"));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", csv.toString(),
                "--time-column", "updated_at")).isEqualTo(new CliRun(2, "", "dimstream load: --time-column: file:orders-excel.csv has "
                + "no column 'updated_at'; its columns: 'order_id;status;placed_at;ship_date;local_ts;updated_at'; the header line "
                + "reads 'order_id;status;placed_at;ship_date;local_ts;updated_at': if its fields are separated by ';', give "
                + "--csv-delimiter ';'\n"));
    }

    @Test
    void failOnRejectExitsThreeWhenAnyRowIsRefusedAfterApplyingTheOthers() throws Exception {
        Path config = config("users_fail_on_reject");
        Path events = dir.resolve("orders.jsonl");
        Files.writeString(events, EVENTS + "{\"op\": \"upsert\", \"event_time\": \"soon\", \"data\": {\"order_id\": \"O3\"}}\n");
        String report = counts(4, 2, 2, 0, 0, 1) + "line 5: event_time: \"soon\" is not a date-time; write it as "
                + "2025-08-20 09:00:00+00, 2025-08-20T09:00:00.5Z or 2025-08-20\n";

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", events.toString(),
                "--fail-on-reject")).isEqualTo(new CliRun(3, report,
                "dimstream load: 1 of 5 lines were refused (--fail-on-reject); the other 4 were applied; the reasons are above\n"));
        EntitySpec spec = spec(config);
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(model()));

        Path second = dir.resolve("orders-2.jsonl");
        Files.writeString(second, EVENTS + "{\"op\": \"upsert\", \"event_time\": \"soon\", \"data\": {\"order_id\": \"O3\"}}\n");
        // without the flag: exit 0 with the same refusal (the good lines are duplicates now)
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "orders", "--input", second.toString()))
                .isEqualTo(new CliRun(0, duplicates(4, 1) + report.substring(report.indexOf("line 5:")), ""));
    }

    @Test
    void aParquetTimestampWithoutZoneIsReadAsUtcOrInTheTimeZoneGiven() throws Exception {
        Path parquet = dir.resolve("orders.parquet");
        // pandas' naive datetime64 columns in Parquet: TIMESTAMP without a zone (Berlin wall-clock times)
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT * FROM (VALUES "
                    + "('O1', 'new', TIMESTAMP '2025-08-20 11:00:00', DATE '2025-08-22', TIMESTAMP '2025-08-20 11:00:00', "
                    + "TIMESTAMP '2025-08-20 11:00:00'), "
                    + "('O1', 'shipped', TIMESTAMP '2025-08-20 11:00:00', DATE '2025-08-22', TIMESTAMP '2025-08-22 08:00:00', "
                    + "TIMESTAMP '2025-08-22 08:00:00.123456')"
                    + ") t(order_id, status, placed_at, ship_date, local_ts, updated_at)) TO '" + parquet + "' (FORMAT parquet)");
        }
        Path utc = config("users_parquet_utc");
        Path berlin = config("users_parquet_berlin");

        assertThat(CliRun.of("load", "--config", utc.toString(), "--entity", "orders", "--input", parquet.toString(),
                "--time-column", "updated_at")).isEqualTo(new CliRun(0, counts(2, 1, 1, 0, 0, 0), ""));
        assertThat(CliRun.of("load", "--config", berlin.toString(), "--entity", "orders", "--input", parquet.toString(),
                "--time-column", "updated_at", "--time-zone", "Europe/Berlin")).isEqualTo(new CliRun(0, counts(2, 1, 1, 0, 0, 0), ""));

        EntitySpec asUtc = spec(utc);
        assertThat(EntityTableReader.rows(DS, asUtc)).containsExactlyElementsOf(new ReferenceModel(asUtc).rows(List.of(
                order("2025-08-20T11:00:00Z", 1, "O1", "new", "2025-08-20T11:00:00Z", "2025-08-22", "2025-08-20T11:00:00"),
                order("2025-08-22T08:00:00.123456Z", 2, "O1", "shipped", "2025-08-20T11:00:00Z", "2025-08-22", "2025-08-22T08:00:00"))));
        EntitySpec inBerlin = spec(berlin);
        assertThat(EntityTableReader.rows(DS, inBerlin)).containsExactlyElementsOf(new ReferenceModel(inBerlin).rows(List.of(
                order("2025-08-20T09:00:00Z", 1, "O1", "new", "2025-08-20T09:00:00Z", "2025-08-22", "2025-08-20T11:00:00"),
                order("2025-08-22T06:00:00.123456Z", 2, "O1", "shipped", "2025-08-20T09:00:00Z", "2025-08-22", "2025-08-22T08:00:00"))));
    }

    @Test
    void helpListsEveryExitCodeInWholeSentences() {
        CliRun help = CliRun.of("load", "--help");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out().substring(help.out().indexOf("Exit codes:"))).isEqualTo("""
                Exit codes:
                  0   It ran, and no line or row was refused, or some were (each is listed) and
                        --fail-on-reject is not given.
                  1   It failed part-way; the batches committed before the failure stay, and
                        loading the input again converges.
                  2   Nothing was loaded: a bad config or option, a missing or unreadable
                        input, an input whose kind or columns do not fit, or an unreachable
                        database.
                  3   It ran, and every line or row was refused, or some were and
                        --fail-on-reject is given; the others were applied.
                """);
    }
}
