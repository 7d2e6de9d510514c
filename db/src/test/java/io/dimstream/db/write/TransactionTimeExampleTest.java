package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.erase.Erasure;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The worked example of docs/semantics.md, "Transaction time", through the real writer: the YDB
 * example's events in three transactions (T1: the first three, T2: the late move to San Francisco,
 * T3: the Oakland correction), then every row of the table and of {@code T_superseded} with its
 * transaction times named T1..T3, and {@code T_as_of('18:30', known_at)} after each.
 */
class TransactionTimeExampleTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void theDocumentedExampleRowByRowWithItsTransactionTimes() throws SQLException {
        String table = Fixtures.uniqueTable("tt_example");
        EntitySpec spec = Fixtures.ydb(table, table);
        EntityTables.ensure(ds, spec);
        List<Event> ydb = Fixtures.ydbEvents();
        Map<String, String> names = new LinkedHashMap<>();
        List<String> knownAt = new ArrayList<>();
        writer.apply(spec, ydb.subList(0, 3));
        knownAt.add(clock());
        writer.apply(spec, ydb.subList(3, 4));
        knownAt.add(clock());
        Map<String, Object> oakland = new LinkedHashMap<>();
        oakland.put("id", "CUSTOMER_1001");
        oakland.put("attribute1", "John Doe");
        oakland.put("attribute2", "Oakland");
        writer.apply(spec, List.of(Event.upsert(Instant.parse("2025-08-22T18:00:00Z"), oakland, 5, Source.kafka("t", 0, 5))));
        knownAt.add(clock());
        // T1..T3: the known_from of the rows each transaction wrote, in order
        for (List<String> r : query("SELECT DISTINCT known_from::text FROM " + Sql.table(table) + " ORDER BY 1")) {
            names.put(r.get(0), "T" + (names.size() + 1));
        }
        assertThat(names).hasSize(3);

        assertThat(named(query("SELECT id, attribute2, to_char(valid_from AT TIME ZONE 'UTC', 'HH24:MI'), "
                + "to_char(valid_to AT TIME ZONE 'UTC', 'HH24:MI'), known_from::text, end_known_from::text FROM " + Sql.table(table)
                + " WHERE id = 'CUSTOMER_1001' ORDER BY valid_from"), names)).isEqualTo(List.of(
                        List.of("CUSTOMER_1001", "Los Angeles", "17:00", "18:00", "T3", "T3"),
                        List.of("CUSTOMER_1001", "Oakland", "18:00", "19:00", "T3", "T3"),
                        List.of("CUSTOMER_1001", "San Francisco", "19:00", "NULL", "T2", "NULL")));
        assertThat(named(query("SELECT id, row_image->>'attribute2', to_char(valid_from AT TIME ZONE 'UTC', 'HH24:MI'), "
                + "to_char(valid_to AT TIME ZONE 'UTC', 'HH24:MI'), known_from::text, end_known_from::text, known_to::text FROM "
                + Sql.table(spec.supersededTable()) + " ORDER BY id, valid_from, known_to"), names)).isEqualTo(List.of(
                        List.of("CUSTOMER_1001", "Los Angeles", "17:00", "19:00", "T1", "T2", "T3")));

