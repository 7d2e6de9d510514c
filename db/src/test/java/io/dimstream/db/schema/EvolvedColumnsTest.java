package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The catalog of columns added while running: what it records, what the tables get, and how a spec is merged with it. */
class EvolvedColumnsTest {

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final DataSource ds = TestPostgres.dataSource();

    @Test
    void addingAColumnAltersBothTablesAndTheViewAndRecordsIt() throws SQLException {
        EntitySpec config = fresh();
        EntitySpec evolved = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config, List.of(
                new EvolvedColumns.NewColumn("score", ColumnType.BIGINT, false, "crm.people-1@7"),
                new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "crm.people-0@42"))));

        // one transaction, name order: the catalog's order, hence the hash's
        assertThat(evolved.tracked()).isEqualTo(List.of("name", "nickname"));
        assertThat(evolved.type1()).isEqualTo(List.of("city", "score"));
        assertThat(List.copyOf(evolved.evolved())).isEqualTo(List.of("nickname", "score"));
        assertThat(catalog(config.name())).isEqualTo(List.of(
                List.of(config.name(), "nickname", "text", "tracked", "crm.people-0@42"),
                List.of(config.name(), "score", "bigint", "type1", "crm.people-1@7")));
        assertThat(columnsOf(config.table())).endsWith("nickname text", "score bigint");
        assertThat(columnsOf(config.memoryTable())).endsWith("nickname text", "score bigint");
        assertThat(columnsOf(config.currentView())).endsWith("nickname text", "score bigint");
        // a restart: the config's spec merged with the catalog is the spec the sink went on with
        assertThat(EvolvedColumns.withCatalog(ds, config)).isEqualTo(evolved);
        // and the tables validate against it
        assertThat(EntityTables.ensure(ds, evolved)).isEmpty();
    }

    @Test
    void theFirstTypeWinsAndARolledBackAddLeavesNothing() throws SQLException {
        EntitySpec config = fresh();
        EntitySpec first = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "t-0@1"))));
        // another instance still on the config's spec infers bigint for the same field
        EntitySpec second = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("nickname", ColumnType.BIGINT, true, "t-1@5"))));
        assertThat(second).isEqualTo(first);
        assertThat(catalog(config.name())).isEqualTo(List.of(List.of(config.name(), "nickname", "text", "tracked", "t-0@1")));

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            EvolvedColumns.add(c, first, List.of(new EvolvedColumns.NewColumn("gone", ColumnType.BOOLEAN, true, "t-0@9")));
            c.rollback();
        }
        assertThat(catalog(config.name())).hasSize(1);
        assertThat(columnsOf(config.table())).doesNotContain("gone boolean");
        assertThat(EvolvedColumns.withCatalog(ds, config)).isEqualTo(first);
    }

    @Test
    void aColumnTheConfigNowDeclaresStaysTheConfigs() throws SQLException {
        EntitySpec config = fresh();
        Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "t-0@1"))));
        Map<String, ColumnType> cols = new LinkedHashMap<>(config.columns());
        cols.put("nickname", ColumnType.TEXT);
        EntitySpec declared = new EntitySpec(config.name(), config.table(), config.key(), List.of("name", "nickname"),
                config.type1(), cols, Optional.empty(), SystemColumns.DEFAULTS);

        assertThat(EvolvedColumns.withCatalog(ds, declared)).isEqualTo(declared);
    }

    private EntitySpec fresh() throws SQLException {
        String table = "evolving_" + TABLES.incrementAndGet() + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        EntitySpec spec = new EntitySpec(table, table, List.of("id"), List.of("name"), List.of("city"), cols, Optional.empty(),
                SystemColumns.DEFAULTS);
        EntityTables.ensure(ds, spec);
        return spec;
    }

    private List<List<String>> catalog(String entity) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT entity, column_name, sql_type, role, "
                + "first_source FROM dimstream.entity_columns WHERE entity = ? ORDER BY added_at, column_name")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)));
                }
            }
        }
        return out;
    }

    private List<String> columnsOf(String relation) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT attname || ' ' || "
                + "format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0 "
                + "AND NOT attisdropped ORDER BY attnum")) {
            p.setString(1, relation);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
