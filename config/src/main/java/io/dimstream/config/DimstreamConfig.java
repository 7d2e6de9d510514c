package io.dimstream.config;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConnectorKeys;
import io.dimstream.config.keys.EntityKeyParsers;
import io.dimstream.config.keys.EntityTableKeys;
import io.dimstream.config.keys.RetentionKeys;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.config.model.ServiceConfig;
import io.dimstream.config.model.SinkConfig;
import io.dimstream.config.model.UndeclaredColumns;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.secrets.Secrets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The dimstream config file (DESIGN section 4), parsed and validated.
 *
 * <pre>
 * kafka:                       # optional here; the Kafka verbs need it
 *   bootstrap-servers: embedded          # or host:port,...
 *   client:                              # optional: every Kafka client dimstream makes (security etc.)
 *     security.protocol: SASL_SSL
 *     sasl.mechanism: SCRAM-SHA-512
 *     sasl.jaas.config: ${KAFKA_JAAS}    # masked when printed
 *   streams: {commit.interval.ms: 1000}  # optional: Kafka Streams properties
 * postgres:
 *   url: jdbc:postgresql://127.0.0.1:5432/dimstream   # or "embedded"
 *   user: postgres                       # optional when the URL carries it
 *   password: ${DIMSTREAM_PG_PASSWORD}   # ${VAR} reads the environment, $${ is a literal ${
 *   pool-size: 10                        # default 10
 * load:
 *   batch-size: 100000                   # events per writer transaction in "load", default 100000
 * sink:                                  # optional: the streaming sink's batching
 *   group-id: my-sink                    # default "&lt;application-id&gt;-sink"
 *   batch-size: 20000                    # events per PostgreSQL transaction, default 20000
 *   batch-max-wait: PT0.2S               # ISO-8601 duration, default 200 ms
 *   parallelism: 2                       # connections applying different partitions' batches at once, default 2
 *   on-offset-out-of-range: stop         # stored offset no longer in the log: stop the partition (default) | skip (gap recorded)
 *   stuck-after: PT5M                    # records left and no progress this long: reported stuck (health), default 5 minutes
 * service:                               # optional: how "run" runs; run's flags override it (see ServiceConfig)
 *   application-id: dimstream
 *   partitions: 3
 *   prune-interval: PT1H
 *   replay: {batch-size: 5000, pause: PT0S, lease: PT30S, poll: PT2S}
 * entities:
 *   - name: customer
 *     topic: crm.customers
 *     format: json                       # json (default) | avro | debezium-json | debezium-avro | seed-json
 *     table: dim_customer
 *     key: [customer_id]
 *     tracked: [email, full_name, country, city, loyalty_tier]
 *     type1: [last_login]                # optional
 *     lateness-horizon: P30D             # ISO-8601 duration or "unlimited"; default P30D
 *     columns: {customer_id: text, email: text, ...}
 *     system-columns: {valid_from: start_ts}   # optional renames, keys as in the default names
 *     surrogate-key-index: false         # default false; true: a unique index on surrogate_key when the table is created
 *     table-partitions: 0                # default 0; N: the created table and memory hash-partitioned by the key into N
 *     valid-to-current: null             # default null; infinity: open versions end at 'infinity'::timestamptz
 *     # format: seed-json only (see SeedJsonOptions):
 *     op-field: operation                # default "operation"
 *     time-field: change_time            # default "change_time"
 *     op-values: {upsert: [CREATE, UPDATE], delete: [DELETE]}   # the defaults
 *     # format: avro | debezium-avro only (see AvroOptions):
 *     value-deserializer: io.dimstream.schemas.serde.AvroWireDeserializer   # the default
 *     deserializer-config: {schema.registry.url: "mock://demo"}
 * admin:                                 # optional: the web admin (see AdminConfig)
 *   port: 8080
 *   secure-cookie: true                  # the default; false only for plain HTTP on a loopback address
 *   users: [{name: alice, role: admin, password-hash: "$2a$10$..."}]
 *   api-tokens: [{name: airflow, role: admin, token: ${DIMSTREAM_AIRFLOW_TOKEN}}]
 * </pre>
 *
 * A wrong config is refused with one {@link ConfigException} naming every problem by field path.
 * Every key but the entities' is declared once in {@link ConfigKeys}, which drives the reading,
 * the defaults, {@link #describeMasked()} and {@code docs/config-reference.md}.
 */
public record DimstreamConfig(
        Optional<KafkaConfig> kafka,
        PostgresConfig postgres,
        List<EntityConfig> entities,
        int batchSize,
        SinkConfig sink,
        Optional<AdminConfig> admin,
        ServiceConfig service,
        List<ConnectorConfig> connectors) {

    public DimstreamConfig {
        entities = List.copyOf(entities);
        if (service == null) {
            service = ConfigDefaults.SERVICE;
        }
        connectors = connectors == null ? List.of() : List.copyOf(connectors);
    }

    /** A config without {@code connectors:}. */
    public DimstreamConfig(Optional<KafkaConfig> kafka, PostgresConfig postgres, List<EntityConfig> entities, int batchSize,
                           SinkConfig sink, Optional<AdminConfig> admin, ServiceConfig service) {
        this(kafka, postgres, entities, batchSize, sink, admin, service, List.of());
    }

    /** A config without a {@code service:} section (its defaults). */
    public DimstreamConfig(Optional<KafkaConfig> kafka, PostgresConfig postgres, List<EntityConfig> entities, int batchSize,
                           SinkConfig sink, Optional<AdminConfig> admin) {
        this(kafka, postgres, entities, batchSize, sink, admin, ConfigDefaults.SERVICE);
    }

    /** This config with another {@code service:} section (e.g. with {@code run}'s flags over the file's). */
    public DimstreamConfig withService(ServiceConfig s) {
        return new DimstreamConfig(kafka, postgres, entities, batchSize, sink, admin, s, connectors);
    }

    /** This config with another {@code admin:} section. */
    public DimstreamConfig withAdmin(Optional<AdminConfig> a) {
        return new DimstreamConfig(kafka, postgres, entities, batchSize, sink, a, service, connectors);
    }

    /**
     * This config with the entities of the tables its connectors found (the hand-declared ones
     * first, in config order, then the found ones in the order found): what every part that names
     * entities works on ({@link ConnectorEntities#resolve}).
     */
    public DimstreamConfig withEntities(List<EntityConfig> all) {
        return new DimstreamConfig(kafka, postgres, all, batchSize, sink, admin, service, connectors);
    }

    /** A config without an {@code admin:} section. */
    public DimstreamConfig(Optional<KafkaConfig> kafka, PostgresConfig postgres, List<EntityConfig> entities, int batchSize,
                           SinkConfig sink) {
        this(kafka, postgres, entities, batchSize, sink, Optional.empty());
    }

    /** The {@code admin:} section, required by the web admin. */
    public AdminConfig requireAdmin() {
        return admin.orElseThrow(() -> new ConfigException("admin: required to start the web admin (port, users; "
                + "see docs/config-reference.md)"));
    }

    /** A config with the sink's defaults. */
    public DimstreamConfig(Optional<KafkaConfig> kafka, PostgresConfig postgres, List<EntityConfig> entities, int batchSize) {
        this(kafka, postgres, entities, batchSize, ConfigDefaults.SINK);
    }

    /** What a verb reads of the file: the {@code admin:} section only when it serves the admin UI or validates the whole file. */
    public enum Sections {
        /** Every section, {@code admin:} included ({@code dimstream admin}, {@code dimstream config}). */
        ALL,
        /**
         * Every section but {@code admin:}, which is left out unread: a verb that does not serve the
         * admin UI needs neither its secrets' environment variables nor its settings.
         */
        WITHOUT_ADMIN
    }

    /** Reads and validates a config file, every section; {@code env} resolves {@code ${VAR}}. */
    public static DimstreamConfig load(Path yaml, Map<String, String> env) {
        return load(yaml, env, Sections.ALL);
    }

    /** Reads and validates the {@code sections} of a config file; {@code env} resolves {@code ${VAR}}. */
    public static DimstreamConfig load(Path yaml, Map<String, String> env, Sections sections) {
        String text;
        try {
            text = Files.readString(yaml, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config " + yaml, List.of("file not found"));
        } catch (IOException e) {
            throw new ConfigException("config " + yaml, List.of("cannot read the file: " + e));
        }
        return ConfigReader.read(text, "config " + yaml, env, sections);
    }

    /**
     * Parses config text.
     *
     * @param source names the text in error messages, e.g. {@code config demo/demo.yml}
     */
    public static DimstreamConfig parse(String yaml, String source, Map<String, String> env) {
        return ConfigReader.read(yaml, source, env, Sections.ALL);
    }

    /** The entity called {@code name}. */
    public EntityConfig entity(String name) {
        return entities.stream().filter(e -> e.name().equals(name)).findFirst()
                .orElseThrow(() -> new ConfigException("no entity named \"" + name + "\" in the config (configured: "
                        + entities.stream().map(EntityConfig::name).collect(Collectors.joining(", ")) + ")"));
    }

    /**
     * The effective config (defaults filled in) as YAML, safe to log: every value goes through
     * {@link Secrets} (passwords, tokens, the JAAS config, {@code deserializer-config} secrets such
     * as {@code basic.auth.user.info}, and secrets inside URLs are {@value Secrets#MASK}).
     */
    public String describeMasked() {
        Map<String, Object> root = new LinkedHashMap<>();
        kafka.ifPresent(k -> {
            Map<String, Object> km = new LinkedHashMap<>();
            ConfigKeys.KAFKA_BOOTSTRAP_SERVERS.putInto(km, k.bootstrapServers());
            if (!k.client().isEmpty()) {
                ConfigKeys.KAFKA_CLIENT.putInto(km, k.client());
            }
            if (!k.streams().isEmpty()) {
                ConfigKeys.KAFKA_STREAMS.putInto(km, k.streams());
            }
            root.put(ConfigKeys.KAFKA.name(), km);
        });
        Map<String, Object> pg = new LinkedHashMap<>();
        ConfigKeys.POSTGRES_URL.putInto(pg, postgres.url());
        ConfigKeys.POSTGRES_USER.putInto(pg, postgres.user());
        ConfigKeys.POSTGRES_PASSWORD.putInto(pg, postgres.password());
        ConfigKeys.POSTGRES_POOL_SIZE.putInto(pg, postgres.poolSize());
        root.put(ConfigKeys.POSTGRES.name(), pg);
        Map<String, Object> load = new LinkedHashMap<>();
        ConfigKeys.LOAD_BATCH_SIZE.putInto(load, batchSize);
        root.put(ConfigKeys.LOAD.name(), load);
        if (!sink.equals(ConfigDefaults.SINK)) {
            Map<String, Object> sk = new LinkedHashMap<>();
            ConfigKeys.SINK_GROUP_ID.putInto(sk, sink.groupId().orElse(null));
            ConfigKeys.SINK_BATCH_SIZE.putInto(sk, sink.batchSize());
            ConfigKeys.SINK_BATCH_MAX_WAIT.putInto(sk, sink.batchMaxWait());
            ConfigKeys.SINK_PARALLELISM.putInto(sk, sink.parallelism());
            ConfigKeys.SINK_ON_OFFSET_OUT_OF_RANGE.putInto(sk, sink.onOffsetOutOfRange());
            ConfigKeys.SINK_STUCK_AFTER.putInto(sk, sink.stuckAfter());
            root.put(ConfigKeys.SINK.name(), sk);
        }
        if (!service.equals(ConfigDefaults.SERVICE)) {
            Map<String, Object> sv = new LinkedHashMap<>();
            ConfigKeys.SERVICE_APPLICATION_ID.putInto(sv, service.applicationId());
            ConfigKeys.SERVICE_PARTITIONS.putInto(sv, service.partitions());
            ConfigKeys.SERVICE_PRUNE_INTERVAL.putInto(sv, service.pruneInterval());
            Map<String, Object> rp = new LinkedHashMap<>();
            ConfigKeys.ServiceReplayKeys.BATCH_SIZE.putInto(rp, service.replay().batchSize());
            ConfigKeys.ServiceReplayKeys.PAUSE.putInto(rp, service.replay().pause());
            ConfigKeys.ServiceReplayKeys.LEASE.putInto(rp, service.replay().lease());
            ConfigKeys.ServiceReplayKeys.POLL.putInto(rp, service.replay().poll());
            ConfigKeys.ServiceReplayKeys.KEEP_REPLACED_TABLES.putInto(rp, service.replay().keepReplacedTables());
            sv.put(ConfigKeys.ServiceReplayKeys.SECTION.name(), rp);
            root.put(ConfigKeys.SERVICE.name(), sv);
        }
        root.put(ConfigKeys.ENTITIES.name(), entities.stream().map(DimstreamConfig::describe).toList());
        if (!connectors.isEmpty()) {
            root.put(ConnectorKeys.CONNECTORS.name(), connectors.stream().map(ConnectorKeys::describe).toList());
        }
        admin.ifPresent(a -> root.put(ConfigKeys.ADMIN.name(), describe(a)));
        try {
            return YAML_OUT.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot render the config as YAML", e);
        }
    }

    /** The {@code admin:} section as {@link #describeMasked} prints it: every account's secret masked. */
    private static Map<String, Object> describe(AdminConfig a) {
        Map<String, Object> ad = new LinkedHashMap<>();
        ConfigKeys.ADMIN_HOST.putInto(ad, a.host());
        ConfigKeys.ADMIN_PORT.putInto(ad, a.port());
        ConfigKeys.ADMIN_SESSION_TIMEOUT.putInto(ad, a.sessionTimeout());
        ConfigKeys.ADMIN_SESSION_LIFETIME.putInto(ad, a.sessionLifetime());
        ConfigKeys.ADMIN_SECURE_COOKIE.putInto(ad, a.secureCookie());
        ConfigKeys.ADMIN_TRUSTED_PROXIES.putInto(ad, a.trustedProxies());
        ConfigKeys.ADMIN_STATEMENT_TIMEOUT.putInto(ad, a.statementTimeout());
        ConfigKeys.ADMIN_CSV_MAX_MIB.putInto(ad, a.csvMaxMib());
        // the accounts' keys are those of ConfigReader.RawUser and RawToken; every secret of them masked
        ad.put(ConfigKeys.ADMIN_USERS.name(), a.users().stream().map(u -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", u.name());
            m.put("role", u.role().configName());
            m.put(u.passwordHash().isPresent() ? "password-hash" : "password", Secrets.MASK);
            return m;
        }).toList());
        ad.put(ConfigKeys.ADMIN_API_TOKENS.name(), a.apiTokens().stream().map(t -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", t.name());
            m.put("role", t.role().configName());
            m.put("token", Secrets.MASK);
            return m;
        }).toList());
        return ad;
    }

    private static final YAMLMapper YAML_OUT = YAMLMapper.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build();

    /** An entity as its keys print it (each through its {@link ConfigKeys} declaration), the defaults filled in. */
    private static Map<String, Object> describe(EntityConfig e) {
        Map<String, Object> m = new LinkedHashMap<>();
        ConfigKeys.ENTITY_NAME.putInto(m, e.name());
        ConfigKeys.ENTITY_TOPIC.putInto(m, e.topic());
        ConfigKeys.ENTITY_FORMAT.putInto(m, e.format());
        if (e.snapshot()) {
            ConfigKeys.ENTITY_MODE.putInto(m, e.mode());
            ConfigKeys.ENTITY_SNAPSHOT_TIME_FIELD.putInto(m, e.snapshotTimeField());
        }
        if (e.partitionedByKey()) {
            ConfigKeys.ENTITY_PARTITIONED_BY_KEY.putInto(m, true);
        }
        if (!e.streamsClient().equals(e.name())) {
            ConfigKeys.ENTITY_STREAMS_CLIENT.putInto(m, e.streamsClient());
        }
        if (e.rejectUndeclaredColumns()) {
            ConfigKeys.ENTITY_UNDECLARED_COLUMNS.putInto(m, UndeclaredColumns.REJECT);
        }
        if (e.surrogateKeyIndex()) {
            ConfigKeys.ENTITY_SURROGATE_KEY_INDEX.putInto(m, true);
        }
        if (e.tablePartitions() > 0) {
            ConfigKeys.ENTITY_TABLE_PARTITIONS.putInto(m, e.tablePartitions());
        }
        if (!e.transactionTime()) {
            EntityTableKeys.TRANSACTION_TIME.putInto(m, false);
        }
        if (e.validToCurrent() != ValidToCurrent.NULL) {
            EntityTableKeys.VALID_TO_CURRENT.putInto(m, e.validToCurrent());
        }
        CdcOptions cdc = e.cdc();
        if (cdc.eventTime().kind() != CdcOptions.EventTime.Kind.DEFAULT) {
            ConfigKeys.ENTITY_EVENT_TIME.putInto(m, cdc.eventTime());
        }
        if (cdc.unavailableValue().isPresent()) {
            ConfigKeys.ENTITY_UNAVAILABLE_VALUE.putInto(m, cdc.unavailableValue());
        }
        if (cdc.ignoreNullUpdates().any()) {
            ConfigKeys.ENTITY_IGNORE_NULL_UPDATES.putInto(m,
                    cdc.ignoreNullUpdates().all() ? "all" : List.copyOf(cdc.ignoreNullUpdates().columns()));
        }
        if (cdc.onTruncate() != CdcOptions.OnTruncate.IGNORE) {
            ConfigKeys.ENTITY_ON_TRUNCATE.putInto(m, cdc.onTruncate());
        }
        if (!cdc.encodings().isEmpty()) {
            ConfigKeys.ENTITY_ENCODINGS.putInto(m, cdc.encodings());
        }
        ConfigKeys.ENTITY_SCHEMA_EVOLUTION.putInto(m, cdc.schemaEvolution());
        if (cdc.schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT) {
            ConfigKeys.ENTITY_NEW_COLUMNS.putInto(m, cdc.newColumns());
        }
        if (!cdc.except().isEmpty()) {
            ConfigKeys.ENTITY_EXCEPT.putInto(m, cdc.except());
        }
        ConfigKeys.ENTITY_TABLE.putInto(m, e.table());
        ConfigKeys.ENTITY_KEY.putInto(m, e.key());
        ConfigKeys.ENTITY_TRACKED.putInto(m, e.tracked());
        ConfigKeys.ENTITY_TYPE1.putInto(m, e.type1());
        ConfigKeys.ENTITY_LATENESS_HORIZON.putInto(m, e.latenessHorizon());
        ConfigKeys.ENTITY_COLUMNS.putInto(m, new EntityKeyParsers.Columns(e.columns(), e.modifiers()));
        ConfigKeys.ENTITY_SYSTEM_COLUMNS.putInto(m, e.systemColumns());
        RetentionKeys.putInto(m, e.retention());
        if (e.format() == EventFormat.SEED_JSON) {
            ConfigKeys.ENTITY_OP_FIELD.putInto(m, e.seedJson().opField());
            ConfigKeys.ENTITY_TIME_FIELD.putInto(m, e.seedJson().timeField());
            ConfigKeys.ENTITY_OP_VALUES.putInto(m, new EntityKeyParsers.OpValues(e.seedJson().upsertValues(), e.seedJson().deleteValues()));
        }
        if (e.format().avro()) {
            ConfigKeys.ENTITY_VALUE_DESERIALIZER.putInto(m, e.avro().valueDeserializer());
            // basic.auth.user.info and the like are secrets; a URL may carry user:password@ (its printer masks them)
            ConfigKeys.ENTITY_DESERIALIZER_CONFIG.putInto(m, e.avro().deserializerConfig());
        }
        return m;
    }

}