        String asOf = "SELECT attribute2, to_char(valid_to AT TIME ZONE 'UTC', 'HH24:MI'), is_current::text FROM "
                + Sql.table(spec.asOfFunction()) + "('2025-08-22T18:30:00Z', ?::timestamptz) WHERE id = 'CUSTOMER_1001'";
        assertThat(query(asOf, knownAt.get(0))).isEqualTo(List.of(List.of("Los Angeles", "NULL", "true")));
        assertThat(query(asOf, knownAt.get(1))).isEqualTo(List.of(List.of("Los Angeles", "19:00", "false")));
        assertThat(query(asOf, knownAt.get(2))).isEqualTo(List.of(List.of("Oakland", "19:00", "false")));
        assertThat(query("SELECT attribute2, to_char(valid_to AT TIME ZONE 'UTC', 'HH24:MI'), is_current::text FROM "
                + Sql.table(spec.asOfFunction()) + "('2025-08-22T18:30:00Z') WHERE id = 'CUSTOMER_1001'"))
                .isEqualTo(List.of(List.of("Oakland", "19:00", "false")));
        // querying.md, "What did we believe on date X?": what changed in the belief about 18:30 since after T1
        String t = Sql.table(spec.asOfFunction());
        assertThat(query("SELECT id, attribute2 FROM ((SELECT * FROM " + t + "('2025-08-22T18:30:00Z') EXCEPT ALL SELECT * FROM " + t
                + "('2025-08-22T18:30:00Z', ?::timestamptz)) UNION ALL (SELECT * FROM " + t + "('2025-08-22T18:30:00Z', ?::timestamptz) "
                + "EXCEPT ALL SELECT * FROM " + t + "('2025-08-22T18:30:00Z'))) q ORDER BY 1, 2", knownAt.get(0), knownAt.get(0)))
                .isEqualTo(List.of(List.of("CUSTOMER_1001", "Los Angeles"), List.of("CUSTOMER_1001", "Oakland")));
        // the other key, written once at T1, reads the same at every known_at after it
        for (String k : knownAt) {
            assertThat(query("SELECT id, attribute2 FROM " + Sql.table(spec.asOfFunction()) + "('2025-08-22T18:30:00Z', ?::timestamptz) "
                    + "WHERE id = 'CUSTOMER_1002'", k)).isEqualTo(List.of(List.of("CUSTOMER_1002", "New York")));
        }
    }

    @Test
    void theDocumentedErasureOfTheExamplesFirstCustomer() throws SQLException {
        String table = Fixtures.uniqueTable("tt_erase");
        EntitySpec spec = Fixtures.ydb(table, table);
        EntityTables.ensure(ds, spec);
        List<Event> ydb = Fixtures.ydbEvents();
        writer.apply(spec, ydb.subList(0, 3));
        String afterT1 = clock();
        writer.apply(spec, ydb.subList(3, 4));
        Map<String, Object> oakland = new LinkedHashMap<>();
        oakland.put("id", "CUSTOMER_1001");
        oakland.put("attribute1", "John Doe");
        oakland.put("attribute2", "Oakland");
        writer.apply(spec, List.of(Event.upsert(Instant.parse("2025-08-22T18:00:00Z"), oakland, 5, Source.kafka("t", 0, 5))));
        List<List<String>> other = query("SELECT to_jsonb(t)::text FROM " + Sql.table(table) + " t WHERE id = 'CUSTOMER_1002' ORDER BY valid_from");

        Erasure.Report report = new Erasure(ds).erase(spec, List.of(List.of("CUSTOMER_1001")), true, "dpo");

        assertThat(report.removed().get(Erasure.VERSIONS)).isEqualTo(3L);
        assertThat(report.removed().get(Erasure.SUPERSEDED)).isEqualTo(1L);
        for (String k : List.of(afterT1, clock())) {
            assertThat(query("SELECT id FROM " + Sql.table(spec.asOfFunction()) + "('2025-08-22T18:30:00Z', ?::timestamptz) ORDER BY id", k))
                    .isEqualTo(List.of(List.of("CUSTOMER_1002")));
        }
        assertThat(query("SELECT count(*)::text FROM " + Sql.table(spec.supersededTable()))).isEqualTo(List.of(List.of("0")));
        assertThat(query("SELECT to_jsonb(t)::text FROM " + Sql.table(table) + " t ORDER BY id, valid_from")).isEqualTo(other);
        // the four events again: the erased key's are dropped and counted, the other key's change nothing
        ApplyResult again = writer.apply(spec, ydb);
        assertThat(again.erased()).isEqualTo(2);
        assertThat(query("SELECT to_jsonb(t)::text FROM " + Sql.table(table) + " t ORDER BY id, valid_from")).isEqualTo(other);
    }

    @Test
    void withTransactionTimeOffTheTableIsTodaysExactlyAndSwitchingItOffLaterDropsTheTriggersAndTheFunction() throws SQLException {
        String table = Fixtures.uniqueTable("tt_off");
        EntitySpec off = Fixtures.ydb(table, table).toBuilder().transactionTime(false).build();
        EntityTables.ensure(ds, off);
        writer.apply(off, Fixtures.ydbEvents().subList(0, 3));
        writer.apply(off, Fixtures.ydbEvents().subList(3, 4));

        assertThat(EntityTableReader.rows(ds, off)).isEqualTo(Fixtures.ydbExpected(off));
        assertThat(query("SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 "
                + "AND NOT attisdropped", table)).isEqualTo(List.of(List.of("id,attribute1,attribute2,surrogate_key,valid_from,valid_to,"
                + "is_current,is_deleted,record_hash,source_topic,source_partition,source_offset,loaded_at,event_seq")));
        assertThat(objects(table)).isEqualTo(List.of(List.of(table + ": table"), List.of(table + "_as_of(timestamp with time zone): function"),
                List.of(table + "_current: view"), List.of(table + "_events: table")));

        // on: columns, side table, triggers and the two-argument function added to the table as it is
        EntitySpec on = off.toBuilder().transactionTime(true).build();
        EntityTables.ensure(ds, on);
        assertThat(objects(table)).isEqualTo(List.of(List.of(table + ": table"),
                List.of(table + "_as_of(timestamp with time zone): function"),
                List.of(table + "_as_of(timestamp with time zone,timestamp with time zone): function"), List.of(table + "_current: view"),
                List.of(table + "_events: table"), List.of(table + "_supersede(): function"), List.of(table + "_supersede_delete: trigger"),
                List.of(table + "_supersede_insert: trigger"), List.of(table + "_supersede_update: trigger"),
                List.of(table + "_superseded: table")));
        // the rows written before read "known since ever"
        assertThat(query("SELECT count(*)::text FROM " + Sql.table(table) + " WHERE known_from IS NULL AND end_known_from IS NULL"))
                .isEqualTo(List.of(List.of("4")));
        // off again: triggers and function gone, columns and side table kept
        EntityTables.ensure(ds, off);
        assertThat(objects(table)).isEqualTo(List.of(List.of(table + ": table"), List.of(table + "_as_of(timestamp with time zone): function"),
                List.of(table + "_current: view"), List.of(table + "_events: table"), List.of(table + "_supersede(): function"),
                List.of(table + "_superseded: table")));
    }

    /** The tables, views, functions and triggers named after {@code table}, with their kind. */
    private List<List<String>> objects(String table) throws SQLException {
        return query("SELECT name FROM (SELECT relname || ': ' || CASE relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' END AS name "
                + "FROM pg_class WHERE relkind IN ('r', 'v') AND relname LIKE ? || '%' "
                + "UNION ALL SELECT p.oid::regprocedure::text || ': function' FROM pg_proc p WHERE p.proname LIKE ? || '%' "
                + "UNION ALL SELECT tgname || ': trigger' FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE ? || '%') o ORDER BY name",
                table, table, table);
    }

    private static List<List<String>> named(List<List<String>> rows, Map<String, String> names) {
        return rows.stream().map(r -> r.stream().map(v -> names.getOrDefault(v, v)).toList()).toList();
    }

    private String clock() throws SQLException {
        return query("SELECT clock_timestamp()::text").get(0).get(0);
    }

    private List<List<String>> query(String sql, String... params) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                p.setString(i + 1, params[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        String v = rs.getString(i);
                        row.add(v == null ? "NULL" : v);
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }
}
