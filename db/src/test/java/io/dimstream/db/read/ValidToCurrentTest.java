package io.dimstream.db.read;

import static io.dimstream.db.read.HistoryQueriesTest.APR1;
import static io.dimstream.db.read.HistoryQueriesTest.FEB1;
import static io.dimstream.db.read.HistoryQueriesTest.FEB15;
import static io.dimstream.db.read.HistoryQueriesTest.JAN1;
import static io.dimstream.db.read.HistoryQueriesTest.MAR1;
import static io.dimstream.db.read.HistoryQueriesTest.columns;
import static io.dimstream.db.read.Versions.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.status.TableCounts;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dimension with {@code valid-to-current: infinity}, written by the writer on each of its paths
 * (new keys, a close, a delete, a late event recomputing a region, a type-1 overwrite of the open
 * version): the table, its {@code _current} view and {@code _as_of} function as SQL shows them
 * (open versions end at {@code infinity}), the README's range join without a NULL test, and the
 * readers (history, as of, summary, counts, snapshot slices, integrity), which take an open end
 * as open.
 */
class ValidToCurrentTest {

    static final String SCHEMA = "vtc";
    static final EntitySpec DIM = EntitySpec.builder()
            .name("vtc_customer")
            .table(SCHEMA + ".dim_customer")
            .key(List.of("customer_id"))
            .tracked(List.of("tier"))
            .type1(List.of("visits"))
            .columns(columns("customer_id", ColumnType.TEXT, "tier", ColumnType.TEXT, "visits", ColumnType.BIGINT))
            .latenessHorizon(Optional.empty())
            .validToCurrent(ValidToCurrent.INFINITY)
            .build();

    static final Instant FEB20 = Instant.parse("2025-02-20T10:00:00Z");
    static final Instant MAR15 = Instant.parse("2025-03-15T10:00:00Z");

    static DataSource ds;

    @BeforeAll
    static void write() throws SQLException {
        ds = TestPostgres.dataSource();
        EntityTables.ensure(ds, DIM);
        Scd2Writer writer = new Scd2Writer(ds);
        // new keys (fast path); a close and a delete (fast path); a late event (a region); a type-1 re-assertion
        writer.apply(DIM, List.of(upsert("C1", "bronze", null, JAN1, 1), upsert("C2", "gold", null, JAN1, 2),
                upsert("C3", "gold", null, FEB1, 3)));
        writer.apply(DIM, List.of(upsert("C1", "silver", null, FEB1, 4),
                Event.delete(MAR1, new LinkedHashMap<>(Map.of("customer_id", "C2")), 5, Source.kafka("t", 0, 5))));
        writer.apply(DIM, List.of(upsert("C3", "bronze", null, JAN1, 6)));
        writer.apply(DIM, List.of(upsert("C1", "silver", 7L, FEB15, 7)));
        exec("CREATE TABLE " + SCHEMA + ".fact_orders (order_id integer PRIMARY KEY, customer_id text NOT NULL, "
                + "ts timestamptz NOT NULL, amount integer NOT NULL)");
        exec("INSERT INTO " + SCHEMA + ".fact_orders VALUES (1, 'C1', '2025-01-15T10:00:00Z', 10), (2, 'C1', '2025-02-01T00:00:00Z', 20), "
                + "(3, 'C2', '2025-02-20T10:00:00Z', 30), (4, 'C2', '2025-03-15T10:00:00Z', 40), (5, 'C9', '2025-01-15T10:00:00Z', 50), "
                + "(6, 'C3', '2025-03-15T10:00:00Z', 60)");
    }

    @Test
    void openVersionsEndAtInfinityInTheTableTheViewAndTheFunction() throws SQLException {
        assertThat(rows("SELECT customer_id, tier, visits, valid_from, valid_to, is_current, is_deleted FROM dim_customer "
                + "ORDER BY customer_id, valid_from")).isEqualTo(List.of(
                        List.of("C1", "bronze", "null", "2025-01-01 00:00:00+00", "2025-02-01 00:00:00+00", "f", "f"),
                        List.of("C1", "silver", "7", "2025-02-01 00:00:00+00", "infinity", "t", "f"),
                        List.of("C2", "gold", "null", "2025-01-01 00:00:00+00", "2025-03-01 00:00:00+00", "f", "f"),
                        List.of("C2", "gold", "null", "2025-03-01 00:00:00+00", "infinity", "f", "t"),
                        List.of("C3", "bronze", "null", "2025-01-01 00:00:00+00", "2025-02-01 00:00:00+00", "f", "f"),
                        List.of("C3", "gold", "null", "2025-02-01 00:00:00+00", "infinity", "t", "f")));
        assertThat(rows("SELECT customer_id, tier, valid_from, valid_to FROM dim_customer_current ORDER BY customer_id")).isEqualTo(List.of(
                List.of("C1", "silver", "2025-02-01 00:00:00+00", "infinity"),
                List.of("C3", "gold", "2025-02-01 00:00:00+00", "infinity")));
        assertThat(rows("SELECT customer_id, tier, valid_to FROM dim_customer_as_of('2025-02-20T10:00:00Z') ORDER BY customer_id"))
                .isEqualTo(List.of(List.of("C1", "silver", "infinity"), List.of("C2", "gold", "2025-03-01 00:00:00+00"),
                        List.of("C3", "gold", "infinity")));
        assertThat(rows("SELECT customer_id, tier, valid_to FROM dim_customer_as_of('2025-03-15T10:00:00Z') ORDER BY customer_id"))
                .isEqualTo(List.of(List.of("C1", "silver", "infinity"), List.of("C3", "gold", "infinity")));
    }

