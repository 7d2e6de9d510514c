package io.dimstream.config;

import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.SeedJsonOptions;
import static io.dimstream.config.DimstreamConfigTest.DESIGN_EXAMPLE;
import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.parse;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.event.Op;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The per-format options of an entity: seed-json field names and op values, the Avro deserializer. */
class FormatOptionsConfigTest {

    private static final String FORMAT_LINE = "    format: json                       # json | avro | debezium-json | debezium-avro";

    /** Lines of an entity item, indented as DESIGN_EXAMPLE's entity keys. */
    private static String entityLines(String... lines) {
        return "    " + String.join("\n    ", lines);
    }

    private static String withFormat(String formatAndOptions) {
        return designWith(FORMAT_LINE, formatAndOptions);
    }

    @Test
    void seedJsonTakesTheDefaultFieldNamesAndOpValues() {
        EntityConfig e = parse(withFormat("    format: seed-json")).entity("customer");

        assertThat(e.format()).isEqualTo(EventFormat.SEED_JSON);
        assertThat(e.seedJson()).isEqualTo(new SeedJsonOptions("operation", "change_time",
                List.of("CREATE", "UPDATE"), List.of("DELETE")));
        assertThat(e.avro()).isEqualTo(AvroOptions.DEFAULTS);
    }

    @Test
    void seedJsonFieldNamesAndOpValuesAreConfigurable() {
        EntityConfig e = parse(withFormat(entityLines("format: seed-json", "op-field: op_type", "time-field: changed_at",
                "op-values: {upsert: [I, U], delete: [D, X]}"))).entity("customer");

        assertThat(e.seedJson()).isEqualTo(new SeedJsonOptions("op_type", "changed_at", List.of("I", "U"), List.of("D", "X")));
    }

    @Test
    void opValuesMatchIgnoringCaseAndUnknownValuesMatchNothing() {
        SeedJsonOptions o = SeedJsonOptions.DEFAULTS;

        assertThat(List.of(o.opOf("CREATE"), o.opOf("update"), o.opOf(" Delete "), o.opOf("MERGE"), o.opOf(null)))
                .isEqualTo(List.of(Optional.of(Op.UPSERT), Optional.of(Op.UPSERT), Optional.of(Op.DELETE),
                        Optional.empty(), Optional.empty()));
    }

    @Test
    void seedJsonOptionsAreRefusedOnAnotherFormat() {
        assertThat(refusal(withFormat("    format: json\n    op-field: op_type")))
                .isEqualTo("config test.yml: entities[0].op-field: only used with format: seed-json (this entity's format is json)");
    }

    @Test
    void badSeedJsonOptionsAreAllNamed() {
        assertThat(refusal(withFormat(entityLines("format: seed-json", "op-field: email", "time-field: \"\"",
                "op-values: {upsert: [CREATE, Delete], delete: [DELETE]}"))))
                .isEqualTo("config test.yml: 3 problems: "
                        + "entities[0].op-field: \"email\" is also a column of the entity (the field is not part of the row image); "
                        + "entities[0].time-field: must be a field name, got nothing; "
                        + "entities[0].op-values: \"Delete\" is listed both as upsert and as delete");
    }

    @Test
    void opValuesNeedBothListsAndDistinctFields() {
        assertThat(refusal(withFormat(entityLines("format: seed-json", "op-field: ts", "time-field: ts", "op-values: {upsert: [CREATE]}"))))
                .isEqualTo("config test.yml: 2 problems: "
                        + "entities[0].time-field: \"ts\" is also the op-field; "
                        + "entities[0].op-values.delete: required (a list of operation values)");
    }

    @Test
    void avroFormatsTakeTheDeserializerClassAndItsConfig() {
        EntityConfig e = parse(withFormat(entityLines("format: debezium-avro",
                "value-deserializer: io.confluent.kafka.serializers.KafkaAvroDeserializer",
                "deserializer-config: {schema.registry.url: \"mock://demo\"}"))).entity("customer");

        assertThat(e.avro()).isEqualTo(new AvroOptions("io.confluent.kafka.serializers.KafkaAvroDeserializer",
                Map.of("schema.registry.url", "mock://demo")));
        assertThat(parse(withFormat("    format: avro")).entity("customer").avro())
                .isEqualTo(new AvroOptions("io.dimstream.schemas.serde.AvroWireDeserializer", Map.of()));
    }

