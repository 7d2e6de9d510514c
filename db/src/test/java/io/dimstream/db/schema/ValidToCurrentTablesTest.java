package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.schema.EntityTables.SchemaMismatchException;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The objects of an entity table made with {@code valid-to-current: infinity}, and the refusal, at
 * start, of a table made with the other value (dimstream does not convert one: {@link OpenEnd}).
 */
class ValidToCurrentTablesTest {

    private final DataSource ds = TestPostgres.dataSource();

    private static EntitySpec spec(String table, ValidToCurrent open) {
        return EntityTablesTest.spec(table, false).toBuilder().validToCurrent(open).build();
    }

    @Test
    void everyObjectOfAnInfinityTableEndsOpenVersionsAtInfinity() throws SQLException {
        EntityTables.ensure(ds, spec("vt_inf", ValidToCurrent.INFINITY));
        assertThat(catalog("vt_inf")).isEqualTo(List.of(
                "valid_to NOT NULL: t",
                "is_current: ((valid_to = 'infinity'::timestamp with time zone) AND (NOT is_deleted))",
                "CREATE UNIQUE INDEX vt_inf_one_open ON public.vt_inf USING btree (id) WHERE (valid_to = 'infinity'::timestamp with time zone)",
                "CREATE UNIQUE INDEX vt_inf_pkey ON public.vt_inf USING btree (id, valid_from)",
                "vt_inf_valid_range: CHECK ((valid_to > valid_from))",
                "vt_inf_as_of: SELECT * FROM \"vt_inf\" WHERE \"valid_from\" <= $1 AND \"valid_to\" > $1 AND NOT \"is_deleted\""));
        assertThat(EntityTables.ensure(ds, spec("vt_inf", ValidToCurrent.INFINITY))).as("validated again, nothing to warn").isEmpty();
    }

    @Test
    void theDefaultTableEndsOpenVersionsAtNull() throws SQLException {
        EntityTables.ensure(ds, spec("vt_null", ValidToCurrent.NULL));
        assertThat(catalog("vt_null")).isEqualTo(List.of(
                "valid_to NOT NULL: f",
                "is_current: ((valid_to IS NULL) AND (NOT is_deleted))",
                "CREATE UNIQUE INDEX vt_null_one_open ON public.vt_null USING btree (id) WHERE (valid_to IS NULL)",
                "CREATE UNIQUE INDEX vt_null_pkey ON public.vt_null USING btree (id, valid_from)",
                "vt_null_valid_range: CHECK (((valid_to IS NULL) OR (valid_to > valid_from)))",
                "vt_null_as_of: SELECT * FROM \"vt_null\" WHERE \"valid_from\" <= $1 AND (\"valid_to\" IS NULL OR \"valid_to\" > $1) AND NOT \"is_deleted\""));
    }

    @Test
    void aTableMadeWithTheOtherValueIsRefusedSayingHowToRebuildIt() throws SQLException {
        EntityTables.ensure(ds, spec("vt_was_null", ValidToCurrent.NULL));
        assertThatThrownBy(() -> EntityTables.ensure(ds, spec("vt_was_null", ValidToCurrent.INFINITY)))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table vt_was_null ends its open versions at NULL (it was created with valid-to-current: null), but the "
                        + "config says valid-to-current: infinity. dimstream does not convert an existing table (its generated column "
                        + "is_current would have to be dropped, and with it every view on the table). Either keep valid-to-current: "
                        + "null for entity et_vt_was_null, or rebuild: give it a new table: with valid-to-current: infinity, fill that "
                        + "from the topic (dimstream replay --config FILE --entity et_vt_was_null --from earliest --wait) or from files (dimstream "
                        + "load), then drop vt_was_null (docs/configuration.md, \"Open versions: NULL or infinity\")");

        EntityTables.ensure(ds, spec("vt_was_inf", ValidToCurrent.INFINITY));
        assertThatThrownBy(() -> EntityTables.ensure(ds, spec("vt_was_inf", ValidToCurrent.NULL)))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageStartingWith("table vt_was_inf ends its open versions at 'infinity' (it was created with valid-to-current: "
                        + "infinity), but the config says valid-to-current: null. ");
        assertThat(catalog("vt_was_null")).as("the refused table is left as it was").isEqualTo(List.of(
                "valid_to NOT NULL: f",
                "is_current: ((valid_to IS NULL) AND (NOT is_deleted))",
                "CREATE UNIQUE INDEX vt_was_null_one_open ON public.vt_was_null USING btree (id) WHERE (valid_to IS NULL)",
                "CREATE UNIQUE INDEX vt_was_null_pkey ON public.vt_was_null USING btree (id, valid_from)",
                "vt_was_null_valid_range: CHECK (((valid_to IS NULL) OR (valid_to > valid_from)))",
                "vt_was_null_as_of: SELECT * FROM \"vt_was_null\" WHERE \"valid_from\" <= $1 AND (\"valid_to\" IS NULL OR "
                        + "\"valid_to\" > $1) AND NOT \"is_deleted\""));
    }

    /** valid_to's NOT NULL, is_current's expression, the indexes, the check constraints and the as-of function's body. */
    private List<String> catalog(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            out.add("valid_to NOT NULL: " + one(c, "SELECT attnotnull FROM pg_attribute WHERE attrelid = ?::regclass AND attname = 'valid_to'", table));
            out.add("is_current: " + one(c, "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid "
                    + "AND a.attnum = d.adnum WHERE d.adrelid = ?::regclass AND a.attname = 'is_current'", table));
            out.addAll(all(c, "SELECT indexdef FROM pg_indexes WHERE tablename = ? ORDER BY indexname", table));
            out.addAll(all(c, "SELECT conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = ?::regclass "
                    + "AND contype = 'c' ORDER BY conname", table));
            out.add(table + "_as_of: " + one(c, "SELECT trim(prosrc) FROM pg_proc WHERE proname = ? || '_as_of' AND pronargs = 1", table));
        }
        return out;
    }

    private static String one(Connection c, String sql, String table) throws SQLException {
        List<String> rows = all(c, sql, table);
        assertThat(rows).as(sql).hasSize(1);
        return rows.get(0);
    }

    private static List<String> all(Connection c, String sql, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