    @Test
    void theRangeJoinNeedsNoNullTest() throws SQLException, IOException {
        String sql;
        try (InputStream in = ValidToCurrentTest.class.getResourceAsStream("/temporal-join-infinity.sql")) {
            assertThat(in).as("temporal-join-infinity.sql on the test classpath").isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.strip().startsWith("--"))
                    .collect(Collectors.joining("\n")).replace(";", "");
        }
        assertThat(rows(sql)).isEqualTo(List.of(
                List.of("1", "C1", "10", "bronze", "2025-01-01 00:00:00+00", "2025-02-01 00:00:00+00"),
                List.of("2", "C1", "20", "silver", "2025-02-01 00:00:00+00", "infinity"),
                List.of("3", "C2", "30", "gold", "2025-01-01 00:00:00+00", "2025-03-01 00:00:00+00"),
                List.of("4", "C2", "40", "null", "null", "null"),
                List.of("5", "C9", "50", "null", "null", "null"),
                List.of("6", "C3", "60", "gold", "2025-02-01 00:00:00+00", "infinity")));
    }

    @Test
    void theReadersTakeAnInfiniteEndAsOpen() throws SQLException {
        HistoryQueries q = new HistoryQueries(ds);
        assertThat(q.allVersions(DIM).stream().map(ValidToCurrentTest::shown).toList()).isEqualTo(List.of(
                List.of(Map.of("customer_id", "C1"), values("bronze", null), JAN1, FEB1, false, false),
                values(Map.of("customer_id", "C1"), values("silver", 7L), FEB1, null, true, false),
                List.of(Map.of("customer_id", "C2"), values("gold", null), JAN1, MAR1, false, false),
                values(Map.of("customer_id", "C2"), values("gold", null), MAR1, null, false, true),
                List.of(Map.of("customer_id", "C3"), values("bronze", null), JAN1, FEB1, false, false),
                values(Map.of("customer_id", "C3"), values("gold", null), FEB1, null, true, false)));
        assertThat(q.asOf(DIM, FEB20, null, false, 0, 10).rows().stream().map(ValidToCurrentTest::shown).toList()).isEqualTo(List.of(
                values(Map.of("customer_id", "C1"), values("silver", 7L), FEB1, null, true, false),
                List.of(Map.of("customer_id", "C2"), values("gold", null), JAN1, MAR1, false, false),
                values(Map.of("customer_id", "C3"), values("gold", null), FEB1, null, true, false)));
        assertThat(q.asOf(DIM, MAR15, null, false, 0, 10).rows().stream().map(r -> r.key().get("customer_id")).toList())
                .isEqualTo(List.of("C1", "C3"));
        assertThat(new TableSummary(ds).shape(DIM)).isEqualTo(new TableSummary.Shape(6, 2, 1));
        assertThat(TableCounts.of(ds, DIM)).isEqualTo(new TableCounts(6, 2, 1, 0, 0, 0));
        try (Connection c = ds.getConnection()) {
            assertThat(SnapshotSlices.liveWithoutEventAt(c, DIM, APR1)).isEqualTo(List.of(List.of("C1"), List.of("C3")));
        }
        assertThat(new IntegrityChecker(ds).check(DIM)).isEqualTo(new IntegrityReport("vtc_customer", 6, List.of()));
        assertThat(EntityTables.ensure(ds, DIM)).as("the table validated again: no problem, no warning").isEmpty();
    }

    /** key, attributes, valid_from, valid_to (null: open), is_current, is_deleted. */
    private static List<Object> shown(VersionRow r) {
        return values(r.key(), new ArrayList<>(r.attributes().values()), r.validFrom(), r.validTo(), r.current(), r.deleted());
    }

    private static Event upsert(String id, String tier, Long visits, Instant at, long seq) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("tier", tier);
        data.put("visits", visits);
        return Event.upsert(at, data, seq, Source.kafka("t", 0, seq));
    }

    /** Every column as PostgreSQL's text (UTC), "null" for NULL. */
    private static List<List<String>> rows(String sql) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            s.execute("SET search_path TO " + SCHEMA);
            try (ResultSet rs = s.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        row.add(String.valueOf(rs.getString(i)));
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    private static void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
