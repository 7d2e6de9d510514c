package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.schema.EntityTables.SchemaMismatchException;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The entity table as {@link EntityTables} creates it, and its refusal of a table that differs from the config. */
class EntityTablesTest {

    private final DataSource ds = TestPostgres.dataSource();

    static EntitySpec spec(String table, boolean surrogateKeyIndex) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("visits", ColumnType.BIGINT);
        return new EntitySpec("et_" + table, table, List.of("id"), List.of("name"), List.of("visits"), cols,
                Optional.of(Duration.ofDays(30)), SystemColumns.DEFAULTS, surrogateKeyIndex);
    }

    @Test
    void byDefaultTheCreatedTableCarriesTheInvariantIndexesOnly() throws SQLException {
        EntityTables.ensure(ds, new EntitySpec("et_default", "et_default", List.of("id"), List.of("name"), List.of("visits"),
                spec("unused", false).columns(), Optional.empty(), SystemColumns.DEFAULTS));
        assertThat(indexes("et_default")).isEqualTo(dimstreamIndexes("et_default", false));
    }

    @Test
    void withTheSurrogateKeyIndexItIsCreatedUnique() throws SQLException {
        EntityTables.ensure(ds, spec("et_sk", true));
        assertThat(indexes("et_sk")).isEqualTo(dimstreamIndexes("et_sk", true));
    }

    @Test
    void aReplaysShadowTableFollowsTheLiveEntitysSetting() throws SQLException {
        EntitySpec live = spec("et_live", true);
        EntityTables.ensure(ds, live);
        ShadowTables.create(ds, ShadowTables.shadowSpec(live, 9));
        assertThat(indexes("et_live_shadow_9")).isEqualTo(dimstreamIndexes("et_live_shadow_9", true));
    }

    @Test
    void anExistingTableKeepsItsIndexesWhateverTheSetting() throws SQLException {
        EntityTables.ensure(ds, spec("et_kept", true));
        EntityTables.ensure(ds, spec("et_kept", false));
        assertThat(indexes("et_kept")).isEqualTo(dimstreamIndexes("et_kept", true));
    }

    @Test
    void anExistingTableWithAMissingOrMistypedColumnIsRefusedNamingTableAndColumns() throws SQLException {
        EntityTables.ensure(ds, spec("et_edited", true));
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE et_edited DROP COLUMN name CASCADE"); // and the _current view that reads it
            s.execute("ALTER TABLE et_edited ALTER COLUMN visits TYPE integer");
        }
        assertThatThrownBy(() -> EntityTables.ensure(ds, spec("et_edited", true)))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_edited does not match the entity config: column name is missing (expected text); "
                        + "column visits has type integer, expected bigint");
    }

    /** The definitions of the indexes dimstream creates on {@code table}, in name order as {@link #indexes} lists them. */
    private static List<String> dimstreamIndexes(String table, boolean surrogateKeyIndex) {
        List<String> defs = new ArrayList<>(List.of(
                "CREATE UNIQUE INDEX " + table + "_one_open ON public." + table + " USING btree (id) WHERE (valid_to IS NULL)",
                "CREATE UNIQUE INDEX " + table + "_pkey ON public." + table + " USING btree (id, valid_from)"));
        if (surrogateKeyIndex) {
            defs.add("CREATE UNIQUE INDEX " + table + "_surrogate_key ON public." + table + " USING btree (surrogate_key)");
        }
        return defs;
    }

    private List<String> indexes(String table) throws SQLException {
        List<String> defs = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT indexdef FROM pg_indexes WHERE tablename = ? ORDER BY indexname")) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    defs.add(rs.getString(1));
                }
            }
        }
        return defs;
    }
}
