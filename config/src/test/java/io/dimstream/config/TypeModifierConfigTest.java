package io.dimstream.config;

import static io.dimstream.config.DimstreamConfigTest.parse;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code varchar(n)} and {@code numeric(p,s)} under {@code columns:}: read into the spec, refused out of PostgreSQL's range. */
class TypeModifierConfigTest {

    private static String config(String columns) {
        return """
                postgres:
                  url: embedded
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email, name, amount, price, rate, note]
                    columns: %s
                """.formatted(columns);
    }

    @Test
    void modifiersReachTheSpecWithTheirBaseTypes() {
        DimstreamConfig c = parse(config("{customer_id: varchar(36), email: VARCHAR(255), name: character varying (20),"
                + " amount: \"numeric(12,2)\", price: decimal(10), rate: numeric, note: varchar}"));

        Map<String, ColumnType> types = new LinkedHashMap<>();
        types.put("customer_id", ColumnType.TEXT);
        types.put("email", ColumnType.TEXT);
        types.put("name", ColumnType.TEXT);
        types.put("amount", ColumnType.NUMERIC);
        types.put("price", ColumnType.NUMERIC);
        types.put("rate", ColumnType.NUMERIC);
        types.put("note", ColumnType.TEXT);
        Map<String, TypeModifier> modifiers = new LinkedHashMap<>();
        modifiers.put("customer_id", new TypeModifier.Length(36));
        modifiers.put("email", new TypeModifier.Length(255));
        modifiers.put("name", new TypeModifier.Length(20));
        modifiers.put("amount", new TypeModifier.Precision(12, 2));
        modifiers.put("price", new TypeModifier.Precision(10, 0));
        assertThat(c.entity("customer").toEntitySpec()).isEqualTo(EntitySpec.builder()
                .name("customer")
                .table("dim_customer")
                .key(List.of("customer_id"))
                .tracked(List.of("email", "name", "amount", "price", "rate", "note"))
                .columns(types)
                .latenessHorizon(Optional.of(Duration.ofDays(30)))
                .modifiers(modifiers)
                .build());
        EntitySpec spec = c.entity("customer").toEntitySpec();
        assertThat(spec.dataColumns().stream().map(spec::sqlType).toList()).isEqualTo(List.of("character varying(36)",
                "character varying(255)", "character varying(20)", "numeric(12,2)", "numeric(10,0)", "numeric", "text"));
    }

    @Test
    void theDescribedConfigKeepsTheModifiersAndParsesBackToTheSameConfig() {
        DimstreamConfig c = parse(config("{customer_id: text, email: varchar(255), name: text, amount: 'numeric(12,2)', price: numeric,"
                + " rate: 'numeric(5,5)', note: text}"));

        assertThat(c.describeMasked()).contains("      email: character varying(255)\n", "      amount: \"numeric(12,2)\"\n",
                "      rate: \"numeric(5,5)\"\n");
        assertThat(parse(c.describeMasked())).isEqualTo(c);
    }

    @Test
    void modifiersOutOfPostgresRangeAreRefusedNamingTheColumn() {
        ConfigException e = (ConfigException) org.assertj.core.api.Assertions.catchThrowable(() -> parse(config(
                "{customer_id: varchar(0), email: varchar(10485761), name: numeric(0), amount: 'numeric(1001,2)',"
                        + " price: 'numeric(5,6)', rate: 'numeric(5,-1)', note: char(3)}")));

        assertThat(e.problems()).containsExactly(
                "entities[0].columns.customer_id: \"varchar(0)\": varchar length must be between 1 and 10485760, got 0",
                "entities[0].columns.email: \"varchar(10485761)\": varchar length must be between 1 and 10485760, got 10485761",
                "entities[0].columns.name: \"numeric(0)\": numeric precision must be between 1 and 1000, got 0",
                "entities[0].columns.amount: \"numeric(1001,2)\": numeric precision must be between 1 and 1000, got 1001",
                "entities[0].columns.price: \"numeric(5,6)\": numeric scale must be between 0 and the precision 5, got 6",
                "entities[0].columns.rate: \"numeric(5,-1)\": numeric scale must be between 0 and the precision 5, got -1",
                "entities[0].columns.note: unknown type \"char(3)\" (supported: text, varchar(n), smallint, integer, bigint, numeric,"
                        + " numeric(p,s), double precision, boolean, date, timestamp, timestamptz, time, uuid, jsonb, bytea)");
    }

    @Test
    void aPrecisionAndScaleWrittenInABlockMappingNeedNoQuotes() {
        String yaml = config("\n        customer_id: text\n        email: text\n        name: text\n        amount: numeric(12,2)\n"
                + "        price: numeric\n        rate: numeric\n        note: text");
        assertThat(parse(yaml).entity("customer").modifiers()).isEqualTo(Map.of("amount", new TypeModifier.Precision(12, 2)));
    }

    /** YAML reads {@code {amount: numeric(12,2)}} as {@code amount: "numeric(12"} and {@code "2)": null}. */
    @Test
    void aPrecisionAndScaleCutAtTheCommaByAFlowMappingIsRefusedSayingHowToWriteIt() {
        assertThat(refusal(config("{customer_id: text, email: text, name: text, amount: numeric(12,2), price: numeric, rate: numeric,"
                + " note: text}")))
                .isEqualTo("config test.yml: entities[0].columns.amount: \"numeric(12\" was cut at its comma by YAML's {...} syntax: "
                        + "write it in quotes (amount: \"numeric(12,2)\"), or one column per line");
    }

    @Test
    void aHugeModifierNumberIsRefusedNotOverflowed() {
        assertThat(refusal(config("{customer_id: text, email: varchar(99999999999999999999), name: text, amount: numeric,"
                + " price: numeric, rate: numeric, note: text}")))
                .isEqualTo("config test.yml: entities[0].columns.email: \"varchar(99999999999999999999)\": varchar length must be "
                        + "between 1 and 10485760, got 2147483647");
    }
}
