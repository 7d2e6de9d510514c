package io.dimstream.db.write;

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
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * One batch mixing good events with one of each value PostgreSQL would refuse, on keys of their own
 * and on a key that also has good events: {@link Scd2Writer#apply} rejects exactly the hostile ones,
 * each with its source and reason, and the table holds exactly the good events' history. Before
 * the validator refused them, any one of these failed the whole batch in PostgreSQL (or, for
 * {@code 1e900000000}, the JVM's heap).
 */
class HostileBatchTest {

    private static final String RANGE = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";

    private final DataSource ds = TestPostgres.dataSource();

    @Test
    void hostileValuesAreRejectedWithTheirReasonsAndTheGoodEventsLand() throws SQLException {
        EntitySpec spec = spec(Fixtures.uniqueTable("hostile"));
        EntityTables.ensure(ds, spec);
        Instant t1 = Instant.parse("2025-01-01T01:00:00Z");
        Instant t2 = Instant.parse("2025-01-01T02:00:00Z");
        Instant t3 = Instant.parse("2025-01-01T03:00:00Z");
        Instant t4 = Instant.parse("2025-01-01T04:00:00Z");
        List<Event> batch = new ArrayList<>();
        List<Rejection> expected = new ArrayList<>();
        batch.add(up(1, t1, row("A", "a@x", "1.005")));
        batch.add(up(2, t1, row("B", "b@x", "2")));
        hostile(batch, expected, t1, row("H1", "a\u0000b", "1"), "column 'email': text contains a NUL character (U+0000), which PostgreSQL cannot store");
        hostile(batch, expected, t1, row("H2", "\ud800", "1"),
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode");
        hostile(batch, expected, Instant.parse("0000-06-01T00:00:00Z"), row("H3", "x", "1"), "event_time 0000-06-01T00:00:00Z" + RANGE);
        hostile(batch, expected, Instant.parse("+10000-01-01T00:00:00Z"), row("H4", "x", "1"), "event_time +10000-01-01T00:00:00Z" + RANGE);
        hostile(batch, expected, Instant.ofEpochMilli(Long.MAX_VALUE), row("H5", "x", "1"), "event_time +292278994-08-17T07:12:55.807Z" + RANGE);
        hostile(batch, expected, t1, with(row("H6", "x", "1"), "seen", "+300000-01-01T00:00:00Z"),
                "column 'seen': timestamp +300000-01-01T00:00:00Z" + RANGE);
        hostile(batch, expected, t1, with(row("H7", "x", "1"), "born", "+10000000-01-01"),
                "column 'born': date +10000000-01-01 is outside the supported range 0001-01-01 to 9999-12-31");
        hostile(batch, expected, t1, with(row("H8", "x", "1"), "total", "1e900000000"),
                "column 'total': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072");
        hostile(batch, expected, t1, with(row("H9", "x", "1"), "total", "1e-20000"),
                "column 'total': numeric 1E-20000 has 20000 digits after the decimal point; PostgreSQL's numeric holds at most 16383");
        hostile(batch, expected, t1, with(row("H10", "x", "1"), "n", new BigDecimal("1e900000000")),
                "column 'n': value 1E+900000000 is out of range for bigint");
        hostile(batch, expected, t1, row("K".repeat(4000), "x", "1"), "key (id) is 4000 bytes long as text; at most 2000 bytes fit "
                + "PostgreSQL's indexes on the key (an index entry holds at most about 2700 bytes)");
        hostile(batch, expected, t1, row("H12", "x".repeat(21), "1"),
                "column 'email': text of 21 characters is too long for character varying(20) (at most 20)");
        hostile(batch, expected, t1, row("H13", "x", "1e6"),
                "column 'amount': numeric 1E+6 does not fit numeric(8,2): it must round to an absolute value less than 10^6");
        hostile(batch, expected, t1, with(row("H14", "x", "1"), "email", Collections.nCopies(1_000_000, "x")),
                "column 'email': expected text, got array of 1000000 elements");
        // on the key with good events: refused, the key's good events around them land
        hostile(batch, expected, t2, row("A", "a\u0000", "1"), "column 'email': text contains a NUL character (U+0000), which PostgreSQL cannot store");
        hostile(batch, expected, t3, with(row("A", "a@x", "1"), "total", "1e900000000"),
                "column 'total': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072");
        batch.add(up(batch.size() + 1, t4, row("A", "a@y", "1.005")));

        ApplyResult result = new Scd2Writer(ds).apply(spec, batch);

        assertThat(result).isEqualTo(ApplyResult.builder().received(batch.size()).newKeys(2).changed(1).rejected(expected).rowsInserted(3).build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("A", "a@x", t1, t4),
                version("A", "a@y", t4, null),
                new ExpectedRow(Map.of("id", "B"), attrs("b@x", "2"), t1, null, true, false, hash("b@x", "2"))));
    }

    /**
     * PostgreSQL keeps microseconds: two events of a key a nanosecond apart (Avro timestamp-nanos)
     * are one event time there, so the later arrival wins, as for equal times: judged in arrival
     * order, as if each came alone, the first is a new key and the second replaces it (a new key too:
     * no event before it), updating its version. Before, both went to the batch and the memory's
     * primary key refused the second.
     */
    @Test
    void eventsANanosecondApartAreOneEventTimeAsInPostgres() throws SQLException {
        EntitySpec spec = spec(Fixtures.uniqueTable("nanos"));
        EntityTables.ensure(ds, spec);
        Instant t = Instant.parse("2025-01-01T01:00:00.000000001Z");

        ApplyResult result = new Scd2Writer(ds).apply(spec, List.of(up(1, t, row("A", "a@x", "1.005")), up(2, t.plusNanos(1), row("A", "a@y", "1.005"))));

        Instant micros = Instant.parse("2025-01-01T01:00:00Z");
        assertThat(result).isEqualTo(ApplyResult.builder().received(2).newKeys(2).rowsInserted(1).rowsUpdated(1).build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(version("A", "a@y", micros, null)));
    }

    private static void hostile(List<Event> batch, List<Rejection> expected, Instant t, Map<String, Object> data, String reason) {
        long seq = batch.size() + 1;
        batch.add(up(seq, t, data));
        expected.add(new Rejection(Source.kafka("hostile", 0, seq), reason));
    }

    private static Event up(long seq, Instant t, Map<String, Object> data) {
        return Event.upsert(t, data, seq, Source.kafka("hostile", 0, seq));
    }

    /** A row image: email and amount as given, the other columns ordinary. */
    private static Map<String, Object> row(String id, Object email, String amount) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("email", email);
        m.put("amount", amount);
        m.put("total", "1");
        m.put("n", 1);
        m.put("born", "2000-01-01");
        m.put("seen", "2025-01-01T00:00:00Z");
        return m;
    }

    private static Map<String, Object> with(Map<String, Object> row, String column, Object value) {
        row.put(column, value);
        return row;
    }

    private static ExpectedRow version(String id, String email, Instant from, Instant to) {
        return new ExpectedRow(Map.of("id", id), attrs(email, "1.01"), from, to, to == null, false, hash(email, "1.01"));
    }

    /** The attributes as stored: the amount rounded to numeric(8,2). */
    private static Map<String, Object> attrs(String email, String amount) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("email", email);
        m.put("amount", ExpectedRow.normalize(ColumnType.NUMERIC, new BigDecimal(amount)));
        m.put("total", BigDecimal.ONE);
        m.put("n", 1L);
        m.put("born", LocalDate.parse("2000-01-01"));
        m.put("seen", Instant.parse("2025-01-01T00:00:00Z"));
        return m;
    }

    private static String hash(String email, String amount) {
        return RecordHash.hex(RecordHash.of(List.of(email, amount, "1", "1", "2000-01-01", "2025-01-01T00:00:00.000000Z")));
    }

    private static EntitySpec spec(String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("total", ColumnType.NUMERIC);
        cols.put("n", ColumnType.BIGINT);
        cols.put("born", ColumnType.DATE);
        cols.put("seen", ColumnType.TIMESTAMPTZ);
        return EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("email", "amount", "total", "n", "born", "seen"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .modifiers(Map.of("email", new TypeModifier.Length(20), "amount", new TypeModifier.Precision(8, 2)))
                .build();
    }
}
