package io.dimstream.db.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.schema.ColumnOrigins.AddedWhileRunning;
import io.dimstream.db.schema.ColumnOrigins.Column;
import io.dimstream.db.schema.ColumnOrigins.Config;
import io.dimstream.db.schema.ColumnOrigins.Role;
import io.dimstream.db.schema.ColumnOrigins.Widened;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An entity's columns with role and origin: the merged spec's order, modifiers in the type, the catalog's instant and source. */
class ColumnOriginsTest {

    private static final Instant T1 = Instant.parse("2025-03-01T10:00:00.123456Z");
    private static final Instant T2 = Instant.parse("2025-03-02T11:00:00Z");

    private static EntitySpec config() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("balance", ColumnType.NUMERIC);
        cols.put("city", ColumnType.TEXT);
        SystemColumns renamed = new SystemColumns("sk", "valid_from", "valid_to", "is_current", "is_deleted", "record_hash",
                "source_topic", "source_partition", "source_offset", "loaded_at");
        return EntitySpec.builder()
                .name("people")
                .table("people")
                .key(List.of("id"))
                .tracked(List.of("name", "balance"))
                .type1(List.of("city"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .system(renamed)
                .modifiers(Map.of("name", new TypeModifier.Length(40), "balance", new TypeModifier.Precision(12, 2)))
                .build();
    }

    private static final List<EvolvedColumns.Column> CATALOG = List.of(
            new EvolvedColumns.Column("people", "vip", ColumnType.BOOLEAN, false, T1, "crm.people-1@7"),
            new EvolvedColumns.Column("people", "nickname", ColumnType.TEXT, true, T2, null));

    @Test
    void configColumnsThenAddedOnesInTheMergedOrderThenTheSystemColumns() {
        assertThat(ColumnOrigins.of(config(), CATALOG)).isEqualTo(List.of(
                new Column("id", "text", Role.KEY, new Config()),
                new Column("name", "character varying(40)", Role.TRACKED, new Config()),
                new Column("balance", "numeric(12,2)", Role.TRACKED, new Config()),
                new Column("nickname", "text", Role.TRACKED, new AddedWhileRunning(T2, null)),
                new Column("city", "text", Role.TYPE1, new Config()),
                new Column("vip", "boolean", Role.TYPE1, new AddedWhileRunning(T1, "crm.people-1@7")),
                new Column("sk", "bigint", Role.SYSTEM, new Config()),
                new Column("valid_from", "timestamp with time zone", Role.SYSTEM, new Config()),
                new Column("valid_to", "timestamp with time zone", Role.SYSTEM, new Config()),
                new Column("is_current", "boolean", Role.SYSTEM, new Config()),
                new Column("is_deleted", "boolean", Role.SYSTEM, new Config()),
                new Column("record_hash", "bytea", Role.SYSTEM, new Config()),
                new Column("source_topic", "text", Role.SYSTEM, new Config()),
                new Column("source_partition", "integer", Role.SYSTEM, new Config()),
                new Column("source_offset", "bigint", Role.SYSTEM, new Config()),
                new Column("loaded_at", "timestamp with time zone", Role.SYSTEM, new Config()),
                new Column("event_seq", "bigint", Role.SYSTEM, new Config()),
                new Column("known_from", "timestamp with time zone", Role.SYSTEM, new Config()),
                new Column("end_known_from", "timestamp with time zone", Role.SYSTEM, new Config())));
        assertThat(new AddedWhileRunning(T1, "crm.people-1@7").describe())
                .isEqualTo("added while running at 2025-03-01T10:00:00.123456Z from crm.people-1@7");
        assertThat(new AddedWhileRunning(T2, null).describe()).isEqualTo("added while running at 2025-03-02T11:00:00Z");
    }

    @Test
    void aWidenedColumnHasTheWidenedTypeAndSaysFromWhatAndWhenUnlessTheConfigDeclaresAnotherTypeSince() {
        Instant t3 = Instant.parse("2025-03-03T12:00:00Z");
        List<EvolvedColumns.Column> catalog = new java.util.ArrayList<>(CATALOG);
        catalog.add(new EvolvedColumns.Column("people", "name", TypeWidening.ColumnDef.of(new TypeModifier.Length(80)), "tracked", t3,
                "crm.people-0@50", EvolvedColumns.Origin.CONFIG, Optional.of("character varying(40)"), Optional.of(t3)));

        Column name = new Column("name", "character varying(80)", Role.TRACKED, new Config(),
                Optional.of(new Widened("character varying(40)", t3)));
        assertThat(ColumnOrigins.of(config(), catalog).subList(0, 4)).isEqualTo(List.of(
                new Column("id", "text", Role.KEY, new Config()),
                name,
                new Column("balance", "numeric(12,2)", Role.TRACKED, new Config()),
                new Column("nickname", "text", Role.TRACKED, new AddedWhileRunning(T2, null))));
        assertThat(name.describe()).isEqualTo("config; type widened from character varying(40) at 2025-03-03T12:00:00Z");
        assertThat(List.of(name.fromCatalog(), new Column("id", "text", Role.KEY, new Config()).fromCatalog())).isEqualTo(List.of(true, false));

        // the table changed by hand to varchar(100) and the config says so: the config's type, no widening shown
        EntitySpec c = config();
        EntitySpec byHand = EntitySpec.builder()
                .name(c.name())
                .table(c.table())
                .key(c.key())
                .tracked(c.tracked())
                .type1(c.type1())
                .columns(c.columns())
                .latenessHorizon(c.latenessHorizon())
                .system(c.system())
                .modifiers(Map.of("name", new TypeModifier.Length(100), "balance", new TypeModifier.Precision(12, 2)))
                .build();
        assertThat(ColumnOrigins.of(byHand, catalog).get(1)).isEqualTo(new Column("name", "character varying(100)", Role.TRACKED,
                new Config()));
    }

    @Test
    void anAlreadyMergedSpecGivesTheSameRowsAndAColumnTheConfigNowDeclaresStaysAddedWhileRunning() {
        EntitySpec merged = EvolvedColumns.merge(config(), CATALOG);
        assertThat(ColumnOrigins.of(merged, CATALOG)).isEqualTo(ColumnOrigins.of(config(), CATALOG));

        // the config declares the catalog's vip itself now: its place (in the hash too) and its origin stay the catalog's
        EntitySpec declared = config().withEvolvedColumn("vip", ColumnType.BOOLEAN, false);
        EntitySpec asConfig = EntitySpec.builder()
                .name(declared.name())
                .table(declared.table())
                .key(declared.key())
                .tracked(declared.tracked())
                .type1(declared.type1())
                .columns(declared.columns())
                .latenessHorizon(declared.latenessHorizon())
                .system(declared.system())
                .modifiers(declared.modifiers())
                .build();
        assertThat(ColumnOrigins.of(asConfig, CATALOG).subList(3, 6)).isEqualTo(List.of(
                new Column("nickname", "text", Role.TRACKED, new AddedWhileRunning(T2, null)),
                new Column("city", "text", Role.TYPE1, new Config()),
                new Column("vip", "boolean", Role.TYPE1, new AddedWhileRunning(T1, "crm.people-1@7"))));
    }
}
