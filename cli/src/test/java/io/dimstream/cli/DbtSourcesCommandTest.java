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
 * {@code dimstream dbt-sources} without a database ({@code --offline}): the whole sources.yml of a
 * config with two entities (one with type-1 columns and a one-column key, one with a two-column key,
 * renamed system columns and a schema-qualified table), its structure as a YAML parser reads it,
 * the flags, bad flags refused naming them, and what it does when the database cannot be read
 * (fails naming it) or there is none to read (embedded: says so). With a real database:
 * {@link DbtSourcesDatabaseTest}; against dbt's JSON schema: {@link DbtSourcesSchemaTest}.
 */
class DbtSourcesCommandTest {

    /** Set -Ddimstream.dbt-sources.write=true to rewrite the expected file from the output (then review the diff). */
    private static final Path EXPECTED = Path.of("src/test/resources/dbt/sources-expected.yml");

    @TempDir
    Path dir;

    /** The config the expected file is of; shared with {@link DbtSourcesSchemaTest}. */
    static final String CONFIG = """
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
                    table: mart.dim_price
                    key: [sku, store_id]
                    tracked: [amount]
                    columns: {sku: text, store_id: int, amount: "numeric(12,2)"}
                    system-columns: {valid_from: effective_from, valid_to: effective_to, loaded_at: written_at}
                """;

    private Path config() throws Exception {
        return Files.writeString(dir.resolve("c.yml"), CONFIG);
    }

    @Test
    void printsTheWholeSourcesFileForTwoEntities() throws Exception {
        CliRun run = CliRun.of("dbt-sources", "--config", config().toString(), "--offline");

        if (Boolean.getBoolean("dimstream.dbt-sources.write")) {
            Files.writeString(EXPECTED, run.out());
        }
        assertThat(run).isEqualTo(new CliRun(0, Files.readString(EXPECTED, StandardCharsets.UTF_8), ""));
    }

    /** One entity with {@code valid-to-current: infinity}: its descriptions, tests and the range join say 'infinity'. */
    @Test
    void anEntityWithValidToCurrentInfinityIsDescribedSo() throws Exception {
        Path infinity = Path.of("src/test/resources/dbt/sources-infinity-expected.yml");
        Path cfg = Files.writeString(dir.resolve("i.yml"), """
                kafka: {bootstrap-servers: "kafka:9092"}
                postgres: {url: "jdbc:postgresql://db:5432/dim", user: dim, password: s3cret}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                    valid-to-current: infinity
                """);
        CliRun run = CliRun.of("dbt-sources", "--config", cfg.toString(), "--offline");

        if (Boolean.getBoolean("dimstream.dbt-sources.write")) {
            Files.writeString(infinity, run.out());
        }
        assertThat(run).isEqualTo(new CliRun(0, Files.readString(infinity, StandardCharsets.UTF_8), ""));
    }

