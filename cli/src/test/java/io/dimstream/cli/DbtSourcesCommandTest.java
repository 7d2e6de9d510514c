package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream dbt-sources}: the whole sources.yml of a config with two entities (one with
 * type-1 columns and a one-column key, one with a two-column key and renamed system columns), its
 * structure as a YAML parser reads it, the flags, and bad flags refused naming them.
 */
class DbtSourcesCommandTest {

    /** Set -Ddimstream.dbt-sources.write=true to rewrite the expected file from the output (then review the diff). */
    private static final Path EXPECTED = Path.of("src/test/resources/dbt/sources-expected.yml");

    @TempDir
    Path dir;

    private Path config() throws Exception {
        return Files.writeString(dir.resolve("c.yml"), """
                kafka: {bootstrap-servers: "kafka:9092"}
                postgres: {url: "jdbc:postgresql://db:5432/dim", user: dim, password: s3cret}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email, country]
                    type1: [last_login]
                    columns: {customer_id: text, email: varchar(200), country: text, last_login: timestamptz}
                  - name: price
                    topic: shop.prices
                    table: dim_price
                    key: [sku, store_id]
                    tracked: [amount]
                    columns: {sku: text, store_id: int, amount: "numeric(12,2)"}
                    system-columns: {valid_from: effective_from, valid_to: effective_to, loaded_at: written_at}
                """);
    }

    @Test
    void printsTheWholeSourcesFileForTwoEntities() throws Exception {
        CliRun run = CliRun.of("dbt-sources", "--config", config().toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
        if (Boolean.getBoolean("dimstream.dbt-sources.write")) {
            Files.writeString(EXPECTED, run.out());
        }
        assertThat(run.out()).isEqualTo(Files.readString(EXPECTED, StandardCharsets.UTF_8));
    }

    @Test
    void theOutputParsesAsYamlWithOneSourceAndTwoTablesPerEntity() throws Exception {
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString()).out());

        assertThat(doc.get("version").asInt()).isEqualTo(2);
        assertThat(doc.get("sources")).hasSize(1);
        JsonNode source = doc.get("sources").get(0);
        assertThat(List.of(source.get("name").asText(), source.get("schema").asText())).isEqualTo(List.of("dimstream", "public"));
        List<String> tables = new ArrayList<>();
        source.get("tables").forEach(t -> tables.add(t.get("name").asText() + " " + t.get("loaded_at_field").asText() + " "
                + t.get("freshness").get("warn_after").get("count").asInt() + t.get("freshness").get("warn_after").get("period").asText()
                + " " + t.get("columns").size() + " columns"));
        assertThat(tables).isEqualTo(List.of(
                "dim_customer loaded_at 12hour 15 columns",
                "dim_customer_current loaded_at 12hour 15 columns",
                "dim_price written_at 12hour 14 columns",
                "dim_price_current written_at 12hour 14 columns"));
    }

    @Test
    void flagsNameTheSourceAndSetOrDropTheFreshness() throws Exception {
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString(), "--source-name", "scd",
                "--warn-after", "30m", "--error-after", "2d").out());
        JsonNode table = doc.get("sources").get(0).get("tables").get(0);
        assertThat(List.of(doc.get("sources").get(0).get("name").asText(), table.get("freshness").toString()))
                .isEqualTo(List.of("scd", "{\"warn_after\":{\"count\":30,\"period\":\"minute\"},\"error_after\":{\"count\":2,\"period\":\"day\"}}"));

        JsonNode none = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString(), "--no-freshness").out());
        JsonNode bare = none.get("sources").get(0).get("tables").get(0);
        assertThat(List.of(bare.has("freshness"), bare.has("loaded_at_field"))).isEqualTo(List.of(false, false));
    }

    @Test
    void tablesInTwoSchemasMakeOneSourcePerSchema() throws Exception {
        Path file = Files.writeString(dir.resolve("two.yml"), """
                postgres: {url: "jdbc:postgresql://db:5432/dim"}
                entities:
                  - {name: a, topic: t.a, table: dim_a, key: [id], tracked: [v], columns: {id: text, v: text}}
                  - {name: b, topic: t.b, table: mart.dim_b, key: [id], tracked: [v], columns: {id: text, v: text}}
                """);
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", file.toString()).out());
        List<String> sources = new ArrayList<>();
        doc.get("sources").forEach(s -> {
            List<String> names = new ArrayList<>();
            s.get("tables").forEach(t -> names.add(t.get("name").asText()));
            sources.add(s.get("name").asText() + " " + s.get("schema").asText() + " " + names);
        });
        assertThat(sources).isEqualTo(List.of("dimstream_public public [dim_a, dim_a_current]",
                "dimstream_mart mart [dim_b, dim_b_current]"));
    }

    @Test
    void badFlagsAreRefusedNamingThem() throws Exception {
        CliRun period = CliRun.of("dbt-sources", "--config", config().toString(), "--warn-after", "12 hours");
        CliRun name = CliRun.of("dbt-sources", "--config", config().toString(), "--source-name", "my-source");

        assertThat(List.of(period.exitCode(), period.err(), name.exitCode(), name.err())).isEqualTo(List.of(
                2, "dimstream dbt-sources: --warn-after: expected a count and m, h or d (30m, 12h, 2d), got '12 hours'\n",
                2, "dimstream dbt-sources: --source-name: expected a dbt name (letters, digits, _), got 'my-source'\n"));
    }
}
