package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    void aColumnAddedWhileRunningThatTheConfigDeclaresSinceKeepsItsPlaceInTheHash() throws SQLException {
        EntitySpec config = fresh();
        EntitySpec evolved = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config, List.of(
                new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "t-0@1"),
                new EvolvedColumns.NewColumn("score", ColumnType.BIGINT, false, "t-0@2"))));
        // the config declares nickname in the middle of its tracked columns, and score among its type-1 ones first
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("score", ColumnType.BIGINT);
        cols.put("nickname", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        EntitySpec declared = EntitySpec.builder()
                .name(config.name())
                .table(config.table())
                .key(config.key())
                .tracked(List.of("nickname", "name"))
                .type1(List.of("score", "city"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();

        EntitySpec merged = EvolvedColumns.withCatalog(ds, declared);
        assertThat(merged).isEqualTo(evolved);
        assertThat(merged.configTracked()).isEqualTo(List.of("name"));
        assertThat(merged.evolvedTracked()).isEqualTo(List.of("nickname"));
        // so an event hashes as it did before the config named the column, NULL or not
        List<ColumnType> types = List.of(ColumnType.TEXT, ColumnType.TEXT);
        for (String nickname : java.util.Arrays.asList("Bo", null)) {
            List<Object> values = java.util.Arrays.asList("Bob", nickname);
            assertThat(io.dimstream.db.event.RecordHash.ofValues(types, values, merged.evolvedTracked()))
                    .isEqualTo(io.dimstream.db.event.RecordHash.ofValues(types, values, evolved.evolvedTracked()));
        }
    }

    @Test
    void wideningAConfigColumnAltersBothTablesKeepsTheViewAndRecordsIt() throws SQLException {
        EntitySpec config = typed();
        EntitySpec widened = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, config, List.of(
                new EvolvedColumns.Widening("visits", TypeWidening.ColumnDef.of(ColumnType.BIGINT), "crm.people-0@7"),
                new EvolvedColumns.Widening("name", TypeWidening.ColumnDef.of(new TypeModifier.Length(20)), "crm.people-1@3"))));

        assertThat(widened).isEqualTo(config.withColumnType("visits", TypeWidening.ColumnDef.of(ColumnType.BIGINT))
                .withColumnType("name", TypeWidening.ColumnDef.of(new TypeModifier.Length(20))));
        assertThat(catalogWithWidenings(config.name())).isEqualTo(List.of(
                List.of("name", "character varying(20)", "tracked", "crm.people-1@3", "config", "character varying(10)"),
                List.of("visits", "bigint", "type1", "crm.people-0@7", "config", "integer")));
        List<String> want = List.of("id text", "name character varying(20)", "visits bigint");
        assertThat(columnsOf(config.table())).containsSubsequence(want);
        assertThat(columnsOf(config.currentView())).containsSubsequence(want);
        // the event memory holds plain types
        assertThat(columnsOf(config.memoryTable())).containsSubsequence("id text", "name text", "visits bigint");
        // a restart with the config unchanged: the spec is the widened one, and the tables validate against it
        assertThat(EvolvedColumns.withCatalog(ds, config)).isEqualTo(widened);
        assertThat(EntityTables.ensure(ds, widened)).isEmpty();
        // the config declaring the wider type since says the same
        assertThat(EvolvedColumns.withCatalog(ds, widened)).isEqualTo(widened);
    }

    @Test
    void aWideningAsNarrowAsTheColumnChangesNothingAndAnUnsafeChangeAltersNothing() throws SQLException {
        EntitySpec config = typed();
        EntitySpec wide = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, config, List.of(
                new EvolvedColumns.Widening("name", TypeWidening.ColumnDef.of(new TypeModifier.Length(40)), "t-0@1"))));
        // another task, still on varchar(10), asks for varchar(20): varchar(40) takes it already
        EntitySpec again = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, config, List.of(
                new EvolvedColumns.Widening("name", TypeWidening.ColumnDef.of(new TypeModifier.Length(20)), "t-1@1"))));
        assertThat(again).isEqualTo(wide);
        assertThat(catalogWithWidenings(config.name())).isEqualTo(List.of(
                List.of("name", "character varying(40)", "tracked", "t-0@1", "config", "character varying(10)")));

        assertThatThrownBy(() -> Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, wide, List.of(
                new EvolvedColumns.Widening("visits", TypeWidening.ColumnDef.of(ColumnType.TEXT), "t-0@9")))))
                .isInstanceOf(EvolvedColumns.UnsafeTypeChange.class)
                .hasMessageStartingWith("entity " + config.name() + ": column visits is integer, and the change at t-0@9 says the source "
                        + "now types it text, which is no safe widening");
        assertThat(columnsOf(config.table())).contains("visits integer");
        assertThat(EvolvedColumns.withCatalog(ds, config)).isEqualTo(wide);

        // someone does what the message says, on the entity table only: the change goes on with it, the memory follows
        try (Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("DROP VIEW " + config.currentView());
            st.execute("ALTER TABLE " + config.table() + " ALTER COLUMN visits TYPE text USING visits::text");
        }
        EntitySpec byHand = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, wide, List.of(
                new EvolvedColumns.Widening("visits", TypeWidening.ColumnDef.of(ColumnType.TEXT), "t-0@9"))));
        assertThat(byHand).isEqualTo(wide.withColumnType("visits", TypeWidening.ColumnDef.of(ColumnType.TEXT)));
        assertThat(columnsOf(config.memoryTable())).contains("visits text");
        assertThat(columnsOf(config.currentView())).contains("visits text");
        assertThat(catalogWithWidenings(config.name())).isEqualTo(List.of(
                List.of("name", "character varying(40)", "tracked", "t-0@1", "config", "character varying(10)"),
                List.of("visits", "text", "type1", "t-0@9", "config", "integer")));
        // a restart with the config still saying integer: the config's word, which the table check then refuses
        assertThat(EvolvedColumns.withCatalog(ds, config).type("visits")).isEqualTo(ColumnType.INTEGER);
    }

    @Test
    void aWideningOfAColumnAUsersViewReadsIsRefusedNamingTheViewAndGoesOnOnceItIsGone() throws SQLException {
        EntitySpec config = typed();
        // a dbt view model on the entity table, one on its _current view (which the widening drops and
        // makes again), and one that does not read the column
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE VIEW " + config.table() + "_visits AS SELECT id, visits FROM " + config.table());
            st.execute("CREATE VIEW " + config.table() + "_now AS SELECT id, name FROM " + config.currentView());
            st.execute("CREATE VIEW " + config.table() + "_names AS SELECT id, name FROM " + config.table());
        }
        List<EvolvedColumns.Widening> wider = List.of(new EvolvedColumns.Widening("visits", TypeWidening.ColumnDef.of(ColumnType.BIGINT),
                "crm.people-0@7"));

        assertThatThrownBy(() -> Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, config, wider)))
                .isInstanceOf(EvolvedColumns.UnsafeTypeChange.class)
                .hasMessage("entity " + config.name() + ": the source sends values column visits refuses (first at crm.people-0@7), and "
                        + "widening [visits to bigint] is refused by PostgreSQL while views use the columns: " + config.table() + "_now, "
                        + config.table() + "_visits. "
                        + "The partition stops here; drop those views (it goes on by itself once they are gone) and create them again "
                        + "after the widening");
        assertThat(List.of(columnsOf(config.table()).contains("visits integer"), catalogWithWidenings(config.name()).isEmpty()))
                .isEqualTo(List.of(true, true));

        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP VIEW " + config.table() + "_visits, " + config.table() + "_now");
        }
        EntitySpec widened = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, config, wider));
        assertThat(widened).isEqualTo(config.withColumnType("visits", TypeWidening.ColumnDef.of(ColumnType.BIGINT)));
        assertThat(columnsOf(config.table())).contains("visits bigint");
    }

    @Test
    void anAddedColumnIsWidenedInItsOwnRow() throws SQLException {
        EntitySpec config = fresh();
        EntitySpec added = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("score", ColumnType.INTEGER, true, "t-0@1"))));
        EntitySpec widened = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, added,
                List.of(new EvolvedColumns.Widening("score", TypeWidening.ColumnDef.of(ColumnType.BIGINT), "t-0@5"))));

        assertThat(widened).isEqualTo(added.withColumnType("score", TypeWidening.ColumnDef.of(ColumnType.BIGINT)));
        assertThat(catalogWithWidenings(config.name())).isEqualTo(List.of(
                List.of("score", "bigint", "tracked", "t-0@1", "evolution", "integer")));
        assertThat(EvolvedColumns.withCatalog(ds, config)).isEqualTo(widened);
        assertThat(EntityTables.ensure(ds, widened)).isEmpty();
    }

    /** id text, name varchar(10) tracked, visits integer type-1. */
    @Test
    void onAPartitionedEntityAnAddedAndAWidenedColumnReachEveryPartition() throws SQLException {
        EntitySpec plain = typed();
        // typed() made plain tables; a partitioned entity of the same shape under another name
        String table = plain.table() + "_hp";
        EntitySpec config = plain.toBuilder().name(table).table(table).tablePartitions(2).build();
        EntityTables.ensure(ds, config);

        EntitySpec evolved = Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, EvolvedColumns.add(c, config, List.of(
                new EvolvedColumns.NewColumn("score", ColumnType.BIGINT, false, "crm.people-1@7"))), List.of(
                new EvolvedColumns.Widening("visits", TypeWidening.ColumnDef.of(ColumnType.BIGINT), "crm.people-0@8"))));

        for (String t : List.of(table, table + "_p0", table + "_p1")) {
            assertThat(columnsOf(t)).as(t).containsSubsequence("id text", "name character varying(10)", "visits bigint", "score bigint");
        }
        for (String t : List.of(table + "_events", table + "_events_p0", table + "_events_p1")) {
            assertThat(columnsOf(t)).as(t).containsSubsequence("id text", "name text", "visits bigint", "score bigint");
        }
        assertThat(EntityTables.ensure(ds, evolved)).isEmpty();
    }

    private EntitySpec typed() throws SQLException {
        String table = "widening_" + TABLES.incrementAndGet() + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("visits", ColumnType.INTEGER);
        EntitySpec spec = EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name"))
                .type1(List.of("visits"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .modifiers(Map.of("name", new TypeModifier.Length(10)))
                .build();
        EntityTables.ensure(ds, spec);
        return spec;
    }

    private List<List<String>> catalogWithWidenings(String entity) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT column_name, sql_type, role, "
                + "first_source, origin, widened_from FROM dimstream.entity_columns WHERE entity = ? ORDER BY column_name")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6)));
                }
            }
        }
        return out;
    }

    private EntitySpec fresh() throws SQLException {
        String table = "evolving_" + TABLES.incrementAndGet() + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        EntitySpec spec = EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name"))
                .type1(List.of("city"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
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