    @Test
    void theOutputParsesAsYamlWithTwoTablesPerEntityAndFreshnessUnderConfig() throws Exception {
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString(), "--offline").out());

        assertThat(doc.get("version").asInt()).isEqualTo(2);
        List<String> tables = new ArrayList<>();
        doc.get("sources").forEach(s -> s.get("tables").forEach(t -> tables.add(s.get("name").asText() + " " + s.get("schema").asText()
                + " " + t.get("name").asText() + " " + t.get("config").toString() + " " + t.get("columns").size() + " columns "
                + t.has("loaded_at_field") + " " + t.has("freshness"))));
        String freshness = "\"freshness\":{\"warn_after\":{\"count\":12,\"period\":\"hour\"},\"error_after\":{\"count\":24,\"period\":\"hour\"}}";
        assertThat(tables).isEqualTo(List.of(
                "dimstream_public public dim_customer {" + freshness + ",\"loaded_at_field\":\"loaded_at\"} 17 columns false false",
                "dimstream_public public dim_customer_current {" + freshness + ",\"loaded_at_field\":\"loaded_at\"} 17 columns false false",
                "dimstream_mart mart dim_price {" + freshness + ",\"loaded_at_field\":\"written_at\"} 16 columns false false",
                "dimstream_mart mart dim_price_current {" + freshness + ",\"loaded_at_field\":\"written_at\"} 16 columns false false"));
    }

    @Test
    void flagsNameTheSourceAndSetOrDropTheFreshness() throws Exception {
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString(), "--offline",
                "--source-name", "scd", "--warn-after", "30m", "--error-after", "2d").out());
        JsonNode table = doc.get("sources").get(0).get("tables").get(0);
        assertThat(List.of(doc.get("sources").get(0).get("name").asText(), table.get("config").toString()))
                .isEqualTo(List.of("scd_public", "{\"freshness\":{\"warn_after\":{\"count\":30,\"period\":\"minute\"},"
                        + "\"error_after\":{\"count\":2,\"period\":\"day\"}},\"loaded_at_field\":\"loaded_at\"}"));

        JsonNode none = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", config().toString(), "--offline", "--no-freshness").out());
        JsonNode bare = none.get("sources").get(0).get("tables").get(0);
        List<String> keys = new ArrayList<>();
        bare.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).isEqualTo(List.of("name", "description", "data_tests", "columns"));
    }

    @Test
    void tablesInOneSchemaMakeOneSourceNamedAsGiven() throws Exception {
        Path file = Files.writeString(dir.resolve("one.yml"), """
                postgres: {url: "jdbc:postgresql://db:5432/dim"}
                entities:
                  - {name: a, topic: t.a, table: dim_a, key: [id], tracked: [v], columns: {id: text, v: text}}
                  - {name: b, topic: t.b, table: public.dim_b, key: [id], tracked: [v], columns: {id: text, v: text}}
                """);
        JsonNode doc = new YAMLMapper().readTree(CliRun.of("dbt-sources", "--config", file.toString(), "--offline").out());
        List<String> sources = new ArrayList<>();
        doc.get("sources").forEach(s -> {
            List<String> names = new ArrayList<>();
            s.get("tables").forEach(t -> names.add(t.get("name").asText()));
            sources.add(s.get("name").asText() + " " + s.get("schema").asText() + " " + names);
        });
        assertThat(sources).isEqualTo(List.of("dimstream public [dim_a, dim_a_current, dim_b, dim_b_current]"));
    }

    @Test
    void badFlagsAreRefusedNamingThem() throws Exception {
        CliRun period = CliRun.of("dbt-sources", "--config", config().toString(), "--warn-after", "12 hours");
        CliRun name = CliRun.of("dbt-sources", "--config", config().toString(), "--source-name", "my-source");

        assertThat(List.of(period.exitCode(), period.err(), name.exitCode(), name.err())).isEqualTo(List.of(
                2, "dimstream dbt-sources: --warn-after: expected a count and m, h or d (30m, 12h, 2d), got '12 hours'\n",
                2, "dimstream dbt-sources: --source-name: expected a dbt name (letters, digits, _), got 'my-source'\n"));
    }

    @Test
    void aDatabaseThatCannotBeReadFailsNamingItAndOffline() throws Exception {
        Path file = Files.writeString(dir.resolve("down.yml"), CONFIG.replace("postgres: {url: \"jdbc:postgresql://db:5432/dim\", user: dim, "
                + "password: s3cret}", "postgres: {url: \"jdbc:postgresql://127.0.0.1:1/dim?user=dim&password=s3cret\"}"));

        CliRun run = CliRun.of("dbt-sources", "--config", file.toString());

        assertThat(run).isEqualTo(new CliRun(2, "", "dimstream dbt-sources: cannot read the columns added while running "
                + "(dimstream.entity_columns) from PostgreSQL at jdbc:postgresql://127.0.0.1:1/dim?user=dim&password=**** (SQL state 08001): "
                + "Connection to 127.0.0.1:1 refused. Check that the hostname and port are correct and that the postmaster is accepting "
                + "TCP/IP connections. Check postgres.url, user and password and that the database answers from here, or "
                + "pass --offline to list the config's columns only\n"));
    }

    @Test
    void anEmbeddedDatabaseListsTheConfigsColumnsAndSaysSo() throws Exception {
        Path file = Files.writeString(dir.resolve("embedded.yml"), CONFIG.replace("postgres: {url: \"jdbc:postgresql://db:5432/dim\", "
                + "user: dim, password: s3cret}", "postgres: {url: embedded}"));

        CliRun run = CliRun.of("dbt-sources", "--config", file.toString());

        assertThat(run).isEqualTo(new CliRun(0, Files.readString(EXPECTED, StandardCharsets.UTF_8).replace(
                "# Columns: the config's only (--offline): columns added while running are not listed.\n",
                "# Columns: the config's only (postgres.url is embedded): columns added while running are not listed.\n"),
                "dimstream dbt-sources: postgres.url is embedded, a database that exists only inside a running dimstream: listing the "
                        + "config's columns only (columns added while running are left out)\n"));
    }
}
