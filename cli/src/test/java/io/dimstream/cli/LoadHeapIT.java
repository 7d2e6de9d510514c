package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A big batch size never outgrows the heap: {@code ./dimstream load --batch-size 100000} of 20,000
 * rows of 10 text columns of 400 characters (about 85 MB of events if held as one batch) in a JVM
 * of 64 MiB ({@code DIMSTREAM_HEAP=64m}) ends the batches at a sixth of the heap instead, and loads
 * every row: the report is whole and the table holds exactly the file's rows. Without that bound
 * the same load ends in an {@code OutOfMemoryError}. Runs after {@code package} (the launcher's jars).
 */
class LoadHeapIT {

    private static final int ROWS = 20_000;
    private static final int COLUMNS = 10;

    @TempDir
    Path dir;

    @Test
    void aBatchOfWideRowsEndsAtItsShareOfTheHeapAndEveryRowLands() throws Exception {
        DataSource ds = TestPostgres.dataSource();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS load_heap_wide, load_heap_wide_events CASCADE");
        }
        StringBuilder columns = new StringBuilder("id: text");
        StringBuilder tracked = new StringBuilder();
        for (int c = 1; c <= COLUMNS; c++) {
            columns.append(", c").append(c).append(": text");
            tracked.append(c == 1 ? "" : ", ").append('c').append(c);
        }
        Path config = dir.resolve("dimstream.yml");
        Files.writeString(config, """
                postgres:
                  url: "%s"
                entities:
                  - name: wide
                    topic: wide
                    table: load_heap_wide
                    key: [id]
                    tracked: [%s]
                    columns: {%s}
                """.formatted(TestPostgres.jdbcUrl(), tracked, columns));
        // the file, and the digest of the rows it must give: id and columns in key order
        Path input = dir.resolve("wide.jsonl");
        MessageDigest expected = MessageDigest.getInstance("MD5");
        try (BufferedWriter w = Files.newBufferedWriter(input)) {
            for (int i = 0; i < ROWS; i++) {
                String id = String.format("k%06d", i);
                StringBuilder line = new StringBuilder("{\"op\":\"upsert\",\"event_time\":\"2026-01-01T00:00:00Z\",\"data\":{\"id\":\"")
                        .append(id).append('"');
                StringBuilder row = new StringBuilder(id);
                for (int c = 1; c <= COLUMNS; c++) {
                    String v = (id + ":" + c + ":").repeat(40).substring(0, 400);
                    line.append(",\"c").append(c).append("\":\"").append(v).append('"');
                    row.append('|').append(v);
                }
                w.write(line.append("}}\n").toString());
                expected.update(row.append('\n').toString().getBytes(StandardCharsets.UTF_8));
            }
        }

        ProcessBuilder pb = new ProcessBuilder(Path.of("..", "dimstream").toAbsolutePath().normalize().toString(), "load",
                "--config", config.toString(), "--entity", "wide", "--input", input.toString(), "--batch-size", "100000", "--parallel", "1");
        pb.environment().put("DIMSTREAM_SKIP_BUILD", "1");
        pb.environment().put("DIMSTREAM_HEAP", "64m");
        pb.environment().put("DIMSTREAM_CDS", "0");
        pb.environment().remove("JAVA_OPTS");
        Path out = dir.resolve("load.out");
        Process p = pb.redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the load ended").isTrue();
        String printed = Files.readString(out);
        assertThat(p.exitValue()).as(printed).isZero();
        assertThat(printed).isEqualTo("""
                applied         20000
                new             20000
                changed             0
                deleted             0
                unchanged           0
                late                0
                duplicates          0
                quarantined         0
                rejected            0
                """);

        StringBuilder select = new StringBuilder("SELECT id");
        for (int c = 1; c <= COLUMNS; c++) {
            select.append(" || '|' || c").append(c);
        }
        MessageDigest actual = MessageDigest.getInstance("MD5");
        long rows = 0;
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(select + " FROM load_heap_wide WHERE is_current ORDER BY id")) {
            while (rs.next()) {
                actual.update((rs.getString(1) + "\n").getBytes(StandardCharsets.UTF_8));
                rows++;
            }
        }
        assertThat(List.of(rows, HexFormat.of().formatHex(actual.digest())))
                .as("every row of the file, each whole").isEqualTo(List.of((long) ROWS, HexFormat.of().formatHex(expected.digest())));
    }
}
