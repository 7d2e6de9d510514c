package io.dimstream.config;

import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.FeedMode;
import io.dimstream.config.model.SeedJsonOptions;
import static io.dimstream.db.entity.ColumnType.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The builders name every component and default the rest as the config file does. */
class EntityConfigBuilderTest {

    private static final String MINIMAL = """
            postgres: {url: embedded}
            entities:
              - {name: c, topic: t, table: dim_c, key: [id], tracked: [a], columns: {id: text, a: text}}
            """;

    @Test
    void aBuiltEntityWithOnlyTheRequiredPartsIsTheOneAMinimalConfigReads() {
        EntityConfig built = EntityConfig.builder().name("c").topic("t").table("dim_c").key(List.of("id")).tracked(List.of("a"))
                .columns(Map.of("id", TEXT, "a", TEXT)).build();

        assertThat(built).isEqualTo(DimstreamConfig.parse(MINIMAL, "config t.yml", Map.of()).entities().get(0));
        assertThat(built).isEqualTo(new EntityConfig("c", "t", EventFormat.JSON, "dim_c", List.of("id"), List.of("a"), List.of(),
                Optional.of(Duration.ofDays(30)), Map.of("id", TEXT, "a", TEXT), SystemColumns.DEFAULTS, SeedJsonOptions.DEFAULTS,
                AvroOptions.DEFAULTS, FeedMode.CHANGES, EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD, false, "c", false, false, 0, Map.of(),
                CdcOptions.defaults(EventFormat.JSON), true, ValidToCurrent.NULL, HistoryRetention.NONE));
    }

    @Test
    void toBuilderCopiesEveryComponentAndTheCdcDefaultsFollowTheFormatWhenReset() {
        EntityConfig json = EntityConfig.builder().name("c").topic("t").table("dim_c").key(List.of("id")).tracked(List.of("a"))
                .columns(Map.of("id", TEXT, "a", TEXT)).surrogateKeyIndex(true).build();
        EntityConfig partitioned = json.toBuilder().surrogateKeyIndex(false).tablePartitions(8).validToCurrent(ValidToCurrent.INFINITY).build();

        assertThat(json.toBuilder().build()).isEqualTo(json);
        assertThat(partitioned.toBuilder().build()).isEqualTo(partitioned);
        assertThat(partitioned.toEntitySpec().tablePartitions()).isEqualTo(8);
        assertThat(partitioned.toEntitySpec().validToCurrent()).isEqualTo(ValidToCurrent.INFINITY);
        EntityConfig debezium = json.toBuilder().format(EventFormat.DEBEZIUM_JSON).cdc(null).build();
        assertThat(debezium.cdc()).isEqualTo(CdcOptions.defaults(EventFormat.DEBEZIUM_JSON));
        assertThat(debezium.surrogateKeyIndex()).isTrue();
    }

    @Test
    void theEntitySpecBuilderDefaultsAsTheShortConstructorsDo() {
        EntitySpec built = EntitySpec.builder().name("c").table("dim_c").key(List.of("id")).tracked(List.of("a"))
                .columns(Map.of("id", TEXT, "a", TEXT)).build();

        assertThat(built).isEqualTo(new EntitySpec("c", "dim_c", List.of("id"), List.of("a"), List.of(), Map.of("id", TEXT, "a", TEXT),
                Optional.of(EntitySpec.DEFAULT_LATENESS_HORIZON), SystemColumns.DEFAULTS, false, Map.of(), Set.of(), 0, true,
                ValidToCurrent.NULL, HistoryRetention.NONE));
    }

    @Test
    void theEntitySpecsToBuilderCopiesEveryComponent() {
        EntitySpec every = new EntitySpec("c", "s.dim_c", List.of("id"), List.of("a", "n"), List.of("b"),
                Map.of("id", TEXT, "a", TEXT, "b", TEXT, "n", io.dimstream.db.entity.ColumnType.NUMERIC), Optional.empty(),
                new SystemColumns("sk", "start_ts", "end_ts", "cur", "del", "h", "st", "sp", "so", "la"), false,
                Map.of("n", new io.dimstream.db.entity.TypeModifier.Precision(10, 2)), Set.of("b"), 4, false, ValidToCurrent.INFINITY,
                new HistoryRetention(Optional.of(IsoSpan.parse("P2Y")), Optional.of(Duration.ofDays(1)), Optional.of(IsoSpan.parse("P90D"))));

        assertThat(every.toBuilder().build()).isEqualTo(every);
    }
}
