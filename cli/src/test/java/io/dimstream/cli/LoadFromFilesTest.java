package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream load} from CSV and Parquet files, directories of snapshot slices and queries,
 * against a real PostgreSQL: each table compared whole with the writer's reference model of the
 * good rows, each report (counts and every refused row with its reason) compared whole.
 */
class LoadFromFilesTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @TempDir
    Path dir;

    /**
     * A config with an events entity ({@code customer}) and a snapshot entity ({@code TABLE_snap}: a
     * name per test, since the complete slices are recorded per entity name).
     */
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
                  - name: %s_snap
                    topic: crm.customer_snapshots
                    mode: snapshot
                    snapshot-time-field: slice_time
                    table: %s_snap
                    key: [customer_id]
                    tracked: [email, city]
                    type1: [last_login]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                """.formatted(TestPostgres.jdbcUrl(), table, table, table));
        return file;
    }

    private static EntitySpec spec(Path config, String entity) {
        return DimstreamConfig.load(config, Map.of()).entity(entity).toEntitySpec();
    }

    private static Map<String, Object> data(String id, String email, String city, Object lastLogin) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("email", email);
        m.put("city", city);
        m.put("last_login", lastLogin);
        return m;
    }

    private static Event upsert(String time, long seq, String id, String email, String city, Object lastLogin) {
        return Event.upsert(Instant.parse(time), data(id, email, city, lastLogin), seq, new Source("model", null, seq));
    }

    private static Event delete(String time, long seq, String id) {
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("customer_id", id);
        return Event.delete(Instant.parse(time), key, seq, new Source("model", null, seq));
    }

    private static final String HEADER_COUNTS = "%-12s %8d%n";

    private static String counts(long applied, long neu, long changed, long deleted, long unchanged, long late, long dups, long quarantined,
                                 long rejected) {
        return HEADER_COUNTS.formatted("applied", applied) + HEADER_COUNTS.formatted("new", neu) + HEADER_COUNTS.formatted("changed", changed)
                + HEADER_COUNTS.formatted("deleted", deleted) + HEADER_COUNTS.formatted("unchanged", unchanged)
                + HEADER_COUNTS.formatted("late", late) + HEADER_COUNTS.formatted("duplicates", dups)
                + HEADER_COUNTS.formatted("quarantined", quarantined) + HEADER_COUNTS.formatted("rejected", rejected);
    }

    @Test
    void csvRowsWithOpAndTimeColumnsLandAsTheModelSaysAndBadRowsAreRefusedWithTheirRowAndColumn() throws Exception {
        Path config = config("files_csv");
        Path csv = dir.resolve("customers.csv");
        Files.writeString(csv, """
                customer_id,email,city,last_login,op,changed_at
                C1,a@x.io,Paris,1,upsert,2025-08-01T09:00:00Z
                C2,b@x.io,Rome,1,insert,2025-08-01T10:00:00Z
                C1,a@x.io,Lyon,2,UPDATE,2025-08-02T09:00:00Z
                C2,,,,delete,2025-08-04T09:00:00Z
                C3,c@x.io,Oslo,not-a-number,upsert,2025-08-05T09:00:00Z
                C4,d@x.io,Bern,1,merge,2025-08-05T09:00:00Z
                C5,e@x.io,Kyiv,1,upsert,yesterday
                ,f@x.io,Nice,1,upsert,2025-08-05T09:00:00Z
                C1,"",Lyon,3,upsert,2025-08-03T09:00:00Z
                C6,g@x.io,,7,upsert,2025-08-06T09:00:00+02:00
                C7,"h, ""the"" one",Nice,,upsert,
                """);

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--op-column", "op", "--time-column", "changed_at", "--batch-size", "3");

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(counts(6, 3, 2, 1, 0, 0, 0, 0, 5) + """
                row 5: column 'last_login': expected bigint, got string "not-a-number"
                row 6: op column 'op': 'merge' is not upsert, insert, update or delete
                row 7: time column 'changed_at': "yesterday" is not a date-time; write it as 2025-08-20 09:00:00+00, 2025-08-20T09:00:00.5Z or 2025-08-20
                row 8: key column 'customer_id' is NULL
                row 11: time column 'changed_at' is empty
                """);
        assertThat(run.exitCode()).isZero();
        // the good rows, as the model sees them: CSV values are text, '' is not NULL
        List<Event> good = List.of(
                upsert("2025-08-01T09:00:00Z", 1, "C1", "a@x.io", "Paris", "1"),
                upsert("2025-08-01T10:00:00Z", 2, "C2", "b@x.io", "Rome", "1"),
                upsert("2025-08-02T09:00:00Z", 3, "C1", "a@x.io", "Lyon", "2"),
                delete("2025-08-04T09:00:00Z", 4, "C2"),
                upsert("2025-08-03T09:00:00Z", 9, "C1", "", "Lyon", "3"),
                upsert("2025-08-06T07:00:00Z", 10, "C6", "g@x.io", null, "7"));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(good));
    }

    @Test
    void malformedCsvRowsAreRefusedOneByOneWithTheirRowNumberAndReasonWhileTheRestLands() throws Exception {
        Path config = config("files_csv_malformed");
        Path csv = dir.resolve("malformed.csv");
        // rows (records, the header not counted; a quoted value over two lines is one row):
        // 1 good, 2 too many fields, 3 too few, 4 text after a closing quote, 5 good with a quoted
        // newline and a doubled quote, 6 not UTF-8, 7 a value of the wrong type, 8 good, 9 too many
        // fields inside a quoted value over two lines, 10 good, 11 a quote never closed (to the end)
        byte[] notUtf8 = {'C', '6', ',', (byte) 0xff, (byte) 0xfe, ',', 'K', 'y', 'i', 'v', ',', '1', ',', 'u', 'p', 's', 'e', 'r', 't', ',',
                '2', '0', '2', '5', '-', '0', '8', '-', '0', '1', 'T', '0', '9', ':', '0', '0', ':', '0', '0', 'Z', '\n'};
        try (var out = Files.newOutputStream(csv)) {
            out.write("""
                    customer_id,email,city,last_login,op,changed_at
                    C1,a@x.io,Paris,1,upsert,2025-08-01T09:00:00Z
                    C2,b@x.io,Rome,1,upsert,2025-08-01T09:00:00Z,surplus
                    C3,c@x.io,Oslo
                    C4,"d@x.io"junk,Bern,1,upsert,2025-08-01T09:00:00Z
                    C5,"e@x.io","Two
                    ""lines""\",5,upsert,2025-08-01T09:00:00Z
                    """.getBytes(StandardCharsets.UTF_8));
            out.write(notUtf8);
            out.write("""
                    C7,g@x.io,Nice,seven,upsert,2025-08-01T09:00:00Z
                    C1,a@x.io,Lyon,2,upsert,2025-08-02T09:00:00Z
                    C9,"i@x.io
                    ",Lima,1,upsert,2025-08-01T09:00:00Z,surplus
                    """.getBytes(StandardCharsets.UTF_8));
            out.write("C10,j@x.io,Rome,3,upsert,2025-08-03T09:00:00Z\n".getBytes(StandardCharsets.UTF_8));
            out.write("C11,\"k@x.io,Bern,1,upsert,2025-08-01T09:00:00Z\nC12,l@x.io,Oslo,1,upsert,2025-08-01T09:00:00Z\n"
                    .getBytes(StandardCharsets.UTF_8));
        }

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--op-column", "op", "--time-column", "changed_at", "--batch-size", "2");

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(counts(4, 3, 1, 0, 0, 0, 0, 0, 7) + """
                row 2: CSV too many columns: Expected Number of Columns: 6 Found: 7
                row 3: CSV missing columns: Expected Number of Columns: 6 Found: 3
                row 4: CSV unquoted value: Value with unterminated quote found.
                row 6: CSV invalid encoding: Invalid unicode (byte sequence mismatch) detected. This file is not utf-8 encoded.
                row 7: column 'last_login': expected bigint, got string "seven"
                row 9: CSV too many columns: Expected Number of Columns: 6 Found: 7
                row 11: CSV unquoted value: Value with unterminated quote found.
                """);
        assertThat(run.exitCode()).isZero();
        List<Event> good = List.of(
                upsert("2025-08-01T09:00:00Z", 1, "C1", "a@x.io", "Paris", "1"),
                upsert("2025-08-01T09:00:00Z", 5, "C5", "e@x.io", "Two\n\"lines\"", "5"),
                upsert("2025-08-02T09:00:00Z", 8, "C1", "a@x.io", "Lyon", "2"),
                upsert("2025-08-03T09:00:00Z", 10, "C10", "j@x.io", "Rome", "3"));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(good));
        // each event's lineage names its row: the good rows kept their numbers around the refused ones
        try (Connection c = DS.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT customer_id, source_topic, source_offset FROM files_csv_malformed ORDER BY source_offset")) {
            List<String> lineage = new ArrayList<>();
            while (rs.next()) {
                lineage.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3));
            }
            assertThat(lineage).containsExactly("C1 file:malformed.csv 1", "C5 file:malformed.csv 5", "C1 file:malformed.csv 8",
                    "C10 file:malformed.csv 10");
        }
    }

    @Test
    void aGzippedCsvWithAByteOrderMarkIsReadByItsHeaderAndItsMalformedRowIsRefused() throws Exception {
        Path config = config("files_csv_gz");
        Path csv = dir.resolve("customers.csv.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(csv))) {
            out.write("\uFEFFcustomer_id,email,city,last_login\nC1,a@x.io,Paris,1\nC2,b@x.io\nC3,c@x.io,Oslo,3\n"
                    .getBytes(StandardCharsets.UTF_8));
        }

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--event-time", "2025-08-01T00:00:00Z");

        assertThat(run).isEqualTo(new CliRun(0, counts(2, 2, 0, 0, 0, 0, 0, 0, 1)
                + "row 2: CSV missing columns: Expected Number of Columns: 4 Found: 2\n", ""));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(List.of(
                upsert("2025-08-01T00:00:00Z", 1, "C1", "a@x.io", "Paris", "1"),
                upsert("2025-08-01T00:00:00Z", 3, "C3", "c@x.io", "Oslo", "3"))));
    }

    @Test
    void parquetRowsWrittenByDuckDbLandAsTheModelSaysAndBadRowsAreRefused() throws Exception {
        Path config = config("files_parquet");
        Path parquet = dir.resolve("customers.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT * FROM (VALUES "
                    + "('C1', 'a@x.io', 'Paris', 1::BIGINT, TIMESTAMPTZ '2025-08-01 09:00:00+00'), "
                    + "('C2', 'b@x.io', 'Rome', 1::BIGINT, TIMESTAMPTZ '2025-08-01 10:00:00+00'), "
                    + "('C1', 'a@x.io', 'Lyon', 2::BIGINT, TIMESTAMPTZ '2025-08-02 09:00:00+00'), "
                    + "(NULL, 'x@x.io', 'Oslo', 1::BIGINT, TIMESTAMPTZ '2025-08-02 09:00:00+00'), "
                    + "('C3', 'c@x.io', 'Oslo', 1::BIGINT, NULL), "
                    + "('C2', 'b@x.io', NULL, 5::BIGINT, TIMESTAMPTZ '2025-08-03 09:00:00+00'), "
                    + "('C4', 'd@x.io', '', NULL, TIMESTAMPTZ '2025-08-03 09:00:00+00')"
                    + ") t(customer_id, email, city, last_login, changed_at)) TO '" + parquet + "' (FORMAT parquet)");
        }

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", parquet.toString(),
                "--time-column", "changed_at");

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(counts(5, 3, 2, 0, 0, 0, 0, 0, 2) + """
                row 4: key column 'customer_id' is NULL
                row 5: time column 'changed_at' is empty
                """);
        assertThat(run.exitCode()).isZero();
        List<Event> good = List.of(
                upsert("2025-08-01T09:00:00Z", 1, "C1", "a@x.io", "Paris", 1L),
                upsert("2025-08-01T10:00:00Z", 2, "C2", "b@x.io", "Rome", 1L),
                upsert("2025-08-02T09:00:00Z", 3, "C1", "a@x.io", "Lyon", 2L),
                upsert("2025-08-03T09:00:00Z", 6, "C2", "b@x.io", null, 5L),
                upsert("2025-08-03T09:00:00Z", 7, "C4", "d@x.io", "", null));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(good));
    }

    @Test
    void semicolonAndTabSeparatedFilesAreReadWithCsvDelimiterAndAWrongDelimiterIsRefusedNamingTheOption() throws Exception {
        Path config = config("files_csv_delim");
        Path semicolons = dir.resolve("customers-semicolons.csv");
        Files.writeString(semicolons, "customer_id;email;city;last_login\nC1;a@x.io;Paris, FR;1\nC2;\"b;x@x.io\";Oslo;2\n");
        Path tabs = dir.resolve("customers-tabs.csv");
        Files.writeString(tabs, "customer_id\temail\tcity\tlast_login\nC1\ta@x.io\tLyon, FR\t3\n");

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", semicolons.toString(),
                "--event-time", "2025-08-01T00:00:00Z", "--csv-delimiter", ";"))
                .isEqualTo(new CliRun(0, counts(2, 2, 0, 0, 0, 0, 0, 0, 0), ""));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", tabs.toString(),
                "--event-time", "2025-08-02T00:00:00Z", "--csv-delimiter", "\\t"))
                .isEqualTo(new CliRun(0, counts(1, 0, 1, 0, 0, 0, 0, 0, 0), ""));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(List.of(
                upsert("2025-08-01T00:00:00Z", 1, "C1", "a@x.io", "Paris, FR", "1"),
                upsert("2025-08-01T00:00:00Z", 2, "C2", "b;x@x.io", "Oslo", "2"),
                upsert("2025-08-02T00:00:00Z", 3, "C1", "a@x.io", "Lyon, FR", "3"))));

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", tabs.toString(),
                "--event-time", "2025-08-02T00:00:00Z", "--csv-delimiter", "ab"))
                .isEqualTo(new CliRun(2, "", "dimstream load: --csv-delimiter: one character other than a quote or a line end "
                        + "(\\t for a tab), got 'ab'\n"));
    }

    @Test
    void rowsWithoutATimeColumnNeedAnEventTimeAndAMisspeltHeaderFailsBeforeAnyRow() throws Exception {
        Path config = config("files_refusals");
        Path csv = dir.resolve("customers.csv");
        Files.writeString(csv, "customer_id,email,city,last_login\nC1,a@x.io,Paris,1\n");
        Path misspelt = dir.resolve("misspelt.csv");
        Files.writeString(misspelt, "customer_id,e_mail,city,last_login\nC1,a@x.io,Paris,1\n");

        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString()))
                .isEqualTo(new CliRun(2, "", "dimstream load: rows need an event time: --time-column COLUMN (each row's, from the "
                        + "file) or --event-time INSTANT (one for every row, e.g. the export's time); or --slice-at INSTANT to load "
                        + "them as a snapshot slice\n"));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--slice-at", "2025-08-01T00:00:00Z"))
                .isEqualTo(new CliRun(2, "", "dimstream load: --slice-at: entity customer is not mode: snapshot; a complete slice "
                        + "deletes the keys it does not carry, which only a snapshot entity does\n"));
        assertThat(CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", misspelt.toString(),
                "--event-time", "2025-08-01T00:00:00Z"))
                .isEqualTo(new CliRun(2, "", "dimstream load: file:misspelt.csv does not hold the columns of entity 'customer': "
                        + "missing 'email'; unknown 'e_mail' (map an operation or event time with --op-column / --time-column); "
                        + "its columns: 'customer_id', 'e_mail', 'city', 'last_login'; the entity's: 'customer_id', 'email', 'city', "
                        + "'last_login'\n"));

        CliRun ok = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--input", csv.toString(),
                "--event-time", "2025-08-01T00:00:00Z");
        assertThat(ok).isEqualTo(new CliRun(0, counts(1, 1, 0, 0, 0, 0, 0, 0, 0), ""));
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(
                List.of(upsert("2025-08-01T00:00:00Z", 1, "C1", "a@x.io", "Paris", "1"))));
    }

    // ---- snapshot slices ----

    /** A slice: its instant and rows (id, email, city, last_login). */
    private record Slice(String day, List<String[]> rows) {
        Instant at() {
            return Instant.parse(day + "T00:00:00Z");
        }
    }

    private static String[] r(String id, String email, String city, String lastLogin) {
        return new String[] {id, email, city, lastLogin};
    }

    /** Inserts C1 C2 C3 C4; then C3 C4 disappear, C2 moves, C5 C7 arrive; then C1 disappears, C3 C4 return, C7 changes; then all but C2 go. */
    private static final List<Slice> SLICES = List.of(
            new Slice("2025-08-01", List.<String[]>of(r("C1", "a@x.io", "Paris", "1"), r("C2", "b@x.io", "Rome", "1"), r("C3", "c@x.io", "Oslo", "1"),
                    r("C4", "d@x.io", "Lima", "1"))),
            new Slice("2025-08-02", List.<String[]>of(r("C1", "a@x.io", "Paris", "2"), r("C2", "b@x.io", "Milan", "2"), r("C7", "g@x.io", "Kyiv", "1"),
                    r("C5", "e@x.io", "Bern", "1"))),
            new Slice("2025-08-03", List.<String[]>of(r("C2", "b@x.io", "Milan", "2"), r("C3", "c@x.io", "Oslo", "3"), r("C7", "g2@x.io", "Kyiv", "1"),
                    r("C4", "d@x.io", "Lima", "1"), r("C5", "e@x.io", "Bern", "3"))),
            new Slice("2025-08-04", List.<String[]>of(r("C2", "b@x.io", "Milan", "4"))));

    private Path writeSlice(Path into, Slice s, boolean parquet) throws Exception {
        Files.createDirectories(into);
        if (!parquet) {
            StringBuilder csv = new StringBuilder("customer_id,email,city,last_login\n");
            for (String[] row : s.rows()) {
                csv.append(String.join(",", row)).append('\n');
            }
            Path f = into.resolve("customers_" + s.day() + ".csv");
            Files.writeString(f, csv);
            return f;
        }
        Path f = into.resolve("customers_" + s.day() + ".parquet");
        List<String> values = new ArrayList<>();
        for (String[] row : s.rows()) {
            values.add("('" + row[0] + "', '" + row[1] + "', '" + row[2] + "', " + row[3] + "::BIGINT)");
        }
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
            st.execute("COPY (SELECT * FROM (VALUES " + String.join(", ", values) + ") t(customer_id, email, city, last_login)) TO '"
                    + f + "' (FORMAT parquet)");
        }
        return f;
    }

    /** The model of the slices applied in time order: each slice's rows upserts at its instant, then a delete of each key it lacks. */
    private static List<ExpectedRow> modelOfSlices(EntitySpec spec, List<Slice> slices) {
        List<Event> events = new ArrayList<>();
        Set<String> live = new LinkedHashSet<>();
        long seq = 0;
        for (Slice s : slices) {
            Set<String> carried = new LinkedHashSet<>();
            for (String[] row : s.rows()) {
                events.add(upsert(s.at().toString(), ++seq, row[0], row[1], row[2], row[3]));
                carried.add(row[0]);
            }
            for (String k : live) {
                if (!carried.contains(k)) {
                    events.add(delete(s.at().toString(), ++seq, k));
                }
            }
            live = carried;
        }
        return new ReferenceModel(spec).rows(events);
    }

    @Test
    void aDirectoryOfSlicesAndTheSameSlicesLoadedOneByOneInShuffledOrderBothEqualTheModelAndReloadingChangesNothing() throws Exception {
        Path config = config("files_slices");
        String snap = "files_slices_snap";
        Path slicesDir = dir.resolve("slices");
        for (int i = 0; i < SLICES.size(); i++) {
            writeSlice(slicesDir, SLICES.get(i), i % 2 == 1); // CSV and Parquet slices mixed
        }
        EntitySpec spec = spec(config, snap);
        String pattern = "customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.(csv|parquet)";

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", slicesDir.toString(),
                "--slice-at-from-name", pattern);

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(
                "slice 2025-08-01T00:00:00Z from customers_2025-08-01.csv:\n" + counts(4, 4, 0, 0, 0, 0, 0, 0, 0)
                        + "slice 2025-08-02T00:00:00Z from customers_2025-08-02.parquet:\n" + counts(6, 2, 1, 2, 1, 0, 0, 0, 0)
                        // C3 and C4 come back (a key seen before counts as changed), C7 changes, C1 is gone, C2 and C5 stay
                        + "slice 2025-08-03T00:00:00Z from customers_2025-08-03.csv:\n" + counts(6, 0, 3, 1, 2, 0, 0, 0, 0)
                        + "slice 2025-08-04T00:00:00Z from customers_2025-08-04.parquet:\n" + counts(5, 0, 0, 4, 1, 0, 0, 0, 0));
        assertThat(run.exitCode()).isZero();
        List<ExpectedRow> model = modelOfSlices(spec, SLICES);
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(model);

        // loaded again, nothing changes: every column of every row, loaded_at and lineage included
        List<String> before = wholeRows(spec.table());
        CliRun again = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", slicesDir.toString(),
                "--slice-at-from-name", pattern);
        assertThat(again.exitCode()).isZero();
        assertThat(wholeRows(spec.table())).containsExactlyElementsOf(before);

        // the same slices, one by one, newest first and oldest last, into a second table
        Path config2 = config("files_shuffled");
        EntitySpec spec2 = spec(config2, "files_shuffled_snap");
        for (int i : new int[] {3, 1, 0, 2}) {
            Slice s = SLICES.get(i);
            Path f = writeSlice(dir.resolve("one-by-one"), s, i % 2 == 1);
            CliRun one = CliRun.of("load", "--config", config2.toString(), "--entity", "files_shuffled_snap", "--input", f.toString(),
                    "--slice-at", s.at().toString());
            assertThat(one.err()).isEmpty();
            assertThat(one.exitCode()).isZero();
        }
        assertThat(EntityTableReader.rows(DS, spec2)).containsExactlyElementsOf(model);
    }

    @Test
    void aSliceRowThatIsRefusedIsReportedAndItsKeyCountsAsAbsentUntilTheCorrectedSliceIsLoaded() throws Exception {
        Path config = config("files_slice_bad");
        String snap = "files_slice_bad_snap";
        EntitySpec spec = spec(config, snap);
        Path day1 = dir.resolve("day1.csv");
        Files.writeString(day1, "customer_id,email,city,last_login\nC1,a@x.io,Paris,1\nC2,b@x.io,Rome,1\n");
        Path day2 = dir.resolve("day2.csv");
        Files.writeString(day2, "customer_id,email,city,last_login\nC1,a@x.io,Paris,1\nC2,b@x.io,Rome,soon\n");
        Path day2Fixed = dir.resolve("day2-fixed.csv");
        Files.writeString(day2Fixed, "customer_id,email,city,last_login\nC1,a@x.io,Paris,1\nC2,b@x.io,Rome,2\n");

        CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", day1.toString(),
                "--slice-at", "2025-08-01T00:00:00Z");
        CliRun bad = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", day2.toString(),
                "--slice-at", "2025-08-02T00:00:00Z");

        assertThat(bad).isEqualTo(new CliRun(0, counts(2, 0, 0, 1, 1, 0, 0, 0, 1)
                + "row 2: column 'last_login': expected bigint, got string \"soon\"\n", ""));
        List<Slice> asLoaded = List.of(
                new Slice("2025-08-01", List.<String[]>of(r("C1", "a@x.io", "Paris", "1"), r("C2", "b@x.io", "Rome", "1"))),
                new Slice("2025-08-02", List.<String[]>of(r("C1", "a@x.io", "Paris", "1"))));
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(modelOfSlices(spec, asLoaded));

        Thread.sleep(1000); // a later run (its seqs beat the first run's at the same instant)
        CliRun fixed = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", day2Fixed.toString(),
                "--slice-at", "2025-08-02T00:00:00Z");
        assertThat(fixed.exitCode()).isZero();
        List<Slice> corrected = List.of(asLoaded.get(0),
                new Slice("2025-08-02", List.<String[]>of(r("C1", "a@x.io", "Paris", "1"), r("C2", "b@x.io", "Rome", "2"))));
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(modelOfSlices(spec, corrected));
    }

    @Test
    void aDirectoryWithFilesThatDoNotMatchThePatternIsRefusedNamingThem() throws Exception {
        Path config = config("files_bad_names");
        String snap = "files_bad_names_snap";
        Path slicesDir = dir.resolve("named");
        writeSlice(slicesDir, SLICES.get(0), false);
        Files.writeString(slicesDir.resolve("README.txt"), "exports");
        Files.writeString(slicesDir.resolve("customers_latest.csv"), "customer_id,email,city,last_login\n");

        CliRun strict = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", slicesDir.toString(),
                "--slice-at-from-name", "customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.csv");
        assertThat(strict).isEqualTo(new CliRun(2, "", "dimstream load: --slice-at-from-name: 2 file(s) of " + slicesDir
                + " do not match customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.csv: README.txt, customers_latest.csv\n"));

        Files.delete(slicesDir.resolve("README.txt"));
        CliRun loose = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--input", slicesDir.toString(),
                "--slice-at-from-name", "customers_(?<t>[^.]+)\\.csv");
        assertThat(loose).isEqualTo(new CliRun(2, "", "dimstream load: --slice-at-from-name: the group t of these file names is not an "
                + "instant, date-time or date: customers_latest.csv ('latest')\n"));
    }

    // ---- queries ----

    @Test
    void aQueryOnAPostgresTableInAnotherSchemaIsLoadedAsEventsAndAsASlice() throws Exception {
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS crm_export CASCADE");
            s.execute("CREATE SCHEMA crm_export");
            s.execute("CREATE TABLE crm_export.customers (customer_id text, email text, city text, last_login integer, "
                    + "changed_at timestamptz, change text)");
            s.execute("INSERT INTO crm_export.customers VALUES "
                    + "('C1', 'a@x.io', 'Paris', 1, '2025-08-01 09:00:00+00', 'insert'), "
                    + "('C2', 'b@x.io', 'Rome', 1, '2025-08-01 10:00:00+00', 'insert'), "
                    + "('C1', 'a@x.io', 'Lyon', 2, '2025-08-02 09:00:00+00', 'update'), "
                    + "('C2', NULL, NULL, NULL, '2025-08-03 09:00:00+00', 'delete'), "
                    + "(NULL, 'z@x.io', 'Oslo', 1, '2025-08-03 09:00:00+00', 'insert')");
        }
        Path config = config("files_query");
        String snap = "files_query_snap";

        CliRun run = CliRun.of("load", "--config", config.toString(), "--entity", "customer", "--source-jdbc", TestPostgres.jdbcUrl(),
                "--query", "SELECT * FROM crm_export.customers ORDER BY changed_at, customer_id NULLS LAST",
                "--time-column", "changed_at", "--op-column", "change");

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(counts(4, 2, 1, 1, 0, 0, 0, 0, 1) + "row 5: key column 'customer_id' is NULL\n");
        EntitySpec spec = spec(config, "customer");
        assertThat(EntityTableReader.rows(DS, spec)).containsExactlyElementsOf(new ReferenceModel(spec).rows(List.of(
                upsert("2025-08-01T09:00:00Z", 1, "C1", "a@x.io", "Paris", 1L),
                upsert("2025-08-01T10:00:00Z", 2, "C2", "b@x.io", "Rome", 1L),
                upsert("2025-08-02T09:00:00Z", 3, "C1", "a@x.io", "Lyon", 2L),
                delete("2025-08-03T09:00:00Z", 4, "C2"))));

        // the current rows of the export as one slice of the snapshot entity
        CliRun slice = CliRun.of("load", "--config", config.toString(), "--entity", snap, "--source-jdbc",
                TestPostgres.jdbcUrl(), "--query", "SELECT DISTINCT ON (customer_id) customer_id, email, city, last_login "
                        + "FROM crm_export.customers WHERE customer_id IS NOT NULL ORDER BY customer_id, changed_at DESC",
                "--slice-at", "2025-08-05T00:00:00Z");
        assertThat(slice).isEqualTo(new CliRun(0, counts(2, 2, 0, 0, 0, 0, 0, 0, 0), ""));
        EntitySpec snapSpec = spec(config, snap);
        assertThat(EntityTableReader.rows(DS, snapSpec)).containsExactlyElementsOf(new ReferenceModel(snapSpec).rows(List.of(
                upsert("2025-08-05T00:00:00Z", 1, "C1", "a@x.io", "Lyon", 2L),
                upsert("2025-08-05T00:00:00Z", 2, "C2", null, null, null))));
    }

    /** Every column of every row as PostgreSQL's text of the row, in key and valid_from order. */
    private static List<String> wholeRows(String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT t::text FROM " + table + " t ORDER BY customer_id, valid_from")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }
}
