package io.dimstream.db.read;

import static io.dimstream.db.read.HistoryQueriesTest.FEB1;
import static io.dimstream.db.read.HistoryQueriesTest.JAN1;
import static io.dimstream.db.read.HistoryQueriesTest.MAR1;
import static io.dimstream.db.read.HistoryQueriesTest.columns;
import static io.dimstream.db.read.Versions.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the temporal joins of {@code temporal-join-example.sql} (the SQL the README shows) against a
 * real dimension made by {@link EntityTables}, in a schema of its own so the example can use the
 * plain names {@code dim_customer} and {@code fact_orders}.
 */
class TemporalJoinTest {

    static final String SCHEMA = "tj_example";
    static final EntitySpec DIM = EntitySpec.builder()
            .name("tj_customer")
            .table(SCHEMA + ".dim_customer")
            .key(List.of("customer_id"))
            .tracked(List.of("tier"))
            .columns(columns("customer_id", ColumnType.TEXT, "tier", ColumnType.TEXT))
            .latenessHorizon(Optional.empty())
            .build();

    static final Instant JAN15 = Instant.parse("2025-01-15T10:00:00Z");
    static final Instant FEB20 = Instant.parse("2025-02-20T10:00:00Z");
    static final Instant MAR15 = Instant.parse("2025-03-15T10:00:00Z");

    static DataSource ds;

    @BeforeAll
    static void createTables() throws SQLException {
        ds = TestPostgres.dataSource();
        EntityTables.ensure(ds, DIM);
        Versions v = new Versions(DIM);
        VersionRow c2 = v.version(List.of("C2"), values("gold"), 201, JAN1, MAR1);
        v.insert(ds,
                v.version(List.of("C1"), values("bronze"), 101, JAN1, FEB1),
                v.version(List.of("C1"), values("silver"), 102, FEB1, null),
                c2,
                v.deleted(c2, 202, MAR1));
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + SCHEMA + ".fact_orders (order_id integer PRIMARY KEY, customer_id text NOT NULL, "
                    + "ts timestamptz NOT NULL, amount integer NOT NULL, customer_sk bigint)");
            s.execute("INSERT INTO " + SCHEMA + ".fact_orders (order_id, customer_id, ts, amount) VALUES "
                    + "(1, 'C1', '2025-01-15T10:00:00Z', 10), "   // C1's first version
                    + "(2, 'C1', '2025-02-01T00:00:00Z', 20), "   // exactly when C1's second version starts
                    + "(3, 'C2', '2025-02-20T10:00:00Z', 30), "   // C2 before its delete
                    + "(4, 'C2', '2025-03-15T10:00:00Z', 40), "   // C2 after its delete: no version
                    + "(5, 'C9', '2025-01-15T10:00:00Z', 50)");   // a customer the dimension never saw
        }
    }

    /** order_id, customer_id, ts, amount, customer_sk, tier. */
    static final List<List<Object>> EXPECTED = List.of(
            Arrays.asList(1, "C1", JAN15, 10, 101L, "bronze"),
            Arrays.asList(2, "C1", FEB1, 20, 102L, "silver"),
            Arrays.asList(3, "C2", FEB20, 30, 201L, "gold"),
            Arrays.asList(4, "C2", MAR15, 40, null, null),
            Arrays.asList(5, "C9", JAN15, 50, null, null));

    @Test
    void factsJoinTheVersionValidAtTheirEventTimeAndThenBySurrogateKey() throws SQLException, IOException {
        List<String> statements = statements();
        assertThat(statements).hasSize(3);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + SCHEMA);
            assertThat(rows(s, statements.get(0))).as("join by event time").isEqualTo(EXPECTED);
            assertThat(s.executeUpdate(statements.get(1))).as("facts stamped with a surrogate key").isEqualTo(3);
            assertThat(rows(s, statements.get(2))).as("join by surrogate key").isEqualTo(EXPECTED);
        }
    }

    /** The file's statements without comments, split on the semicolons that end them. */
    static List<String> statements() throws IOException {
        String text;
        try (InputStream in = TemporalJoinTest.class.getResourceAsStream("/temporal-join-example.sql")) {
            assertThat(in).as("temporal-join-example.sql on the test classpath").isNotNull();
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String code = text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
        return Arrays.stream(code.split(";")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }

    private static List<List<Object>> rows(Statement s, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                long sk = rs.getLong(5);
                Long customerSk = rs.wasNull() ? null : sk;
                rows.add(Arrays.asList(rs.getInt(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class).toInstant(),
                        rs.getInt(4), customerSk, rs.getString(6)));
            }
        }
        return rows;
    }
}
