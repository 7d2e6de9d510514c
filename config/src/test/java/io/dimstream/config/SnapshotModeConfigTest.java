package io.dimstream.config;

import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.FeedMode;
import static io.dimstream.config.DimstreamConfigTest.DESIGN_EXAMPLE;
import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.parse;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code mode: snapshot} and {@code snapshot-time-field} of an entity. */
class SnapshotModeConfigTest {

    private static final String FORMAT_LINE = "    format: json                       # json | avro | debezium-json | debezium-avro";

    private static String with(String lines) {
        return designWith(FORMAT_LINE, lines);
    }

    @Test
    void anEntityIsInChangesModeUnlessItSaysOtherwise() {
        EntityConfig e = parse(DESIGN_EXAMPLE).entity("customer");

        assertThat(e.mode()).isEqualTo(FeedMode.CHANGES);
        assertThat(e.snapshot()).isFalse();
        assertThat(e).isEqualTo(DimstreamConfigTest.customer());
    }

    @Test
    void snapshotModeTakesTheDefaultOrTheNamedTimeField() {
        EntityConfig byDefault = parse(with("    mode: snapshot")).entity("customer");
        EntityConfig named = parse(with("    mode: snapshot\n    snapshot-time-field: slice_at")).entity("customer");

        assertThat(byDefault.mode()).isEqualTo(FeedMode.SNAPSHOT);
        assertThat(byDefault.snapshotTimeField()).isEqualTo("snapshot_time");
        assertThat(named.snapshot()).isTrue();
        assertThat(named.snapshotTimeField()).isEqualTo("slice_at");
    }

    @Test
    void badModeSettingsAreRefusedNamingTheField() {
        assertThat(refusal(with("    mode: slices")))
                .isEqualTo("config test.yml: entities[0].mode: \"slices\" is neither changes nor snapshot");
        assertThat(refusal(with("    snapshot-time-field: slice_at")))
                .isEqualTo("config test.yml: entities[0].snapshot-time-field: only used with mode: snapshot (this entity's mode is changes)");
        assertThat(refusal(with("    mode: snapshot\n    snapshot-time-field: email")))
                .isEqualTo("config test.yml: entities[0].snapshot-time-field: \"email\" is also a column of the entity "
                        + "(the field is not part of the row image)");
        assertThat(refusal(designWith(FORMAT_LINE, "    format: debezium-json\n    mode: snapshot")))
                .isEqualTo("config test.yml: entities[0].format: mode snapshot reads flat JSON rows (format: json), not debezium-json");
    }

    @Test
    void aDescribedSnapshotEntityParsesBackToTheSameConfig() {
        DimstreamConfig config = parse(with("    mode: snapshot\n    snapshot-time-field: slice_at")
                .replace("${DIMSTREAM_PG_PASSWORD}", "literal"));
        String described = config.describeMasked().replace("'****'", "literal");

        assertThat(described).contains("mode: snapshot", "snapshot-time-field: slice_at");
        assertThat(parse(described)).isEqualTo(config);
    }
}
