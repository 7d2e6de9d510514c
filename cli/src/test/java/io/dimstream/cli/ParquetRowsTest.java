package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.source.SourceRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SourceRows#parquet} reads a Parquet file in two mending modes side by side to refuse a row
 * whose text is not UTF-8: over ten row groups the two reads stay aligned, every row keeps its number
 * and its own values, and exactly the damaged rows are refused, naming the column (a text column, and
 * a list of texts: any column, as a CSV row is refused for any of its columns).
 */
class ParquetRowsTest {

    @TempDir
    Path dir;

    @Test
    void theRowWithTextThatIsNotUtf8IsRefusedAndEveryOtherRowKeepsItsNumberAndValues() throws Exception {
        Path parquet = dir.resolve("rows.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT 'K' || lpad(i::VARCHAR, 6, '0') AS k, CASE WHEN i = 54321 THEN 'zQQz' ELSE 'v' || i END AS v, i AS n, "
                    + "[CASE WHEN i = 77777 THEN 'wQQw' ELSE 't' END] AS tags "
                    + "FROM range(1, 100001) t(i) ORDER BY i) TO '" + parquet + "' (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 10000)");
        }
        String hex = HexFormat.of().formatHex(Files.readAllBytes(parquet)); // the value and any statistic holding it: z C3 ( z
        assertThat(hex).contains("7a51517a").contains("77515177");
        Files.write(parquet, HexFormat.of().parseHex(hex.replace("7a51517a", "7ac3287a").replace("77515177", "77c32877")));

        List<String> wrong = new ArrayList<>();
        long rows = 0;
        try (SourceRows r = SourceRows.parquet(parquet)) {
            assertThat(r.columns()).isEqualTo(List.of("k", "v", "n", "tags"));
            while (r.next()) {
                rows++;
                long i = r.rowNumber();
                String got = r.rejection() != null ? i + " refused: " + r.rejection() : i + ": " + r.value(0) + " " + r.value(1) + " " + r.value(2);
                String expected = i == 54321 ? i + " refused: Parquet column v holds text that is not valid UTF-8"
                        : i == 77777 ? i + " refused: Parquet column tags holds text that is not valid UTF-8"
                        : i + ": " + "K%06d".formatted(i) + " v" + i + " " + i;
                if (i != rows || !got.equals(expected)) {
                    wrong.add("row " + rows + ": " + got + ", expected " + expected);
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(rows).isEqualTo(100_000);
    }
}
