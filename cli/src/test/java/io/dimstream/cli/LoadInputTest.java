package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.LoadInput.Kind;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code load --input} names: the kind of each name and {@code --format}, gzip and standard input, the delimiter hint. */
class LoadInputTest {

    @TempDir
    Path dir;

    private static String kindOf(String name, String format) {
        try {
            return String.valueOf(Kind.of(Path.of(name), format));
        } catch (CliFailure f) {
            return f.exitCode() + ": " + f.getMessage();
        }
    }

    @Test
    void eachNameIsItsKindAndOtherNamesAreRefusedNamingFormat() {
        Map<String, String> kinds = new LinkedHashMap<>();
        for (String n : List.of("events.jsonl", "EVENTS.NDJSON", "events.jsonl.gz", "events.ndjson.gz", "rows.csv", "rows.csv.gz",
                "rows.parquet", "-", "events.json", "events.txt", "events")) {
            kinds.put(n, kindOf(n, null));
        }
        String needsFormat = ": its name does not say what it holds: give --format jsonl (native events, one JSON object per line), "
                + "--format csv or --format parquet";
        String byName = "; by name, dimstream reads .jsonl, .ndjson, .csv (each also .gz) and .parquet";
        assertThat(kinds).containsExactly(
                Map.entry("events.jsonl", "JSONL"),
                Map.entry("EVENTS.NDJSON", "JSONL"),
                Map.entry("events.jsonl.gz", "JSONL"),
                Map.entry("events.ndjson.gz", "JSONL"),
                Map.entry("rows.csv", "CSV"),
                Map.entry("rows.csv.gz", "CSV"),
                Map.entry("rows.parquet", "PARQUET"),
                Map.entry("-", "JSONL"),
                Map.entry("events.json", "2: input events.json" + needsFormat + " (a .json file of one event per line is --format "
                        + "jsonl; a JSON array is not read: 'jq -c .[]' makes lines of it)" + byName),
                Map.entry("events.txt", "2: input events.txt" + needsFormat + byName),
                Map.entry("events", "2: input events" + needsFormat + byName));
    }

    @Test
    void formatOverridesTheNameInAnyCaseAndAnUnknownOneIsRefused() {
        assertThat(List.of(kindOf("events.txt", "jsonl"), kindOf("events", "NDJSON"), kindOf("rows.jsonl", "csv"),
                kindOf("-", "csv"), kindOf("-", "Parquet"), kindOf("rows.csv", "xlsx")))
                .containsExactly("JSONL", "JSONL", "CSV", "CSV", "PARQUET", "2: --format: 'xlsx' is not jsonl, csv or parquet");
    }

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(b)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    private static String lines(InputStream in) throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return r.lines().collect(Collectors.joining("|"));
        }
    }

    @Test
    void textInputsAreReadPlainOrGzipByTheirFirstBytesFromAFileOrStandardInput() throws Exception {
        String text = "{\"a\": 1}\n{\"b\": \"é\"}\n";
        Path plain = dir.resolve("events.txt");
        Files.writeString(plain, text);
        Path gz = dir.resolve("events.jsonl.gz");
        Files.write(gz, gzip(text));
        Path gzWithoutItsName = dir.resolve("events");
        Files.write(gzWithoutItsName, gzip(text));
        InputStream unused = new ByteArrayInputStream(new byte[0]);

        assertThat(List.of(lines(LoadInput.bytes(plain, unused)), lines(LoadInput.bytes(gz, unused)),
                lines(LoadInput.bytes(gzWithoutItsName, unused)),
                lines(LoadInput.bytes(Path.of("-"), new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))),
                lines(LoadInput.bytes(Path.of("-"), new ByteArrayInputStream(gzip(text)))),
                lines(LoadInput.bytes(Path.of("-"), new ByteArrayInputStream(new byte[0])))))
                .containsExactly("{\"a\": 1}|{\"b\": \"é\"}", "{\"a\": 1}|{\"b\": \"é\"}", "{\"a\": 1}|{\"b\": \"é\"}",
                        "{\"a\": 1}|{\"b\": \"é\"}", "{\"a\": 1}|{\"b\": \"é\"}", "");
        assertThat(LoadInput.name(Path.of("-"))).isEqualTo("stdin");
        assertThat(LoadInput.name(gz)).isEqualTo("events.jsonl.gz");
    }

    @Test
    void standardInputIsSpooledToATemporaryFileForCsvAndParquet() throws Exception {
        byte[] csv = "customer_id,email\nC1,a@x.io\n".getBytes(StandardCharsets.UTF_8);
        Path spooled = LoadInput.spool(new ByteArrayInputStream(csv), Kind.CSV);
        try {
            assertThat(spooled.getFileName().toString()).startsWith("dimstream-load-stdin-").endsWith(".csv");
            assertThat(Files.readAllBytes(spooled)).isEqualTo(csv);
        } finally {
            Files.delete(spooled);
        }
    }

    @Test
    void aHeaderSeparatedByAnotherCharacterGetsTheHintNamingItAndTheOption() {
        assertThat(List.of(
                LoadInput.delimiterHint(List.of("customer_id;email;city;last_login"), ','),
                LoadInput.delimiterHint(List.of("customer_id\temail\tcity"), ','),
                LoadInput.delimiterHint(List.of("customer_id|email|city"), ','),
                LoadInput.delimiterHint(List.of("customer_id,email,city"), ';'),
                LoadInput.delimiterHint(List.of("customer_id", "e_mail"), ',')))
                .containsExactly(
                        "; the header line reads 'customer_id;email;city;last_login': if its fields are separated by ';', give "
                                + "--csv-delimiter ';'",
                        "; the header line reads 'customer_id\\temail\\tcity': if its fields are separated by '\\t', give "
                                + "--csv-delimiter '\\t'",
                        "; the header line reads 'customer_id|email|city': if its fields are separated by '|', give --csv-delimiter '|'",
                        "; the header line reads 'customer_id,email,city': if its fields are separated by ',', give --csv-delimiter ','",
                        "");
    }
}