    @Test
    void avroOptionsAreRefusedOnAJsonFormatAndABadClassNameIsNamed() {
        assertThat(refusal(withFormat("    format: debezium-json\n    deserializer-config: {a: b}")))
                .isEqualTo("config test.yml: entities[0].deserializer-config: only used with format: avro or debezium-avro "
                        + "(this entity's format is debezium-json)");
        assertThat(refusal(withFormat("    format: avro\n    value-deserializer: not a class")))
                .isEqualTo("config test.yml: entities[0].value-deserializer: \"not a class\" is not a Java class name");
    }

    @Test
    void aDeserializerConfigKeyDimstreamsDeserializerDoesNotKnowIsRefusedNamingIt() {
        // a typo here would silently send no credentials, and every record would wait for a registry that refuses it
        assertThat(refusal(withFormat(entityLines("format: avro",
                "deserializer-config: {schema.registry.url: \"http://registry:8081\", basic.auth.userinfo: \"u:p\"}"))))
                .isEqualTo("config test.yml: entities[0].deserializer-config.basic.auth.userinfo: not a setting of "
                        + "io.dimstream.schemas.serde.AvroWireDeserializer (known: auto.register.schemas, basic.auth.user.info, "
                        + "dimstream.avro.key.reader.schema, dimstream.avro.reader.schema, dimstream.schema.registry.retry.ms, "
                        + "schema.registry.url)");
        // another deserializer's keys are its own
        assertThat(parse(withFormat(entityLines("format: avro", "value-deserializer: io.confluent.kafka.serializers.KafkaAvroDeserializer",
                "deserializer-config: {schema.registry.url: \"http://r:8081\", basic.auth.credentials.source: USER_INFO}")))
                .entity("customer").avro().deserializerConfig())
                .isEqualTo(Map.of("schema.registry.url", "http://r:8081", "basic.auth.credentials.source", "USER_INFO"));
    }

    @Test
    void describedSeedJsonAndAvroEntitiesParseBackToTheSameConfig() {
        for (String format : List.of(
                entityLines("format: seed-json", "op-field: op_type", "op-values: {upsert: [I], delete: [D]}"),
                entityLines("format: avro", "deserializer-config: {schema.registry.url: \"mock://demo\"}"))) {
            DimstreamConfig config = parse(withFormat(format).replace("${DIMSTREAM_PG_PASSWORD}", "literal"));
            String described = config.describeMasked().replace("'****'", "literal");

            assertThat(parse(described)).isEqualTo(config);
        }
    }

    @Test
    void theDescribedConfigMasksDeserializerSecretsAndKeepsTheRest() {
        DimstreamConfig config = DimstreamConfig.parse(withFormat(entityLines("format: avro",
                "deserializer-config: {schema.registry.url: \"https://reg:p4ss@registry:8081\", basic.auth.user.info: \"${REG}\", "
                        + "dimstream.schema.registry.retry.ms: 5000}")), "test.yml", Map.of("DIMSTREAM_PG_PASSWORD", "s3cret",
                "REG", "bob:hunter2"));

        String described = config.describeMasked();

        assertThat(described).doesNotContain("hunter2").doesNotContain("p4ss").contains("""
                    deserializer-config:
                      schema.registry.url: https://reg:****@registry:8081
                      basic.auth.user.info: '****'
                      dimstream.schema.registry.retry.ms: 5000
                """);
        // a message quoting the whole map (a deserializer's configure failing) masks it too
        assertThat(config.entity("customer").avro().deserializerConfig().toString()).isEqualTo(
                "{schema.registry.url=https://reg:****@registry:8081, basic.auth.user.info=****, dimstream.schema.registry.retry.ms=5000}");
    }

    @Test
    void designExampleIsUnchangedByTheFormatOptions() {
        assertThat(parse(DESIGN_EXAMPLE).entity("customer")).isEqualTo(DimstreamConfigTest.customer());
    }
}
