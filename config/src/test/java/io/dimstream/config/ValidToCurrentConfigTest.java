package io.dimstream.config;

import static io.dimstream.config.DimstreamConfigTest.DESIGN_EXAMPLE;
import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.parse;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ValidToCurrent;
import org.junit.jupiter.api.Test;

/** {@code valid-to-current}: read, defaulted, printed and refused naming the field. */
class ValidToCurrentConfigTest {

    private static String with(String value) {
        return designWith("    table: dim_customer ", "    valid-to-current: " + value + "\n    table: dim_customer ")
                .replace("${DIMSTREAM_PG_PASSWORD}", "literal");
    }

    @Test
    void absentOrNullIsTodaysNullAndIsNotPrinted() {
        assertThat(parse(DESIGN_EXAMPLE).entities().get(0).toEntitySpec().validToCurrent()).isEqualTo(ValidToCurrent.NULL);
        assertThat(parse(DESIGN_EXAMPLE).describeMasked()).doesNotContain("valid-to-current");
        // YAML's null (the word unquoted) and the text "null" read alike
        assertThat(parse(with("null")).entities().get(0).toEntitySpec().validToCurrent()).isEqualTo(ValidToCurrent.NULL);
        assertThat(parse(with("\"null\"")).entities().get(0).toEntitySpec().validToCurrent()).isEqualTo(ValidToCurrent.NULL);
        assertThat(parse(with("null")).entities()).isEqualTo(parse(DESIGN_EXAMPLE.replace("${DIMSTREAM_PG_PASSWORD}", "literal")).entities());
    }

    @Test
    void infinityReachesTheSpecAndSurvivesDescribe() {
        DimstreamConfig config = parse(with("infinity"));
        assertThat(config.entities().get(0).validToCurrent()).isEqualTo(ValidToCurrent.INFINITY);
        assertThat(config.entities().get(0).toEntitySpec()).isEqualTo(
                parse(DESIGN_EXAMPLE).entities().get(0).toEntitySpec().toBuilder().validToCurrent(ValidToCurrent.INFINITY).build());
        assertThat(config.describeMasked()).contains("  valid-to-current: infinity\n");
        assertThat(parse(config.describeMasked().replace("'****'", "literal"))).isEqualTo(config);
    }

    @Test
    void anyOtherValueIsRefusedNamingTheField() {
        assertThat(refusal(with("9999-12-31"))).isEqualTo("config test.yml: entities[0].valid-to-current: \"9999-12-31\" is neither null nor infinity");
        assertThat(refusal(with("Infinity"))).isEqualTo("config test.yml: entities[0].valid-to-current: \"Infinity\" is neither null nor infinity");
        assertThat(refusal(with("[infinity]"))).startsWith("config test.yml: entities[0].valid-to-current: ");
    }
}
