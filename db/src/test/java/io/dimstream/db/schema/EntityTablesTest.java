package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.schema.EntityTables.SchemaMismatchException;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
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
        return EntitySpec.builder()
                .name("et_" + table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name"))
                .type1(List.of("visits"))
                .columns(cols)
                .latenessHorizon(Optional.of(Duration.ofDays(30)))
                .surrogateKeyIndex(surrogateKeyIndex)
                .build();
    }

    @Test
    void byDefaultTheCreatedTableCarriesTheInvariantIndexesOnly() throws SQLException {
        EntityTables.ensure(ds, EntitySpec.builder()
                .name("et_default")
                .table("et_default")
                .key(List.of("id"))
                .tracked(List.of("name"))
                .type1(List.of("visits"))
                .columns(spec("unused", false).columns())
                .latenessHorizon(Optional.empty())
                .build());
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
                .hasMessage("table et_edited does not match the entity config: "
                        + "column name is missing (expected text): ALTER TABLE \"et_edited\" ADD COLUMN \"name\" text; "
                        + "column visits has type integer, expected bigint (declare visits: integer under columns:, "
                        + "or DROP VIEW \"et_edited_current\"; ALTER TABLE \"et_edited\" ALTER COLUMN \"visits\" TYPE bigint)");
    }

    @Test
    void aColumnWhoseModifierDiffersFromTheDeclaredTypeIsRefusedSayingHowToDeclareIt() throws SQLException {
        EntitySpec spec = spec("et_typmod", false);
        EntityTables.ensure(ds, spec);
        exec("DROP VIEW et_typmod_current");
        exec("ALTER TABLE et_typmod ALTER COLUMN name TYPE varchar(5)");
        exec("ALTER TABLE et_typmod ALTER COLUMN visits TYPE numeric(10,2)");

        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_typmod does not match the entity config: "
                        + "column name has type character varying(5), expected text (declare name: varchar(5) under columns:, "
                        + "or DROP VIEW \"et_typmod_current\"; ALTER TABLE \"et_typmod\" ALTER COLUMN \"name\" TYPE text); "
                        + "column visits has type numeric(10,2), expected bigint (declare visits: \"numeric(10,2)\" under columns:, "
                        + "or DROP VIEW \"et_typmod_current\"; ALTER TABLE \"et_typmod\" ALTER COLUMN \"visits\" TYPE bigint)");

        // the statements of the message fix it
        exec("ALTER TABLE et_typmod ALTER COLUMN name TYPE text");
        exec("ALTER TABLE et_typmod ALTER COLUMN visits TYPE bigint");
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();
    }

    @Test
    void timestampTimeJsonbAndByteaColumnsAreCreatedAndValidatedByTheirFormatTypeNames() throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("born", ColumnType.TIMESTAMP);
        cols.put("at", ColumnType.TIME);
        cols.put("doc", ColumnType.JSONB);
        cols.put("blob", ColumnType.BYTEA);
        EntitySpec spec = EntitySpec.builder()
                .name("et_newtypes")
                .table("et_newtypes")
                .key(List.of("id"))
                .tracked(List.of("born", "at", "doc"))
                .type1(List.of("blob"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, spec);
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();

        exec("DROP VIEW et_newtypes_current");
        exec("ALTER TABLE et_newtypes ALTER COLUMN born TYPE timestamptz");
        exec("ALTER TABLE et_newtypes ALTER COLUMN at TYPE time(3)");
        exec("ALTER TABLE et_newtypes ALTER COLUMN doc TYPE json");
        exec("ALTER TABLE et_newtypes ALTER COLUMN blob TYPE text USING blob::text");
        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_newtypes does not match the entity config: "
                        + "column born has type timestamp with time zone, expected timestamp without time zone (declare born: timestamptz "
                        + "under columns:, or DROP VIEW \"et_newtypes_current\"; ALTER TABLE \"et_newtypes\" ALTER COLUMN \"born\" TYPE "
                        + "timestamp without time zone); "
                        + "column at has type time(3) without time zone, expected time without time zone (DROP VIEW \"et_newtypes_current\"; "
                        + "ALTER TABLE \"et_newtypes\" ALTER COLUMN \"at\" TYPE time without time zone); "
                        + "column doc has type json, expected jsonb (DROP VIEW \"et_newtypes_current\"; ALTER TABLE \"et_newtypes\" "
                        + "ALTER COLUMN \"doc\" TYPE jsonb); "
                        + "column blob has type text, expected bytea (declare blob: text under columns:, or DROP VIEW "
                        + "\"et_newtypes_current\"; ALTER TABLE \"et_newtypes\" ALTER COLUMN \"blob\" TYPE bytea)");

        exec("ALTER TABLE et_newtypes ALTER COLUMN born TYPE timestamp");
        exec("ALTER TABLE et_newtypes ALTER COLUMN at TYPE time");
        exec("ALTER TABLE et_newtypes ALTER COLUMN doc TYPE jsonb");
        exec("ALTER TABLE et_newtypes ALTER COLUMN blob TYPE bytea USING blob::bytea");
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();
    }

    @Test
    void aTableWithTheDeclaredModifiersIsAcceptedAndAnUnboundedVarcharIsText() throws SQLException {
        EntitySpec declared = withModifiers(spec("et_typmod_ok", false), Map.of("name", new TypeModifier.Length(5)));
        EntityTables.ensure(ds, declared);
        assertThat(EntityTables.ensure(ds, declared)).isEmpty();

        EntitySpec plain = spec("et_varchar", false);
        EntityTables.ensure(ds, plain);
        exec("DROP VIEW et_varchar_current");
        exec("ALTER TABLE et_varchar ALTER COLUMN name TYPE varchar");
        assertThat(EntityTables.ensure(ds, plain)).isEmpty();
    }

    @Test
    void notNullColumnsThatDimstreamWritesNullIntoOrDoesNotFillAreRefused() throws SQLException {
        EntitySpec spec = spec("et_notnull", false);
        EntityTables.ensure(ds, spec);
        exec("ALTER TABLE et_notnull ALTER COLUMN name SET NOT NULL");
        exec("ALTER TABLE et_notnull ALTER COLUMN valid_to SET NOT NULL");
        exec("ALTER TABLE et_notnull ADD COLUMN note text NOT NULL");
        exec("ALTER TABLE et_notnull ADD COLUMN region text NOT NULL DEFAULT 'eu'");               // fills itself
        exec("ALTER TABLE et_notnull ADD COLUMN row_id bigint GENERATED ALWAYS AS IDENTITY");      // fills itself
        exec("ALTER TABLE et_notnull ALTER COLUMN loaded_at DROP DEFAULT");

        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_notnull does not match the entity config: "
                        + "column name is NOT NULL, but dimstream writes NULL into it: ALTER TABLE \"et_notnull\" ALTER COLUMN \"name\" DROP NOT NULL; "
                        + "column valid_to is NOT NULL, but dimstream writes NULL into it: ALTER TABLE \"et_notnull\" ALTER COLUMN \"valid_to\" DROP NOT NULL; "
                        + "column loaded_at is NOT NULL without a default, and dimstream does not fill it: "
                        + "ALTER TABLE \"et_notnull\" ALTER COLUMN \"loaded_at\" SET DEFAULT now(); "
                        + "column note is NOT NULL without a default, and dimstream does not fill it: "
                        + "ALTER TABLE \"et_notnull\" ALTER COLUMN \"note\" DROP NOT NULL, or give it a DEFAULT");
    }

    @Test
    void anIsCurrentColumnThatIsNotGeneratedIsRefused() throws SQLException {
        EntitySpec spec = spec("et_current", false);
        EntityTables.ensure(ds, spec);
        exec("ALTER TABLE et_current DROP COLUMN is_current CASCADE");
        exec("ALTER TABLE et_current ADD COLUMN is_current boolean");

        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_current does not match the entity config: column is_current is not generated, so it would stay "
                        + "NULL (dimstream never writes it): ALTER TABLE \"et_current\" DROP COLUMN \"is_current\" CASCADE; "
                        + "ALTER TABLE \"et_current\" ADD COLUMN \"is_current\" boolean GENERATED ALWAYS AS (\"valid_to\" IS NULL "
                        + "AND NOT \"is_deleted\") STORED");
    }

    @Test
    void missingInvariantsAreRefusedWithTheStatementsThatRestoreThem() throws SQLException {
        EntitySpec spec = spec("et_invariants", false);
        EntityTables.ensure(ds, spec);
        exec("ALTER TABLE et_invariants DROP CONSTRAINT et_invariants_pkey");
        exec("DROP INDEX et_invariants_one_open");
        exec("CREATE UNIQUE INDEX et_invariants_deleted_open ON et_invariants (id) WHERE is_deleted"); // not the open-version one
        exec("ALTER TABLE et_invariants DROP CONSTRAINT et_invariants_valid_range");
        exec("ALTER TABLE et_invariants_events DROP CONSTRAINT et_invariants_events_pkey");

        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_invariants does not match the entity config: "
                        + "no unique index on (id, valid_from): ALTER TABLE \"et_invariants\" ADD PRIMARY KEY (\"id\", \"valid_from\"); "
                        + "no unique index allowing one open version per key: CREATE UNIQUE INDEX \"et_invariants_one_open\" ON "
                        + "\"et_invariants\" (\"id\") WHERE \"valid_to\" IS NULL; "
                        + "no check that valid_to is after valid_from: ALTER TABLE \"et_invariants\" ADD CONSTRAINT "
                        + "\"et_invariants_valid_range\" CHECK (\"valid_to\" IS NULL OR \"valid_to\" > \"valid_from\")");

        exec("ALTER TABLE et_invariants ADD PRIMARY KEY (id, valid_from)");
        exec("CREATE UNIQUE INDEX et_invariants_one_open ON et_invariants (id) WHERE valid_to IS NULL");
        exec("ALTER TABLE et_invariants ADD CONSTRAINT et_invariants_valid_range CHECK (valid_to IS NULL OR valid_to > valid_from)");
        assertThatThrownBy(() -> EntityTables.ensure(ds, spec))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessage("table et_invariants_events does not match the entity config: no unique index on (id, event_time): "
                        + "ALTER TABLE \"et_invariants_events\" ADD PRIMARY KEY (\"id\", \"event_time\")");
        exec("ALTER TABLE et_invariants_events ADD PRIMARY KEY (id, event_time)");
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();
    }

    @Test
    void invariantsAreRecognisedByWhatTheyAreNotByTheirNames() throws SQLException {
        EntitySpec spec = spec("et_renamed", false);
        EntityTables.ensure(ds, spec);
        exec("ALTER INDEX et_renamed_one_open RENAME TO my_open_rows");
        exec("ALTER TABLE et_renamed RENAME CONSTRAINT et_renamed_pkey TO my_pk");
        exec("ALTER TABLE et_renamed RENAME CONSTRAINT et_renamed_valid_range TO my_range");

        assertThat(EntityTables.ensure(ds, spec)).isEmpty();
    }

    @Test
    void constraintsAndTriggersDimstreamCannotKnowAreWarnedAboutNotRefused() throws SQLException {
        EntitySpec spec = spec("et_unknown", false);
        EntityTables.ensure(ds, spec);
        exec("CREATE TABLE et_unknown_ref (id text PRIMARY KEY)");
        exec("ALTER TABLE et_unknown ADD CONSTRAINT et_unknown_visits CHECK (visits >= 0)");
        exec("ALTER TABLE et_unknown ADD CONSTRAINT et_unknown_ref_fk FOREIGN KEY (id) REFERENCES et_unknown_ref (id)");
        exec("CREATE FUNCTION et_unknown_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$");
        exec("CREATE TRIGGER et_unknown_audit BEFORE INSERT ON et_unknown FOR EACH ROW EXECUTE FUNCTION et_unknown_touch()");

        assertThat(EntityTables.ensure(ds, spec)).isEqualTo(List.of(
                "table et_unknown has foreign key et_unknown_ref_fk (FOREIGN KEY (id) REFERENCES et_unknown_ref(id)), which dimstream "
                        + "does not know: a version or event it refuses stops the sink",
                "table et_unknown has CHECK constraint et_unknown_visits (CHECK ((visits >= 0))), which dimstream does not know: "
                        + "a version or event it refuses stops the sink",
                "table et_unknown has trigger et_unknown_audit, which dimstream does not know: if it refuses or changes a row, "
                        + "the table no longer follows the events"));
    }

    @Test
    void aColumnNamedAsOfDoesNotShadowTheAsOfFunctionsParameter() throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("as_of", ColumnType.TIMESTAMPTZ);
        EntitySpec spec = EntitySpec.builder()
                .name("et_asof")
                .table("et_asof")
                .key(List.of("id"))
                .tracked(List.of("as_of"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, spec);
        new Scd2Writer(ds).apply(spec, List.of(
                Event.upsert(Instant.parse("2025-01-01T00:00:00Z"), Map.of("id", "A", "as_of", "2030-01-01T00:00:00Z"), 1, null),
                Event.upsert(Instant.parse("2025-02-01T00:00:00Z"), Map.of("id", "A", "as_of", "2031-01-01T00:00:00Z"), 2, null)));

        List<String> asOf = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, valid_from FROM et_asof_as_of('2025-01-15T00:00:00Z') ORDER BY valid_from")) {
            while (rs.next()) {
                asOf.add(rs.getString(1) + " " + rs.getObject(2, java.time.OffsetDateTime.class).toInstant());
            }
        }
        assertThat(asOf).isEqualTo(List.of("A 2025-01-01T00:00:00Z"));
    }

    @Test
    void withTablePartitionsTheTableAndItsMemoryAreHashPartitionedByTheKeyAndValidatedWithoutWarnings() throws SQLException {
        EntitySpec spec = spec("et_part", false).toBuilder().tablePartitions(3).build();
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();

        for (String table : List.of("et_part", "et_part_events")) {
            assertThat(query("SELECT pg_get_partkeydef(?::regclass)", table)).isEqualTo(List.of("HASH (id)"));
            assertThat(query("SELECT c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
                    + "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass ORDER BY c.relname", table))
                    .isEqualTo(List.of(
                            table + "_p0 FOR VALUES WITH (modulus 3, remainder 0)",
                            table + "_p1 FOR VALUES WITH (modulus 3, remainder 1)",
                            table + "_p2 FOR VALUES WITH (modulus 3, remainder 2)"));
        }
        // the invariant indexes on the parent (created on every partition by PostgreSQL)
        assertThat(indexes("et_part")).isEqualTo(List.of(
                "CREATE UNIQUE INDEX et_part_one_open ON ONLY public.et_part USING btree (id) WHERE (valid_to IS NULL)",
                "CREATE UNIQUE INDEX et_part_pkey ON ONLY public.et_part USING btree (id, valid_from)"));
        assertThat(indexes("et_part_p1")).isEqualTo(List.of(
                "CREATE UNIQUE INDEX et_part_p1_id_idx ON public.et_part_p1 USING btree (id) WHERE (valid_to IS NULL)",
                "CREATE UNIQUE INDEX et_part_p1_pkey ON public.et_part_p1 USING btree (id, valid_from)"));
        // validated again at the next start: no problem, no warning
        assertThat(EntityTables.ensure(ds, spec)).isEmpty();

        // the writer writes through the parent; each key's versions sit in one partition
        Instant t = Instant.parse("2025-01-01T00:00:00Z");
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            events.add(Event.upsert(t, Map.of("id", "k" + i, "name", "a", "visits", 1L), i, null));
            events.add(Event.upsert(t.plusSeconds(60), Map.of("id", "k" + i, "name", "b", "visits", 2L), 100 + i, null));
        }
        new Scd2Writer(ds).apply(spec, events);
        assertThat(query("SELECT count(*)::text FROM et_part WHERE valid_to IS NULL")).isEqualTo(List.of("12"));
        assertThat(query("SELECT count(DISTINCT tableoid)::text FROM et_part")).isEqualTo(List.of("3"));
        assertThat(query("SELECT id FROM et_part GROUP BY id HAVING count(DISTINCT tableoid) > 1")).isEqualTo(List.of());
        assertThat(query("SELECT id || ' ' || name || ' ' || coalesce((valid_to AT TIME ZONE 'UTC')::text, 'open') FROM et_part WHERE id IN ('k0', 'k11') "
                + "ORDER BY id, valid_from")).isEqualTo(List.of(
                        "k0 a 2025-01-01 00:01:00", "k0 b open", "k11 a 2025-01-01 00:01:00", "k11 b open"));
    }

    @Test
    void anExistingTablePartitionedOtherwiseThanTheConfigSaysIsWrittenAsItIsWithAWarning() throws SQLException {
        EntityTables.ensure(ds, spec("et_plainpart", false));
        assertThat(EntityTables.ensure(ds, spec("et_plainpart", false).toBuilder().tablePartitions(4).build())).isEqualTo(List.of(
                "table et_plainpart is not partitioned, but the config says table-partitions: 4: it applies when dimstream creates "
                        + "the table, and dimstream writes to this one as it is (a replay with --target shadow rebuilds it as the config says)",
                "table et_plainpart_events is not partitioned, but the config says table-partitions: 4: it applies when dimstream "
                        + "creates the table, and dimstream writes to this one as it is (a replay with --target shadow rebuilds it as the "
                        + "config says)"));

        EntityTables.ensure(ds, spec("et_partplain", false).toBuilder().tablePartitions(2).build());
        assertThat(EntityTables.ensure(ds, spec("et_partplain", false))).isEqualTo(List.of(
                "table et_partplain is partitioned by hash of the key into 2 partitions, but the config says no table-partitions: it "
                        + "applies when dimstream creates the table, and dimstream writes to this one as it is (a replay with --target "
                        + "shadow rebuilds it as the config says)",
                "table et_partplain_events is partitioned by hash of the key into 2 partitions, but the config says no "
                        + "table-partitions: it applies when dimstream creates the table, and dimstream writes to this one as it is (a "
                        + "replay with --target shadow rebuilds it as the config says)"));
    }

    private List<String> query(String sql, String... params) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                p.setString(i + 1, params[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static EntitySpec withModifiers(EntitySpec e, Map<String, TypeModifier> modifiers) {
        return e.toBuilder().modifiers(modifiers).build();
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
