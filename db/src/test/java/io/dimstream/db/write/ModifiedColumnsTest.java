package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.h;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code varchar(n)} and {@code numeric(p,s)} columns: {@link TypeModifier#apply} gives what
 * PostgreSQL stores, or refuses what PostgreSQL refuses, value by value; and through the writer the
 * table holds the values as rounded or cut, hashed as stored.
 */
class ModifiedColumnsTest {

    private final DataSource ds = TestPostgres.dataSource();

    /** What a column of {@code sqlType} holds after an INSERT of {@code input} (assignment, as the writer's), or "refused". */
    private List<String> postgres(String sqlType, String inputType, List<String> inputs) throws SQLException {
        List<String> out = new ArrayList<>();
        String table = Fixtures.uniqueTable("mirror");
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (v " + sqlType + ")");
            for (String in : inputs) {
                try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " VALUES (?::" + inputType + ") RETURNING v::text")) {
                    p.setString(1, in);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        out.add(rs.getString(1));
                    }
                } catch (SQLException e) {
                    out.add("refused " + e.getSQLState());
                }
            }
        }
        return out;
    }

    /** What {@link TypeModifier#apply} makes of each input, in the form {@link #postgres} prints it. */
    private static List<String> ours(TypeModifier m, List<String> inputs) {
        List<String> out = new ArrayList<>();
        for (String in : inputs) {
            try {
                Object v = m.apply(m.base().coerce(in));
                out.add(v instanceof BigDecimal d ? d.toPlainString() : (String) v);
            } catch (IllegalArgumentException e) {
                out.add("refused " + (m instanceof TypeModifier.Length ? "22001" : "22003"));
            }
        }
        return out;
    }

    @Test
    void numericRoundingAndOverflowMirrorPostgres() throws SQLException {
        List<String> inputs = List.of("123.455", "123.445", "-123.455", "999.994", "999.995", "-999.995", "0.005", "-0.005",
                "0.0049", "1e2", "12345", "1234.5", "0", "1e-20", "99999e-2", "-0.00", "5E+2", "0.1234567890123456789");
        assertThat(ours(new TypeModifier.Precision(5, 2), inputs)).isEqualTo(postgres("numeric(5,2)", "numeric", inputs))
                .isEqualTo(List.of("123.46", "123.45", "-123.46", "999.99", "refused 22003", "refused 22003", "0.01", "-0.01",
                        "0.00", "100.00", "refused 22003", "refused 22003", "0.00", "0.00", "999.99", "0.00", "500.00", "0.12"));

        List<String> fractions = List.of("0.9995", "0.9994", "-0.0005", "1", "0.5");
        assertThat(ours(new TypeModifier.Precision(3, 3), fractions)).isEqualTo(postgres("numeric(3,3)", "numeric", fractions))
                .isEqualTo(List.of("refused 22003", "0.999", "-0.001", "refused 22003", "0.500"));

        List<String> wholes = List.of("9.5", "-9.4", "-9.5", "0.5", "8.49");
        assertThat(ours(new TypeModifier.Precision(1, 0), wholes)).isEqualTo(postgres("numeric(1,0)", "numeric", wholes))
                .isEqualTo(List.of("refused 22003", "-9", "refused 22003", "1", "8"));
    }

    @Test
    void varcharLengthMirrorsPostgresIncludingTrailingSpacesCutOff() throws SQLException {
        List<String> inputs = List.of("abcde", "abcdef", "abc      ", "abcde   x", "\ud83d\ude00".repeat(5), "\ud83d\ude00".repeat(6),
                "\u00e9\u00e9\u00e9\u00e9\u00e9 ", "", "     ");
        assertThat(ours(new TypeModifier.Length(5), inputs)).isEqualTo(postgres("varchar(5)", "text", inputs))
                .isEqualTo(List.of("abcde", "refused 22001", "abc  ", "refused 22001", "\ud83d\ude00".repeat(5), "refused 22001",
                        "\u00e9\u00e9\u00e9\u00e9\u00e9", "", "     "));
    }

    @Test
    void theValidatorNamesTheColumnAndTheDeclaredType() {
        EntitySpec spec = spec("unused");
        io.dimstream.db.event.EventValidator v = new io.dimstream.db.event.EventValidator(spec);
        Source src = Source.kafka("t", 0, 1);

        assertThat(v.validate(Event.upsert(h(1), Map.of("id", "A", "email", "a-very-long@example.com"), 1, src)).rejection())
                .isEqualTo(new Rejection(src, "column 'email': text of 23 characters is too long for character varying(10) (at most 10)"));
        assertThat(v.validate(Event.upsert(h(1), Map.of("id", "A", "amount", new BigDecimal("9999.995")), 1, src)).rejection())
                .isEqualTo(new Rejection(src, "column 'amount': numeric 9999.995 does not fit numeric(6,2): it must round to an absolute "
                        + "value less than 10^4"));
    }

    @Test
    void theTableHoldsTheRoundedAndCutValuesHashedAsStored() throws SQLException {
        String table = Fixtures.uniqueTable("modified");
        EntitySpec spec = spec(table);
        EntityTables.ensure(ds, spec);
        List<Event> events = List.of(
                up(1, 1, "A", "a@x", "1.005"),
                up(2, 1, "B", "b@x" + " ".repeat(20), "-2.5"),
                up(3, 1, "C", "c@x", "9999.995"),
                up(4, 2, "A", "a@x", "1.0050"),  // the same stored value: a re-assertion, not a change
                up(5, 3, "A", "a@x", "1.015"));

        ApplyResult result = new Scd2Writer(ds).apply(spec, events);

        assertThat(result).isEqualTo(ApplyResult.builder()
                .received(5)
                .newKeys(2)
                .changed(1)
                .unchanged(1)
                .rejected(List.of(new Rejection(Source.kafka("m", 0, 3),
                        "column 'amount': numeric 9999.995 does not fit numeric(6,2): it must round to an absolute value less than 10^4")))
                .rowsInserted(3)
                .build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                row("A", "a@x", "1.01", 1, 3),
                row("A", "a@x", "1.02", 3, null),
                row("B", "b@x       ", "-2.50", 1, null)));
        assertThat(columnTypes(table)).isEqualTo(List.of("id text", "email character varying(10)", "amount numeric(6,2)"));
    }

    private List<String> columnTypes(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT attname || ' ' || format_type(atttypid, "
                + "atttypmod) FROM pg_attribute WHERE attrelid = ?::regclass AND attnum BETWEEN 1 AND 3 ORDER BY attnum")) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static EntitySpec spec(String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        return EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("email", "amount"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .modifiers(Map.of("email", new TypeModifier.Length(10), "amount", new TypeModifier.Precision(6, 2)))
                .build();
    }

    private static Event up(long seq, int hour, String id, String email, String amount) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("email", email);
        data.put("amount", amount);
        return Event.upsert(h(hour), data, seq, Source.kafka("m", 0, seq));
    }

    /** A version row; the hash is of the values as stored (the rounded amount's canonical text). */
    private static ExpectedRow row(String id, String email, String amount, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("email", email);
        attrs.put("amount", ExpectedRow.normalize(ColumnType.NUMERIC, new BigDecimal(amount)));
        return new ExpectedRow(Map.of("id", id), attrs, h(fromHour), toHour == null ? null : h(toHour), toHour == null, false,
                RecordHash.hex(RecordHash.of(Arrays.asList(email, ColumnType.NUMERIC.canonical(new BigDecimal(amount))))));
    }
}
