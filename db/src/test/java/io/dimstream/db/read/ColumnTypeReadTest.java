package io.dimstream.db.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.testing.TestPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link ColumnType#read} gives back, for every type, the typed value the writer bound
 * ({@link Columns#bind}), and null for SQL NULL.
 */
class ColumnTypeReadTest {

    private static final DataSource DS = TestPostgres.dataSource();

    /** One value of each type, as {@link ColumnType#coerce} makes it. */
    private static Map<ColumnType, Object> oneOfEach() {
        Map<ColumnType, Object> v = new LinkedHashMap<>();
        v.put(ColumnType.TEXT, "Zoë | ''");
        v.put(ColumnType.SMALLINT, -32768L);
        v.put(ColumnType.INTEGER, 2_147_483_647L);
        v.put(ColumnType.BIGINT, -9_223_372_036_854_775_808L);
        v.put(ColumnType.NUMERIC, new BigDecimal("12345678901234567890.000000000000000001"));
        v.put(ColumnType.DOUBLE, -0.1);
        v.put(ColumnType.BOOLEAN, true);
        v.put(ColumnType.DATE, LocalDate.of(2026, 12, 2));
        v.put(ColumnType.TIMESTAMPTZ, Instant.parse("2026-12-02T05:00:00.123456Z"));
        v.put(ColumnType.UUID_TYPE, UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e"));
        v.put(ColumnType.TIMESTAMP, LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000));
        v.put(ColumnType.TIME, LocalTime.of(23, 59, 59, 999_999_000));
        v.put(ColumnType.JSONB, ColumnType.JSONB.coerce("{\"b\": [1, 2.50, null], \"a\": \"x\"}"));
        v.put(ColumnType.BYTEA, new byte[] {0, 1, (byte) 0xFF});
        return v;
    }

    @Test
    void eachTypeReadsBackTheValueWrittenAndNullAsNull() throws SQLException {
        Map<ColumnType, Object> written = oneOfEach();
        assertThat(written.keySet()).containsExactlyInAnyOrder(ColumnType.values());
        List<ColumnType> types = new ArrayList<>(written.keySet());
        StringBuilder ddl = new StringBuilder("CREATE TEMP TABLE typed_values (row_no int");
        StringBuilder insert = new StringBuilder("INSERT INTO typed_values VALUES (?");
        for (int i = 0; i < types.size(); i++) {
            ddl.append(", c").append(i).append(' ').append(types.get(i).sqlName());
            insert.append(", ?");
        }
        try (Connection c = DS.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute(ddl.append(")").toString());
            }
            try (PreparedStatement p = c.prepareStatement(insert.append(")").toString())) {
                for (int row = 1; row <= 2; row++) {
                    p.setInt(1, row);
                    for (int i = 0; i < types.size(); i++) {
                        Columns.bind(p, i + 2, types.get(i), row == 1 ? written.get(types.get(i)) : null);
                    }
                    p.executeUpdate();
                }
            }
            List<Map<ColumnType, Object>> read = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM typed_values ORDER BY row_no")) {
                while (rs.next()) {
                    Map<ColumnType, Object> row = new LinkedHashMap<>();
                    for (int i = 0; i < types.size(); i++) {
                        Object v = types.get(i).read(rs, i + 2);
                        row.put(types.get(i), v instanceof byte[] b ? Arrays.toString(b) : v);
                    }
                    read.add(row);
                }
            }
            Map<ColumnType, Object> expected = new LinkedHashMap<>(written);
            expected.put(ColumnType.BYTEA, "[0, 1, -1]");
            expected.put(ColumnType.JSONB, "{\"a\":\"x\",\"b\":[1,2.50,null]}"); // canonical: keys sorted, no spaces
            Map<ColumnType, Object> nulls = new LinkedHashMap<>();
            types.forEach(t -> nulls.put(t, null));
            assertThat(read).containsExactly(expected, nulls);
        }
    }
}
