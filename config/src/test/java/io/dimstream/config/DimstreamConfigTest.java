package io.dimstream.config;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.config.model.SinkConfig;
import static io.dimstream.db.entity.ColumnType.BIGINT;
import static io.dimstream.db.entity.ColumnType.TEXT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DimstreamConfigTest {

    /** DESIGN section 4's example, as written there. */
    static final String DESIGN_EXAMPLE = """
            kafka:
              bootstrap-servers: embedded          # "embedded": start a broker inside the process
            postgres:
              url: jdbc:postgresql://127.0.0.1:5432/dimstream   # "embedded": start PostgreSQL inside the process
              user: postgres
              password: ${DIMSTREAM_PG_PASSWORD}   # ${VAR} reads the environment; a literal works too
            entities:
              - name: customer
                topic: crm.customers
                format: json                       # json | avro | debezium-json | debezium-avro
                table: dim_customer                # created if missing, validated if present
                key: [customer_id]
                tracked: [email, full_name, country, city, loyalty_tier]
                type1: [last_login]
                lateness-horizon: P30D             # ISO-8601 duration, or "unlimited"
                columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                          loyalty_tier: text, last_login: bigint}
            """;

    static final Map<String, String> ENV = Map.of("DIMSTREAM_PG_PASSWORD", "s3cret");

    static Map<String, ColumnType> customerColumns() {
        Map<String, ColumnType> m = new LinkedHashMap<>();
        m.put("customer_id", TEXT);
        m.put("email", TEXT);
        m.put("full_name", TEXT);
        m.put("country", TEXT);
        m.put("city", TEXT);
        m.put("loyalty_tier", TEXT);
        m.put("last_login", BIGINT);
        return m;
    }

    static EntityConfig customer() {
        return EntityConfig.builder().name("customer").topic("crm.customers").format(EventFormat.JSON).table("dim_customer")
                .key(List.of("customer_id")).tracked(List.of("email", "full_name", "country", "city", "loyalty_tier"))
                .type1(List.of("last_login")).latenessHorizon(Optional.of(Duration.ofDays(30))).columns(customerColumns())
                .systemColumns(SystemColumns.DEFAULTS).build();
    }

    static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "config test.yml", ENV);
    }

    /** The problems of a config that must be refused. */
    static String refusal(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("config was accepted:\n" + yaml);
    }

    /** DESIGN_EXAMPLE with one line replaced (whole line, indentation included). */
    static String designWith(String line, String replacement) {
        assertThat(DESIGN_EXAMPLE).contains(line);
        return DESIGN_EXAMPLE.replace(line, replacement);
    }

    @Test
    void designExampleParsesToTheExpectedConfig() {
        DimstreamConfig expected = new DimstreamConfig(
                Optional.of(new KafkaConfig("embedded")),
                new PostgresConfig("jdbc:postgresql://127.0.0.1:5432/dimstream", "postgres", "s3cret", 10),
                List.of(customer()),
                100_000);

        assertThat(parse(DESIGN_EXAMPLE)).isEqualTo(expected);
    }

    @Test
    void entityConfigBecomesTheEntitySpecTheWriterTakes() {
        EntitySpec expected = EntitySpec.builder()
                .name("customer")
                .table("dim_customer")
                .key(List.of("customer_id"))
                .tracked(List.of("email", "full_name", "country", "city", "loyalty_tier"))
                .type1(List.of("last_login"))
                .columns(customerColumns())
                .latenessHorizon(Optional.of(Duration.ofDays(30)))
                .build();

        assertThat(parse(DESIGN_EXAMPLE).entity("customer").toEntitySpec()).isEqualTo(expected);
    }

    @Test
    void optionalFieldsTakeTheirDefaults() {
        String yaml = """
                postgres:
                  url: embedded
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: customer_id
                    tracked: [email]
                    columns: {customer_id: text, email: varchar}
                """;
        DimstreamConfig expected = new DimstreamConfig(
                Optional.empty(),
                new PostgresConfig("embedded", null, null, 10),
                List.of(EntityConfig.builder().name("customer").topic("crm.customers").table("dim_customer")
                        .key(List.of("customer_id")).tracked(List.of("email")).columns(Map.of("customer_id", TEXT, "email", TEXT))
                        .build()),
                100_000);

        assertThat(parse(yaml)).isEqualTo(expected);
    }

    @Test
    void explicitSettingsOverrideDefaults() {
        String yaml = DESIGN_EXAMPLE
                .replace("    format: json ", "    format: debezium-avro ")
                .replace("lateness-horizon: P30D", "lateness-horizon: unlimited\n    system-columns: {valid_from: start_ts, is_current: current_flag}")
                .replace("  user: postgres\n", "  user: postgres\n  pool-size: 3\n") + "load:\n  batch-size: 500\n";

        DimstreamConfig config = parse(yaml);

        SystemColumns renamed = new SystemColumns("surrogate_key", "start_ts", "valid_to", "current_flag", "is_deleted",
                "record_hash", "source_topic", "source_partition", "source_offset", "loaded_at");
        EntityConfig c = customer();
        assertThat(config).isEqualTo(new DimstreamConfig(
                Optional.of(new KafkaConfig("embedded")),
                new PostgresConfig("jdbc:postgresql://127.0.0.1:5432/dimstream", "postgres", "s3cret", 3),
                List.of(c.toBuilder().format(EventFormat.DEBEZIUM_AVRO).latenessHorizon(Optional.empty()).systemColumns(renamed)
                        // the format's defaults, and a field new to the source a type-1 column (tracked is a list)
                        .cdc(withNewColumns(CdcOptions.defaults(EventFormat.DEBEZIUM_AVRO), CdcOptions.NewColumns.TYPE1)).build()),
                500));
    }

    static CdcOptions withNewColumns(CdcOptions o, CdcOptions.NewColumns n) {
        return new CdcOptions(o.eventTime(), o.unavailableValue(), o.ignoreNullUpdates(), o.onTruncate(), o.encodings(), o.schemaEvolution(),
                o.except(), n);
    }

    @Test
    void environmentVariablesAreSubstitutedInAnyStringValue() {
        String yaml = DESIGN_EXAMPLE
                .replace("jdbc:postgresql://127.0.0.1:5432/dimstream", "jdbc:postgresql://${PG_HOST}:5432/${PG_DB}")
                .replace("topic: crm.customers", "topic: ${ENV_NAME}.customers")
                .replace("key: [customer_id]", "key: [\"${KEY}\"]")
                .replace("password: ${DIMSTREAM_PG_PASSWORD}", "password: \"p$${not_a_var}${DIMSTREAM_PG_PASSWORD}\"");
        Map<String, String> env = Map.of("PG_HOST", "db.internal", "PG_DB", "warehouse", "ENV_NAME", "prod",
                "KEY", "customer_id", "DIMSTREAM_PG_PASSWORD", "s3cret");

        DimstreamConfig config = DimstreamConfig.parse(yaml, "config test.yml", env);

        assertThat(config.postgres()).isEqualTo(
                new PostgresConfig("jdbc:postgresql://db.internal:5432/warehouse", "postgres", "p${not_a_var}s3cret", 10));
        assertThat(config.entity("customer").topic()).isEqualTo("prod.customers");
        assertThat(config.entity("customer").key()).isEqualTo(List.of("customer_id"));
    }

    @Test
    void unsetEnvironmentVariableNamesTheVariableAndTheField() {
        assertThatThrownBy(() -> DimstreamConfig.parse(DESIGN_EXAMPLE, "config test.yml", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config test.yml: postgres.password: environment variable DIMSTREAM_PG_PASSWORD is not set");
    }

    @Test
    void malformedReferenceIsRefusedWithoutEchoingTheValue() {
        assertThat(refusal(designWith("password: ${DIMSTREAM_PG_PASSWORD}", "password: \"abc${oops\"")))
                .isEqualTo("config test.yml: postgres.password: malformed ${...} reference"
                        + " (write ${NAME} with a variable name, or $${ for a literal ${)");
    }

    @Test
    void badLatenessHorizonIsRefused() {
        assertThat(refusal(designWith("lateness-horizon: P30D", "lateness-horizon: P3X")))
                .isEqualTo("config test.yml: entities[0].lateness-horizon: \"P3X\" is not an ISO-8601 duration or \"unlimited\"");
    }

    @Test
    void nonPositiveLatenessHorizonIsRefusedByTheEntityCheckWithThePathPrefixed() {
        assertThat(refusal(designWith("lateness-horizon: P30D", "lateness-horizon: PT0S")))
                .isEqualTo("config test.yml: entities[0].lateness-horizon: must be positive, got PT0S");
    }

    @Test
    void unknownColumnTypeNamesTheColumnAndTheSupportedTypes() {
        String second = DESIGN_EXAMPLE + """
                  - name: account
                    topic: crm.accounts
                    table: dim_account
                    key: [account_id]
                    tracked: [email]
                    columns: {account_id: bigint, email: txt}
                """;
        assertThat(refusal(second)).isEqualTo("config test.yml: entities[1].columns.email: unknown type \"txt\""
                + " (supported: text, varchar(n), smallint, integer, bigint, numeric, numeric(p,s), double precision, boolean, date,"
                + " timestamp, timestamptz, time, uuid, jsonb, bytea)");
    }

    @Test
    void missingPostgresUrlIsRequired() {
        assertThat(refusal(designWith("  url: jdbc:postgresql://127.0.0.1:5432/dimstream   # \"embedded\": start PostgreSQL inside the process\n", "")))
                .isEqualTo("config test.yml: postgres.url: required");
    }

    @Test
    void missingSectionsAreRequired() {
        assertThat(refusal("kafka: {bootstrap-servers: embedded}\n"))
                .isEqualTo("config test.yml: 2 problems: postgres: required (url, user, password);"
                        + " entities: at least one entity (or a connector under connectors:) is required");
    }

    @Test
    void nonPostgresUrlIsRefusedWithItsPasswordMasked() {
        assertThat(refusal(designWith("url: jdbc:postgresql://127.0.0.1:5432/dimstream", "url: jdbc:mysql://h/db?user=u&password=hunter2")))
                .isEqualTo("config test.yml: postgres.url: \"jdbc:mysql://h/db?user=u&password=****\""
                        + " is neither a jdbc:postgresql: URL nor \"embedded\"");
    }

    @Test
    void unknownKeyIsRefusedNamingTheKey() {
        assertThat(refusal(designWith("    table: dim_customer ", "    tabel: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].tabel: unknown key (known here: columns, deserializer-config, encodings,"
                        + " event-time, except, format, history-grain, history-grain-after, history-retention, ignore-null-updates, key, lateness-horizon, mode, name, new-columns, on-truncate, op-field, op-values,"
                        + " partitioned-by-key, schema-evolution, snapshot-time-field, streams-client, surrogate-key-index, system-columns, table,"
                        + " table-partitions, time-field, topic,"
                        + " tracked, transaction-time, type1, unavailable-value, undeclared-columns, valid-to-current, value-deserializer)");
    }

    @Test
    void unknownTopLevelKeyIsRefused() {
        assertThat(refusal(DESIGN_EXAMPLE + "batchsize: 10\n"))
                .isEqualTo("config test.yml: batchsize: unknown key (known here: admin, connectors, entities, kafka, load, postgres, service, sink)");
    }

    @Test
    void wrongKindOfValueNamesTheField() {
        assertThat(refusal(designWith("key: [customer_id]", "key: {customer_id: text}")))
                .isEqualTo("config test.yml: entities[0].key: expected a list, got a mapping");
        assertThat(refusal(designWith("  user: postgres", "  user: [a, b]")))
                .isEqualTo("config test.yml: postgres.user: expected a single value, got a list");
        assertThat(refusal(designWith("  bootstrap-servers: embedded ", "  bootstrap-servers: {a: b} ")))
                .isEqualTo("config test.yml: kafka.bootstrap-servers: expected a single value, got a mapping");
        assertThat(refusal(DESIGN_EXAMPLE + "load:\n  batch-size: lots\n"))
                .isEqualTo("config test.yml: load.batch-size: \"lots\" is not an integer");
        assertThat(refusal(DESIGN_EXAMPLE + "load:\n  batch-size: 0\n"))
                .isEqualTo("config test.yml: load.batch-size: must be at least 1, got 0");
    }

    @Test
    void entitySpecChecksArePrefixedWithTheEntityPath() {
        assertThat(refusal(designWith("key: [customer_id]", "key: [id]")))
                .isEqualTo("config test.yml: entities[0].key: column 'id' has no type in columns");
        assertThat(refusal(designWith("type1: [last_login]", "type1: [last_login, email]")))
                .isEqualTo("config test.yml: entities[0].type1: column 'email' is listed twice across key/tracked/type1");
    }

    @Test
    void everyProblemIsListedInOneException() {
        String yaml = """
                postgres:
                  url: embedded
                  pool-size: -1
                entities:
                  - name: customer
                    format: protobuf
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    lateness-horizon: 30 days
                    columns: {customer_id: text, email: txt}
                    system-columns: {valid_form: start_ts, valid_to: valid_from}
                  - name: customer
                    topic: crm.customers2
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """;
        ConfigException e = (ConfigException) org.assertj.core.api.Assertions.catchThrowable(() -> parse(yaml));

        assertThat(e.problems()).containsExactly(
                "postgres.pool-size: must be at least 1, got -1",
                "entities[0].topic: required",
                "entities[0].format: \"protobuf\" is none of json, avro, debezium-json, debezium-avro, seed-json",
                "entities[0].lateness-horizon: \"30 days\" is not an ISO-8601 duration or \"unlimited\"",
                "entities[0].columns.email: unknown type \"txt\" (supported: text, varchar(n), smallint, integer, bigint, numeric,"
                        + " numeric(p,s), double precision, boolean, date, timestamp, timestamptz, time, uuid, jsonb, bytea)",
                "entities[0].system-columns.valid_form: unknown system column (known: surrogate_key, valid_from, valid_to,"
                        + " is_current, is_deleted, record_hash, source_topic, source_partition, source_offset, loaded_at, event_seq, known_from, end_known_from)",
                "entities[0].system-columns: \"valid_from\" is used for both valid_from and valid_to");
        assertThat(e.getMessage()).startsWith("config test.yml: 7 problems: postgres.pool-size: must be at least 1, got -1; entities[0].topic: required; ");
    }

    @Test
    void duplicateEntityNamesAndTablesAreRefused() {
        String yaml = DESIGN_EXAMPLE + """
                  - name: customer
                    topic: crm.customers.v2
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """;
        assertThat(refusal(yaml)).isEqualTo("config test.yml: 2 problems:"
                + " entities[1].name: \"customer\" is already the name of entities[0];"
                + " entities[1].table: \"dim_customer\" is already the table of entities[0]");
    }

    @Test
    void duplicateKeyAndBrokenYamlAreRefusedWithTheirPosition() {
        assertThat(refusal(designWith("    table: dim_customer ", "    table: dim_customer\n    table: dim_customer2 ")))
                .isEqualTo("config test.yml: duplicate key 'table' at line 12, column 10");
        assertThat(refusal("postgres: [url: embedded\n"))
                .startsWith("config test.yml: not valid YAML at line 2, column 1: ");
        assertThat(refusal("")).isEqualTo("config test.yml: the file is empty (expected kafka:, postgres: and entities:)");
    }

    @Test
    void unknownEntityNameListsTheConfiguredOnes() {
        assertThatThrownBy(() -> parse(DESIGN_EXAMPLE).entity("order"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("no entity named \"order\" in the config (configured: customer)");
    }

    @Test
    void loadReadsAFileAndNamesAMissingOne(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, DESIGN_EXAMPLE);

        assertThat(DimstreamConfig.load(file, ENV)).isEqualTo(parse(DESIGN_EXAMPLE));
        assertThatThrownBy(() -> DimstreamConfig.load(dir.resolve("nope.yml"), ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config " + dir.resolve("nope.yml") + ": file not found");
    }

    @Test
    void describeMaskedShowsTheEffectiveConfigWithoutThePassword() {
        String yaml = designWith("url: jdbc:postgresql://127.0.0.1:5432/dimstream",
                "url: jdbc:postgresql://127.0.0.1:5432/dimstream?user=postgres&password=${DIMSTREAM_PG_PASSWORD}");

        String described = parse(yaml).describeMasked();

        assertThat(described).doesNotContain("s3cret").isEqualTo("""
                kafka:
                  bootstrap-servers: embedded
                postgres:
                  url: jdbc:postgresql://127.0.0.1:5432/dimstream?user=postgres&password=****
                  user: postgres
                  password: '****'
                  pool-size: 10
                load:
                  batch-size: 100000
                entities:
                  - name: customer
                    topic: crm.customers
                    format: json
                    schema-evolution: strict
                    table: dim_customer
                    key:
                      - customer_id
                    tracked:
                      - email
                      - full_name
                      - country
                      - city
                      - loyalty_tier
                    type1:
                      - last_login
                    lateness-horizon: P30D
                    columns:
                      customer_id: text
                      email: text
                      full_name: text
                      country: text
                      city: text
                      loyalty_tier: text
                      last_login: bigint
                    system-columns:
                      surrogate_key: surrogate_key
                      valid_from: valid_from
                      valid_to: valid_to
                      is_current: is_current
                      is_deleted: is_deleted
                      record_hash: record_hash
                      source_topic: source_topic
                      source_partition: source_partition
                      source_offset: source_offset
                      loaded_at: loaded_at
                      event_seq: event_seq
                      known_from: known_from
                      end_known_from: end_known_from
                """);
    }

    @Test
    void postgresConfigToStringMasksThePassword() {
        assertThat(new PostgresConfig("jdbc:postgresql://h/db?password=x1", "u", "x2", 10).toString())
                .isEqualTo("PostgresConfig[url=jdbc:postgresql://h/db?password=****, user=u, password=****, poolSize=10]");
    }

    @Test
    void describedConfigParsesBackToTheSameConfig() {
        DimstreamConfig config = parse(DESIGN_EXAMPLE.replace("${DIMSTREAM_PG_PASSWORD}", "literal"));
        String described = config.describeMasked().replace("'****'", "literal");

        assertThat(parse(described)).isEqualTo(config);
    }

    @Test
    void sinkFailureHandlingKeysParseSurviveDescribeAndAreRefusedNamingTheField() {
        String base = DESIGN_EXAMPLE.replace("${DIMSTREAM_PG_PASSWORD}", "literal");
        DimstreamConfig config = parse(base + "sink:\n  on-offset-out-of-range: skip\n  stuck-after: PT30S\n");

        assertThat(config.sink()).isEqualTo(new SinkConfig(Optional.empty(), 20_000, java.time.Duration.ofMillis(200), 2,
                SinkConfig.OffsetOutOfRange.SKIP, java.time.Duration.ofSeconds(30)));
        assertThat(parse(config.describeMasked().replace("'****'", "literal"))).isEqualTo(config);
        assertThat(refusal(base + "sink:\n  on-offset-out-of-range: reset\n  stuck-after: 5m\n"))
                .isEqualTo("config test.yml: 2 problems: sink.on-offset-out-of-range: \"reset\" is neither stop nor skip;"
                        + " sink.stuck-after: \"5m\" is not an ISO-8601 duration (e.g. PT5M)");
        assertThat(refusal(base + "sink:\n  batch-size: 1073741824\n  parallelism: 4\n"))
                .isEqualTo("config test.yml: sink.batch-size: 1073741824 times sink.parallelism 4 records must fit one poll"
                        + " (at most 2147483647)");
    }

    @Test
    void sinkSectionSetsBatchingAndGroupAndSurvivesDescribe() {
        DimstreamConfig config = parse(DESIGN_EXAMPLE.replace("${DIMSTREAM_PG_PASSWORD}", "literal")
                + "sink:\n  group-id: crm-sink\n  batch-size: 800\n  batch-max-wait: PT0.05S\n  parallelism: 3\n");

        assertThat(config.sink()).isEqualTo(new SinkConfig(Optional.of("crm-sink"), 800, java.time.Duration.ofMillis(50), 3,
                ConfigDefaults.SINK.onOffsetOutOfRange(), ConfigDefaults.SINK.stuckAfter()));
        assertThat(parse(config.describeMasked().replace("'****'", "literal"))).isEqualTo(config);
    }

    @Test
    void withoutASinkSectionTheSinkDefaultsApply() {
        assertThat(parse(DESIGN_EXAMPLE).sink()).isEqualTo(ConfigDefaults.SINK);
    }

    @Test
    void badSinkSettingsAreRefusedNamingTheField() {
        assertThat(refusal(DESIGN_EXAMPLE + "sink:\n  batch-size: 0\n  batch-max-wait: 200ms\n  group-id: ' '\n  parallelism: 0\n"))
                .isEqualTo("config test.yml: 4 problems: sink.group-id: must not be empty; sink.batch-size: must be at least 1, got 0; "
                        + "sink.batch-max-wait: \"200ms\" is not an ISO-8601 duration (e.g. PT0.2S); sink.parallelism: must be at least 1, got 0");
    }

    /** The design example's entity as a spec builder, spelled out (not read from the config under test). */
    private static EntitySpec.Builder designCustomer() {
        return EntitySpec.builder()
                .name("customer")
                .table("dim_customer")
                .key(List.of("customer_id"))
                .tracked(List.of("email", "full_name", "country", "city", "loyalty_tier"))
                .type1(List.of("last_login"))
                .columns(parse(DESIGN_EXAMPLE).entities().get(0).columns())
                .latenessHorizon(Optional.of(java.time.Duration.ofDays(30)));
    }

    @Test
    void surrogateKeyIndexDefaultsToFalseAndTrueReachesTheSpecAndSurvivesDescribe() {
        assertThat(parse(DESIGN_EXAMPLE).entities().get(0).toEntitySpec().surrogateKeyIndex()).isFalse();
        assertThat(parse(DESIGN_EXAMPLE).describeMasked()).doesNotContain("surrogate-key-index");

        DimstreamConfig config = parse(designWith("    table: dim_customer ", "    surrogate-key-index: true\n    table: dim_customer ")
                .replace("${DIMSTREAM_PG_PASSWORD}", "literal"));
        EntitySpec spec = config.entities().get(0).toEntitySpec();
        assertThat(spec).isEqualTo(designCustomer().surrogateKeyIndex(true).build());
        assertThat(config.describeMasked()).contains("  surrogate-key-index: true\n");
        assertThat(parse(config.describeMasked().replace("'****'", "literal"))).isEqualTo(config);
    }

    @Test
    void aSurrogateKeyIndexThatIsNotABooleanIsRefusedNamingTheField() {
        assertThat(refusal(designWith("    table: dim_customer ", "    surrogate-key-index: sometimes\n    table: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].surrogate-key-index: \"sometimes\" is not true or false");
    }

    @Test
    void tablePartitionsDefaultsToPlainTablesAndAGivenCountReachesTheSpecAndSurvivesDescribe() {
        assertThat(parse(DESIGN_EXAMPLE).entities().get(0).toEntitySpec().tablePartitions()).isZero();
        assertThat(parse(DESIGN_EXAMPLE).describeMasked()).doesNotContain("table-partitions");

        DimstreamConfig config = parse(designWith("    table: dim_customer ", "    table-partitions: 8\n    table: dim_customer ")
                .replace("${DIMSTREAM_PG_PASSWORD}", "literal"));
        EntitySpec spec = config.entities().get(0).toEntitySpec();
        assertThat(spec).isEqualTo(designCustomer().tablePartitions(8).build());
        assertThat(config.describeMasked()).contains("  table-partitions: 8\n");
        assertThat(parse(config.describeMasked().replace("'****'", "literal"))).isEqualTo(config);
    }

    @Test
    void aTablePartitionsCountOutOfRangeOrWithTheSurrogateKeyIndexIsRefusedNamingTheField() {
        assertThat(refusal(designWith("    table: dim_customer ", "    table-partitions: 1\n    table: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].table-partitions: must be 0 (plain tables) or 2 to 64, got 1");
        assertThat(refusal(designWith("    table: dim_customer ", "    table-partitions: 65\n    table: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].table-partitions: must be 0 (plain tables) or 2 to 64, got 65");
        assertThat(refusal(designWith("    table: dim_customer ", "    table-partitions: many\n    table: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].table-partitions: \"many\" is not an integer");
        assertThat(refusal(designWith("    table: dim_customer ",
                "    table-partitions: 4\n    surrogate-key-index: true\n    table: dim_customer ")))
                .isEqualTo("config test.yml: entities[0].table-partitions: not with surrogate-key-index: true (a unique index on a "
                        + "partitioned table must contain its partition key, the entity's key; create a plain index on surrogate_key "
                        + "yourself if you look versions up by it)");
    }

    @Test
    void loadBatchSizeIsReadAndATopLevelBatchSizeIsAnUnknownKey() {
        DimstreamConfig config = parse(DESIGN_EXAMPLE + "load:\n  batch-size: 700\n");
        assertThat(config.batchSize()).isEqualTo(700);
        assertThat(config.describeMasked()).contains("load:\n  batch-size: 700\n").doesNotContain("\nbatch-size");

        assertThat(refusal(DESIGN_EXAMPLE + "batch-size: 500\n"))
                .isEqualTo("config test.yml: batch-size: unknown key (known here: admin, connectors, entities, kafka, load, postgres, service, sink)");
    }

    @Test
    void aLoadSectionsUnknownKeyOrShapeIsRefused() {
        assertThat(refusal(DESIGN_EXAMPLE + "load:\n  batch-size: 0\n  size: 3\n"))
                .isEqualTo("config test.yml: load.size: unknown key (known here: batch-size)");
        assertThat(refusal(DESIGN_EXAMPLE + "load: 5\n"))
                .isEqualTo("config test.yml: load: expected a mapping of keys, got \"5\"");
    }
}
