package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dbt-sources' output against dbt's published JSON schemas for property files ({@link DbtJsonSchema}):
 * the whole file of {@link DbtSourcesCommandTest#CONFIG} (type-1 columns, a composite key, renamed
 * system columns, a schema-qualified table) with each set of flags, checked against every schema
 * with no error at all; and, so that a pass means something, the layout dbt-sources wrote before
 * ({@code loaded_at_field} and {@code freshness} beside {@code config:}) refused by the schema of
 * current dbt, naming each place. The output with columns added while running is checked in
 * {@link DbtSourcesDatabaseTest}.
 */
class DbtSourcesSchemaTest {

    @TempDir
    Path dir;

    private Path schemas;

    @BeforeEach
    void schemas() {
        schemas = DbtJsonSchema.directory().orElse(null);
        Assumptions.assumeTrue(schemas != null, DbtJsonSchema::whereToPutThem);
    }

    private Path config() throws Exception {
        return Files.writeString(dir.resolve("c.yml"), DbtSourcesCommandTest.CONFIG);
    }

    @Test
    void theWholeFileOfSeveralEntitiesIsValidForEverySchema() throws Exception {
        CliRun run = CliRun.of("dbt-sources", "--config", config().toString(), "--offline");

        assertThat(run).isEqualTo(new CliRun(0, Files.readString(Path.of("src/test/resources/dbt/sources-expected.yml"),
                StandardCharsets.UTF_8), ""));
        assertThat(DbtJsonSchema.errors(schemas, run.out())).isEqualTo(DbtJsonSchema.none());
    }

    @Test
    void everyFlagGivesAValidFile() throws Exception {
        List<List<String>> flags = List.of(List.of("--no-freshness"), List.of("--warn-after", "30m", "--error-after", "2d"),
                List.of("--source-name", "scd_history"));
        for (List<String> f : flags) {
            List<String> args = new ArrayList<>(List.of("dbt-sources", "--config", config().toString(), "--offline"));
            args.addAll(f);
            CliRun run = CliRun.of(args.toArray(String[]::new));

            assertThat(run.exitCode()).as("%s: %s", f, run.err()).isZero();
            assertThat(DbtJsonSchema.errors(schemas, run.out())).as("%s", f).isEqualTo(DbtJsonSchema.none());
        }
    }

    @Test
    void theSchemaOfCurrentDbtRefusesFreshnessBesideConfig() throws Exception {
        String before = """
                version: 2
                sources:
                  - name: dimstream
                    schema: public
                    tables:
                      - name: dim_customer
                        loaded_at_field: loaded_at
                        freshness:
                          warn_after: {count: 12, period: hour}
                        columns:
                          - {name: customer_id, data_type: text, data_tests: [not_null]}
                """;

        Map<String, List<String>> errors = DbtJsonSchema.errors(schemas, before);

        assertThat(errors).isEqualTo(Map.of(
                "dbt_yml_files-latest-fusion.json", List.of(
                        "/sources/0/tables/0: property 'freshness' is not defined in the schema and the schema does not allow additional properties",
                        "/sources/0/tables/0: property 'loaded_at_field' is not defined in the schema and the schema does not allow additional properties"),
                "dbt_yml_files-latest.json", List.of()));
    }
}
