package io.dimstream.config.keys;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.AddressRange;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.FeedMode;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.config.model.SinkConfig;
import io.dimstream.config.model.UndeclaredColumns;
import io.dimstream.db.secrets.Secrets;
import static io.dimstream.config.keys.ConfigKey.key;

import com.fasterxml.jackson.core.type.TypeReference;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The table of the config file's keys: each declared once here, with its type, default,
 * validation and description. {@link io.dimstream.config.ConfigReader} reads by it, {@link DimstreamConfig#describeMasked()}
 * prints by it, and {@code docs/config-reference.md} is generated from it ({@link ConfigReference}).
 * The entities' keys ({@code entities[]}, {@link #ENTITY}) are read the same way for each item
 * ({@link EntityValues}); the rules that involve several of them are {@link EntityRules}'.
 *
 * <p>To add a key: declare it here in its section's list, read it where its section's record is
 * built, and regenerate the reference ({@code ConfigReferenceTest} says how).
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    // ---- kafka:

    public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS = key("kafka", "bootstrap-servers")
            .doc("`host:port,...` of the Kafka cluster; `embedded` starts a broker inside the process. Required when `kafka:` is given.")
            .text("");
    public static final ConfigKey<Map<String, String>> KAFKA_CLIENT = key("kafka", "client")
            .doc("Settings every Kafka client of dimstream gets (Kafka Streams, the sink, topic creation, replay, DLQ mirror, "
                    + "re-drive, publish-snapshot): only settings common to consumers, producers and admin clients "
                    + "(`security.protocol`, `sasl.*`, `ssl.*`, `client.dns.lookup`, `request.timeout.ms`, ...); others are "
                    + "refused naming the field. Secrets are masked wherever the config is printed.")
            .of("mapping of Kafka property to value", ConfigKey.PROPERTIES, Map.of(), "none",
                    (path, raw, problems) -> properties(path, "a Kafka client property", raw, problems), ConfigKeys::printProperties);
    public static final ConfigKey<Map<String, String>> KAFKA_STREAMS = key("kafka", "streams")
            .doc("Kafka Streams settings as Kafka names them, applied over dimstream's defaults and after `kafka.client` "
                    + "(`commit.interval.ms` default 1000, `statestore.cache.max.bytes` default 0, `num.stream.threads`, "
                    + "`producer.linger.ms`, ...); unknown names are refused; `processing.guarantee`, serdes, `application.id`, "
                    + "`state.dir` are dimstream's.")
            .of("mapping of Kafka Streams property to value", ConfigKey.PROPERTIES, Map.of(), "none",
                    (path, raw, problems) -> properties(path, "a Kafka Streams property", raw, problems), ConfigKeys::printProperties);

    public static final ConfigSection KAFKA = new ConfigSection("kafka",
            "Where the source topics live. Optional in the file; the Kafka verbs (`run`, `replay`, `publish-snapshot`) need it.",
            List.of(KAFKA_BOOTSTRAP_SERVERS, KAFKA_CLIENT, KAFKA_STREAMS), List.of());

    // ---- postgres:

    public static final ConfigKey<String> POSTGRES_URL = key("postgres", "url")
            .doc("A `jdbc:postgresql:` URL, or `embedded` to start PostgreSQL inside the process. Required.")
            .text("");
    public static final ConfigKey<String> POSTGRES_USER = key("postgres", "user")
            .doc("The database user; may be left out when the URL carries it (or for `embedded`).")
            .text("");
    public static final ConfigKey<String> POSTGRES_PASSWORD = key("postgres", "password").secret()
            .doc("The user's password: `${VAR}` reads the environment, a literal works too; a placeholder such as "
                    + "`change-me` is refused. Never printed.")
            .text("");
    public static final ConfigKey<Integer> POSTGRES_POOL_SIZE = key("postgres", "pool-size")
            .doc("Connections of the pool (HikariCP's own default). `run` needs at least `sink.parallelism` + 3.")
            .atLeast(1, PostgresConfig.DEFAULT_POOL_SIZE);

    public static final ConfigSection POSTGRES = new ConfigSection("postgres",
            "The database the history tables live in. Required.",
            List.of(POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_POOL_SIZE), List.of());

    // ---- load:

    public static final ConfigKey<Integer> LOAD_BATCH_SIZE = key("load", "batch-size")
            .doc("Events per writer transaction of `dimstream load`, at most (its `--batch-size` overrides it): a batch "
                    + "also ends when its events' estimated heap reaches a sixth of the JVM's maximum heap, so wide rows "
                    + "make smaller batches instead of an `OutOfMemoryError`.")
            .atLeast(1, 100_000);

    public static final ConfigSection LOAD = new ConfigSection("load",
            "The `load` verb (files into the history tables, without Kafka).", List.of(LOAD_BATCH_SIZE), List.of());

    // ---- sink:

    public static final ConfigKey<String> SINK_GROUP_ID = key("sink", "group-id")
            .doc("The sink's consumer group, also the key of its offsets in `dimstream.sink_offsets`; instances sharing it "
                    + "share the partitions.")
            .of("text", ConfigKey.STRING, null, "`<application-id>-sink`", ConfigKeys::nonEmpty, s -> s);
    public static final ConfigKey<Integer> SINK_BATCH_SIZE = key("sink", "batch-size")
            .doc("Events per PostgreSQL transaction, at most. `sink.batch-size` times `sink.parallelism` must fit one poll "
                    + "(2147483647).")
            .atLeast(1, 20_000);
    public static final ConfigKey<Duration> SINK_BATCH_MAX_WAIT = key("sink", "batch-max-wait")
            .doc("How long a partition's first buffered record waits for its batch to fill before the batch is applied anyway.")
            .positiveDuration(Duration.ofMillis(200), "PT0.2S");
    public static final ConfigKey<Integer> SINK_PARALLELISM = key("sink", "parallelism")
            .doc("Connections applying the due batches of different partitions at once (each its own transaction); "
                    + "`run` refuses it when `postgres.pool-size` < parallelism + 3 (the service's other work).")
            .atLeast(1, 2);
    public static final ConfigKey<SinkConfig.OffsetOutOfRange> SINK_ON_OFFSET_OUT_OF_RANGE = key("sink", "on-offset-out-of-range")
            .doc("A partition whose stored offset left the changes topic's log (retention deleted changes never applied, or "
                    + "the topic was recreated): `stop` (the partition stops, health says so) or `skip` (moves to the log's "
                    + "start; the gap is recorded in `dimstream.sink_gaps` and shown by the admin; replay the source for it).")
            .oneOf("`stop` or `skip`", SinkConfig.OffsetOutOfRange.STOP, "`stop`", SinkConfig.OffsetOutOfRange.class);
    public static final ConfigKey<Duration> SINK_STUCK_AFTER = key("sink", "stuck-after")
            .doc("A partition with records left and no committed batch this long is \"stuck\": `/health/ready` answers 503 "
                    + "naming it, `dimstream_sink_partitions_stuck` counts it.")
            .positiveDuration(Duration.ofMinutes(5), "PT5M");

    public static final ConfigSection SINK = new ConfigSection("sink",
            "The streaming sink (changes topics into PostgreSQL): its batching and what it does when a partition cannot go on. "
                    + "Optional.",
            List.of(SINK_GROUP_ID, SINK_BATCH_SIZE, SINK_BATCH_MAX_WAIT, SINK_PARALLELISM, SINK_ON_OFFSET_OUT_OF_RANGE,
                    SINK_STUCK_AFTER), List.of());

    // ---- admin:

    public static final ConfigKey<String> ADMIN_HOST = key("admin", "host")
            .doc("Address the web admin listens on; `0.0.0.0` listens on every interface.")
            .nonEmptyText(AdminConfig.DEFAULT_HOST, true);
    public static final ConfigKey<Integer> ADMIN_PORT = key("admin", "port")
            .doc("Port of the web admin.")
            .between(1, 65535, AdminConfig.DEFAULT_PORT);
    public static final ConfigKey<Duration> ADMIN_SESSION_TIMEOUT = key("admin", "session-timeout")
            .doc("Idle time before a login expires (htmx polls do not count as use).")
            .positiveDuration(AdminConfig.DEFAULT_SESSION_TIMEOUT, "PT8H");
    public static final ConfigKey<Duration> ADMIN_SESSION_LIFETIME = key("admin", "session-lifetime")
            .doc("A login ends this long after it began, however busy.")
            .positiveDuration(AdminConfig.DEFAULT_SESSION_LIFETIME, "PT12H");
    public static final ConfigKey<Boolean> ADMIN_SECURE_COOKIE = key("admin", "secure-cookie")
            .doc("`true`: cookies get `Secure` and responses HSTS (max-age one year), so serve the admin over HTTPS; `false` "
                    + "only for plain http on a loopback address (`dimstream demo`, the compose stack).")
            .bool(AdminConfig.DEFAULT_SECURE_COOKIE);
    public static final ConfigKey<List<AddressRange>> ADMIN_TRUSTED_PROXIES = key("admin", "trusted-proxies")
            .doc("Reverse proxies (IP literals or CIDR blocks, never host names) whose `X-Forwarded-For` is believed for "
                    + "login throttling; none: the connection's address is the client.")
            .of("list of IP addresses or CIDR blocks", ConfigKey.STRING_LIST, List.of(), "none", ConfigKeys::addressRanges,
                    l -> l.stream().map(AddressRange::toString).toList());
    public static final ConfigKey<Duration> ADMIN_STATEMENT_TIMEOUT = key("admin", "statement-timeout")
            .doc("Longest SQL statement of a page, API call or CSV export (PostgreSQL cancels it: 503); 1 ms to 24 h.")
            .of("ISO-8601 duration", ConfigKey.STRING, AdminConfig.DEFAULT_STATEMENT_TIMEOUT,
                    ConfigKey.isoDuration(AdminConfig.DEFAULT_STATEMENT_TIMEOUT), (path, raw, problems) -> {
                        Duration d = ConfigKey.positiveDuration(path, (String) raw, "PT30S", problems);
                        if (d != null && (d.toMillis() < 1 || d.compareTo(AdminSection.MAX_STATEMENT_TIMEOUT) > 0)) {
                            problems.add(path + ": must be between 1 ms and " + AdminSection.MAX_STATEMENT_TIMEOUT + ", got " + raw);
                            return null;
                        }
                        return d;
                    }, Duration::toString);
    public static final ConfigKey<Integer> ADMIN_CSV_MAX_MIB = key("admin", "csv-max-mib")
            .doc("Largest CSV export in MiB, spooled to a temporary file first.")
            .between(1, AdminSection.MAX_CSV_MIB, AdminConfig.DEFAULT_CSV_MAX_MIB);
    public static final ConfigKey<List<AdminSection.RawUser>> ADMIN_USERS = key("admin", "users")
            .doc("Logins: `name`, `role` (`admin` may change state, `viewer` reads only) and either `password-hash` (bcrypt, "
                    + "e.g. `htpasswd -bnBC 10 \"\" PASSWORD | tr -d ':'`) or `password: ${VAR}` (a plain password, only from the "
                    + "environment, 12 characters to 72 bytes). At least one user or one API token is required. Masked when printed.")
            .of("list of users", new TypeReference<List<AdminSection.RawUser>>() { }, List.of(), "none",
                    (path, raw, problems) -> cast(raw), l -> l);
    public static final ConfigKey<List<AdminSection.RawToken>> ADMIN_API_TOKENS = key("admin", "api-tokens")
            .doc("Bearer tokens of the JSON API: `name`, `role`, `token: ${VAR}` (only from the environment, at least 24 "
                    + "characters). Masked when printed.")
            .of("list of API tokens", new TypeReference<List<AdminSection.RawToken>>() { }, List.of(), "none",
                    (path, raw, problems) -> cast(raw), l -> l);

    public static final ConfigSection ADMIN = new ConfigSection("admin",
            "The web admin: its address, sessions, users and API tokens. Required by `dimstream admin`, ignored by the other verbs.",
            List.of(ADMIN_HOST, ADMIN_PORT, ADMIN_SESSION_TIMEOUT, ADMIN_SESSION_LIFETIME, ADMIN_SECURE_COOKIE, ADMIN_TRUSTED_PROXIES,
                    ADMIN_STATEMENT_TIMEOUT, ADMIN_CSV_MAX_MIB, ADMIN_USERS, ADMIN_API_TOKENS), List.of());

    // ---- service:

    public static final ConfigKey<String> SERVICE_APPLICATION_ID = key("service", "application-id")
            .doc("The deployment's identity on the Kafka cluster: the first part of the name of every topic dimstream owns "
                    + "(`<application-id>.<entity>.changes`, `<application-id>.<entity>.dlq`, Kafka Streams' "
                    + "`<application-id>.<client>-...-repartition` and `-changelog`) and of its groups (each Kafka Streams "
                    + "client `<application-id>.<client>`: an entity's own, or a `streams-client`, `<application-id>-sink`, `<application-id>-dlq-mirror`). Instances with the same id are one deployment and share the partitions; give "
                    + "each deployment on a cluster its own id (staging and production with one config included), or they read each "
                    + "other's changes (an existing deployment's upgrade to these names: docs/operations.md). `run --application-id` "
                    + "overrides it.")
            .nonEmptyText("dimstream", false);
    public static final ConfigKey<Integer> SERVICE_PARTITIONS = key("service", "partitions")
            .doc("Partitions of the topics dimstream creates (changes, DLQ; the source topics too when the broker is embedded). "
                    + "`run --partitions` overrides it.")
            .atLeast(1, 3);
    public static final ConfigKey<Duration> SERVICE_PRUNE_INTERVAL = key("service", "prune-interval")
            .doc("How often the event memory is pruned beyond each entity's lateness horizon. `run --prune-interval` overrides it.")
            .positiveDuration(Duration.ofHours(1), "PT1H");

    public static final ConfigSection SERVICE = new ConfigSection("service",
            "How `dimstream run` runs: what were command-line flags only. Optional; a flag given to `run` overrides the file.",
            List.of(SERVICE_APPLICATION_ID, SERVICE_PARTITIONS, SERVICE_PRUNE_INTERVAL), List.of(ServiceReplayKeys.SECTION));

    // ---- entities:

    /** Bound item by item to {@link #ENTITY}'s keys by {@link io.dimstream.config.ConfigReader}: its value is one {@link EntityValues} per item. */
    public static final ConfigKey<List<EntityValues>> ENTITIES = key("", "entities")
            .doc("The entities, each a source topic and its history table: see the `entities[]` section. At least one is required, unless `connectors:` gives them.")
            .of("list of entities", ConfigKey.ANY, null, "", (path, raw, problems) -> cast(raw), l -> l);

    /** The top level: the sections and {@code entities}. */
    public static final ConfigSection ROOT = new ConfigSection("",
            "One YAML file; `${VAR}` reads the environment (an unset variable is an error naming it, `$${` is a literal `${`); "
                    + "a wrong config is refused at startup with a message naming every wrong field by its path.",
            List.of(ENTITIES, ConnectorKeys.CONNECTORS), List.of(KAFKA, POSTGRES, LOAD, SINK, SERVICE, ADMIN));

    // ---- entities[]: each key read through EntityValues (its value, default and single-key checks here); the checks
    // that involve several keys (format- or mode-only keys, columns/key/tracked consistency) are EntityRules'.

    /** {@code lateness-horizon: unlimited}. */
    public static final String UNLIMITED = "unlimited";

    /** The section of the entities' keys. */
    static final String ENTITY_SECTION = "entities[]";

    public static final ConfigKey<String> ENTITY_NAME = key(ENTITY_SECTION, "name")
            .doc("The entity's name (unique), as the verbs and the admin name it. It names Kafka topics too (its state stores' changelogs, its repartition topic, and its Kafka Streams client unless `streams-client` names another): letters, digits, `.`, `_` and `-`.")
            .kafkaName("required", "Kafka topics: its state stores' changelogs and its repartition topic");
    public static final ConfigKey<String> ENTITY_TOPIC = key(ENTITY_SECTION, "topic")
            .doc("The source topic.")
            .requiredText();
    public static final ConfigKey<EventFormat> ENTITY_FORMAT = key(ENTITY_SECTION, "format")
            .doc("How the topic's records are read: the native JSON event, change rows of older SCD2 jobs, the native event as Avro (Confluent wire format), or Debezium's envelope in JSON or Avro.")
            .oneOf("`json`, `seed-json`, `avro`, `debezium-json` or `debezium-avro`", EventFormat.JSON, "`json`", EventFormat.class);
    public static final ConfigKey<FeedMode> ENTITY_MODE = key(ENTITY_SECTION, "mode")
            .doc("`changes`: every record is an event that says what changed; `snapshot`: the topic carries periodic full slices of the table (flat JSON rows, only with `format: json`).")
            .oneOf("`changes` or `snapshot`", FeedMode.CHANGES, "`changes`", FeedMode.class);
    public static final ConfigKey<String> ENTITY_TABLE = key(ENTITY_SECTION, "table")
            .doc("The history table: created if missing, validated if present; `schema.table` allowed; at most 49 bytes without its schema.")
            .requiredText();
    public static final ConfigKey<List<String>> ENTITY_KEY = key(ENTITY_SECTION, "key")
            .doc("The business key; composite keys allowed; a NULL key part is rejected.")
            .columnList("list of column names", true);
    public static final ConfigKey<List<String>> ENTITY_TRACKED = key(ENTITY_SECTION, "tracked")
            .doc("The type-2 columns (a change makes a new version); `\"*\"`: every column of `columns` but the key and type-1 ones (and `except`).")
            .columnList("list of column names, or `\"*\"`", true);
    public static final ConfigKey<List<String>> ENTITY_TYPE1 = key(ENTITY_SECTION, "type1")
            .doc("Type-1 columns: overwritten in the current version, no new version.")
            .columnList("list of column names", false);
    /** Its items are checked by {@link EntityRules#tracked} (they must not be columns). */
    public static final ConfigKey<List<String>> ENTITY_EXCEPT = key(ENTITY_SECTION, "except")
            .doc("With `tracked: \"*\"` only: source fields the entity leaves out (dropped when read); they never become columns.")
            .of("list of field names", ConfigKey.STRING_LIST, null, "none", (path, raw, problems) -> cast(raw), l -> l);
    public static final ConfigKey<Optional<Duration>> ENTITY_LATENESS_HORIZON = key(ENTITY_SECTION, "lateness-horizon")
            .doc("How late an event may come and still be placed in the history; an event beyond it goes to quarantine.")
            .of("ISO-8601 duration or `unlimited`", ConfigKey.STRING, Optional.of(EntitySpec.DEFAULT_LATENESS_HORIZON),
                    ConfigKey.isoDuration(EntitySpec.DEFAULT_LATENESS_HORIZON), (path, raw, problems) -> {
                        if (raw.equals(UNLIMITED)) {
                            return Optional.empty();
                        }
                        try {
                            return Optional.of(Duration.parse((String) raw));
                        } catch (java.time.format.DateTimeParseException e) {
                            problems.add(path + ": \"" + raw + "\" is not an ISO-8601 duration or \"" + UNLIMITED + "\"");
                            return null;
                        }
                    }, h -> h.map(ConfigKey::isoDuration).orElse(UNLIMITED));
    public static final ConfigKey<EntityKeyParsers.Columns> ENTITY_COLUMNS = key(ENTITY_SECTION, "columns")
            .doc("The columns and their PostgreSQL types: `text`, `varchar(n)`, `smallint`, `integer`, `bigint`, `numeric`, `numeric(p,s)`, `double precision`, `boolean`, `date`, `timestamp`, `timestamptz`, `time`, `uuid`, `jsonb`, `bytea` (quote `\"numeric(p,s)\"` inside `{...}`: YAML splits at the comma).")
            .of("mapping of column name to type", ConfigKey.STRING_MAP, null, "required", EntityKeyParsers::columns,
                    EntityKeyParsers.Columns::printed);
    public static final ConfigKey<SystemColumns> ENTITY_SYSTEM_COLUMNS = key(ENTITY_SECTION, "system-columns")
            .doc("Renames of the system columns: `surrogate_key`, `valid_from`, `valid_to`, `is_current`, `is_deleted`, `record_hash`, `source_topic`, `source_partition`, `source_offset`, `loaded_at`, `event_seq` (the arrival order of the event that started the version: the event memory keeps no row of its own for it), `known_from` and `end_known_from` (transaction time, with `transaction-time: true`).")
            .of("mapping of system column to name", ConfigKey.STRING_MAP, SystemColumns.DEFAULTS, "the default names",
                    EntityKeyParsers::systemColumns, EntityKeyParsers::printSystemColumns);
    public static final ConfigKey<Boolean> ENTITY_SURROGATE_KEY_INDEX = key(ENTITY_SECTION, "surrogate-key-index")
            .doc("`true`: the created table also gets a unique index on `surrogate_key`, for lookups of single versions by it (each version written then costs ~20% more); applies when dimstream creates the table.")
            .bool(false);
    public static final ConfigKey<Integer> ENTITY_TABLE_PARTITIONS = key(ENTITY_SECTION, "table-partitions")
            .doc("`N` (2 to " + EntitySpec.MAX_TABLE_PARTITIONS + "): the created table and its event memory are hash-partitioned by the key into N partitions each (`<table>_p0` ..), for tables of several million versions, written on several connections or with a large event memory (docs/configuration.md, Big tables); `0`: plain tables. Applies when dimstream creates the tables (a replay with `--target shadow` rebuilds an existing one so); not with `surrogate-key-index: true`.")
            // the range is EntitySpec's to check (one message, also for specs built in code): ConfigReader names the field
            .of("integer, 0 or 2 to " + EntitySpec.MAX_TABLE_PARTITIONS, ConfigKey.INTEGER, 0, "0", (path, raw, problems) -> (Integer) raw,
                    n -> n);
    public static final ConfigKey<Boolean> ENTITY_PARTITIONED_BY_KEY = key(ENTITY_SECTION, "partitioned-by-key")
            .doc("`true`: producers already put every event of a key on one partition (keyed by it): the repartition step is skipped, less latency. Not with `mode: snapshot`.")
            .bool(false);
    public static final ConfigKey<String> ENTITY_STREAMS_CLIENT = key(ENTITY_SECTION, "streams-client")
            .doc("The Kafka Streams client the entity runs on, whose application id is `<application-id>.<streams-client>` (its consumer group, internal topics, state directory, stream thread and producer): entities naming the same one share it, and one entity's outage (a schema registry down, a stuck partition) then delays the others on it. Letters, digits, `.`, `_` and `-`. Renaming it starts a new group that reads the source topics from their start again (every event a no-op in the table). docs/operations.md, One entity's outage holds no other.")
            .kafkaName("the entity's name (a connector's tables: the connector's name)", "Kafka topics and a group");
    public static final ConfigKey<UndeclaredColumns> ENTITY_UNDECLARED_COLUMNS = key(ENTITY_SECTION, "undeclared-columns")
            .doc("A field of a source record that is no column, and that `new-columns` does not make one: `ignore` drops it, counted in `dimstream_fields_ignored_total{entity,field}` and logged once per field, the record lands; `reject` sends the record to the DLQ naming the field. Given (either value), `new-columns` defaults to `ignore`.")
            .oneOf("`ignore` or `reject`", UndeclaredColumns.IGNORE, "`ignore`", UndeclaredColumns.class);
    public static final ConfigKey<String> ENTITY_SNAPSHOT_TIME_FIELD = key(ENTITY_SECTION, "snapshot-time-field")
            .doc("`mode: snapshot` only: the row field holding the slice's instant (ISO-8601 with offset or epoch milliseconds); it must not be a column.")
            .fieldName("text", "`" + EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD + "`");
    public static final ConfigKey<CdcOptions.EventTime> ENTITY_EVENT_TIME = key(ENTITY_SECTION, "event-time")
            .doc("Where an event's time comes from: Debezium's commit time, the time the connector processed it, or a field of the row image (of `data` for json/avro; the time-field for seed-json). Not with `mode: snapshot`.")
            .of("`source.ts_ms`, `ts_ms` or `field NAME`", ConfigKey.STRING, null,
                    "`source.ts_ms` for the debezium formats, else the event's `event_time`", (path, raw, problems) -> {
                        String t = ((String) raw).trim();
                        if (t.equals("source.ts_ms") || t.equals("ts_ms")) {
                            return t.equals("ts_ms") ? CdcOptions.EventTime.TS_MS : CdcOptions.EventTime.SOURCE_TS_MS;
                        }
                        if (t.matches("field\\s+\\S+")) {
                            return CdcOptions.EventTime.field(t.substring(5).trim());
                        }
                        problems.add(path + ": \"" + raw + "\" is none of source.ts_ms, ts_ms, field NAME");
                        return null;
                    }, CdcOptions.EventTime::configText);
    public static final ConfigKey<CdcOptions.OnTruncate> ENTITY_ON_TRUNCATE = key(ENTITY_SECTION, "on-truncate")
            .doc("debezium-json/-avro: what a truncate of the source table (op t) does: `ignore` (counted and logged) or `delete-all` (every key live at its time is deleted then; not with `event-time: field NAME`).")
            .oneOf("`ignore` or `delete-all`", CdcOptions.OnTruncate.IGNORE, "`ignore`", CdcOptions.OnTruncate.class);
    public static final ConfigKey<Optional<String>> ENTITY_UNAVAILABLE_VALUE = key(ENTITY_SECTION, "unavailable-value")
            .doc("A value meaning \"not sent, unchanged\" (Debezium's TOAST placeholder); `none` turns it off.")
            .of("text, or `none`", ConfigKey.STRING, null, "`" + CdcOptions.DEBEZIUM_UNAVAILABLE_VALUE + "` for the debezium formats, else none",
                    (path, raw, problems) -> {
                        String s = (String) raw;
                        if (s.isEmpty()) {
                            problems.add(path + ": must be a value, or none to turn it off");
                        }
                        return s.equals("none") ? Optional.empty() : Optional.of(s);
                    }, v -> v.orElse("none"));
    /** {@code all} or the list as written; its columns are checked by {@link EntityRules#cdc}. */
    public static final ConfigKey<Object> ENTITY_IGNORE_NULL_UPDATES = key(ENTITY_SECTION, "ignore-null-updates")
            .doc("Attributes whose NULL or missing field in an upsert means \"unchanged\" (partial updates).")
            .of("`all` or list of column names", ConfigKey.ANY, null, "none", (path, raw, problems) -> {
                if ("all".equals(raw) || raw instanceof List<?>) {
                    return raw;
                }
                problems.add(path + ": expected all or a list of columns, got " + raw);
                return null;
            }, v -> v);
    /** Checked column by column against the columns by {@link EntityRules#cdc}. */
    public static final ConfigKey<Map<String, String>> ENTITY_ENCODINGS = key(ENTITY_SECTION, "encodings")
            .doc("debezium-json/-avro: per column, the semantic type its values are encoded as in records without a schema, checked against the column's type.")
            .of("mapping of column to encoding", ConfigKey.STRING_MAP, null, "none", (path, raw, problems) -> cast(raw), m -> m);
    public static final ConfigKey<CdcOptions.SchemaEvolution> ENTITY_SCHEMA_EVOLUTION = key(ENTITY_SECTION, "schema-evolution")
            .doc("`lenient`: a field the source stops sending keeps its last value (no version); `strict`: it is NULL.")
            .oneOf("`lenient` or `strict`", null, "`lenient` for debezium-* and avro, `strict` for json and seed-json",
                    CdcOptions.SchemaEvolution.class);
    public static final ConfigKey<CdcOptions.NewColumns> ENTITY_NEW_COLUMNS = key(ENTITY_SECTION, "new-columns")
            .doc("What a field the source sends that the entity does not declare becomes while running: a `tracked` column (its changes make versions), a `type1` column (kept current in place, no versions) or nothing (`ignore`: `undeclared-columns` says what happens to the field). `tracked` and `type1` only with `schema-evolution: lenient`, not with `undeclared-columns`.")
            .oneOf("`tracked`, `type1` or `ignore`", null, "lenient: `tracked` with `tracked: \"*\"`, `type1` with a list of columns, `ignore` with `undeclared-columns` given; strict: `ignore`",
                    CdcOptions.NewColumns.class);
    public static final ConfigKey<String> ENTITY_OP_FIELD = key(ENTITY_SECTION, "op-field")
            .doc("`format: seed-json` only: the field holding the operation.")
            .fieldName("text", "`" + SeedJsonOptions.DEFAULTS.opField() + "`");
    public static final ConfigKey<String> ENTITY_TIME_FIELD = key(ENTITY_SECTION, "time-field")
            .doc("`format: seed-json` only: the field holding the change's time.")
            .fieldName("text", "`" + SeedJsonOptions.DEFAULTS.timeField() + "`");
    public static final ConfigKey<EntityKeyParsers.OpValues> ENTITY_OP_VALUES = key(ENTITY_SECTION, "op-values")
            .doc("`format: seed-json` only: the operation values, matched ignoring case.")
            .of("mapping `upsert`/`delete` to lists of values", new TypeReference<EntityKeyParsers.OpValues>() { }, null,
                    "`{upsert: [CREATE, UPDATE], delete: [DELETE]}`", EntityKeyParsers::opValues, EntityKeyParsers.OpValues::printed);
    public static final ConfigKey<String> ENTITY_VALUE_DESERIALIZER = key(ENTITY_SECTION, "value-deserializer")
            .doc("`format: avro` or `debezium-avro` only: any `Deserializer<GenericRecord>`, e.g. Confluent's `KafkaAvroDeserializer`.")
            .of("Java class name", ConfigKey.STRING, AvroOptions.DEFAULT_VALUE_DESERIALIZER, "`" + AvroOptions.DEFAULT_VALUE_DESERIALIZER + "`",
                    EntityKeyParsers::javaClassName, s -> s);
    /** Its settings are checked against the deserializer by {@link EntityRules#avro}; printed masked. */
    public static final ConfigKey<Map<String, String>> ENTITY_DESERIALIZER_CONFIG = key(ENTITY_SECTION, "deserializer-config")
            .doc("`format: avro` or `debezium-avro` only: the deserializer's settings (`schema.registry.url`, `basic.auth.user.info: ${VAR}`, ...); with the default deserializer an unknown setting is refused. Secrets are masked when printed.")
            .of("mapping of setting to value", ConfigKey.STRING_MAP, null, "none", (path, raw, problems) -> cast(raw),
                    ConfigKeys::printProperties);

    /** One item of {@code entities:}, bound by {@link io.dimstream.config.ConfigReader} into an {@link EntityValues}. */
    public static final ConfigSection ENTITY = new ConfigSection(ENTITY_SECTION,
            "One item of `entities:`: a source topic and the history table it feeds. A wrong key is refused naming it with the "
                    + "entity's index, e.g. `entities[0].lateness-horizon: \"P3X\" is not an ISO-8601 duration or \"unlimited\"`.",
            List.of(ENTITY_NAME, ENTITY_TOPIC, ENTITY_FORMAT, ENTITY_MODE,
                    ENTITY_TABLE, ENTITY_KEY, ENTITY_TRACKED, ENTITY_TYPE1,
                    ENTITY_EXCEPT, ENTITY_LATENESS_HORIZON, ENTITY_COLUMNS, ENTITY_SYSTEM_COLUMNS,
                    ENTITY_SURROGATE_KEY_INDEX, ENTITY_TABLE_PARTITIONS, EntityTableKeys.VALID_TO_CURRENT, EntityTableKeys.TRANSACTION_TIME, ENTITY_PARTITIONED_BY_KEY, ENTITY_STREAMS_CLIENT, ENTITY_UNDECLARED_COLUMNS, ENTITY_SNAPSHOT_TIME_FIELD,
                    ENTITY_EVENT_TIME, ENTITY_ON_TRUNCATE, ENTITY_UNAVAILABLE_VALUE, ENTITY_IGNORE_NULL_UPDATES,
                    ENTITY_ENCODINGS, ENTITY_SCHEMA_EVOLUTION, ENTITY_NEW_COLUMNS, ENTITY_OP_FIELD,
                    ENTITY_TIME_FIELD, ENTITY_OP_VALUES, ENTITY_VALUE_DESERIALIZER, ENTITY_DESERIALIZER_CONFIG,
                    RetentionKeys.HISTORY_RETENTION, RetentionKeys.HISTORY_GRAIN, RetentionKeys.HISTORY_GRAIN_AFTER), List.of());

    /** Every section the reference documents, in its order. */
    public static List<ConfigSection> documented() {
        List<ConfigSection> all = new java.util.ArrayList<>(ROOT.flatten());
        all.add(ENTITY);
        all.add(ConnectorKeys.SECTION);
        return all;
    }

    /** The keys of {@code service.replay:} (a class of their own so that {@link #SERVICE} can hold their section). */
    public static final class ServiceReplayKeys {

        private ServiceReplayKeys() {
        }

        /** Shortest lease: a heartbeat every third of it must still be possible. */
        public static final Duration MIN_LEASE = Duration.ofMillis(300);

        public static final ConfigKey<Integer> BATCH_SIZE = key("service.replay", "batch-size")
                .doc("Records per replay-job transaction. `run --replay-batch-size` overrides it.")
                .atLeast(1, 5000);
        public static final ConfigKey<Duration> PAUSE = key("service.replay", "pause")
                .doc("Pause between two replay-job batches: a throttle that leaves PostgreSQL to the live sink. "
                        + "`run --replay-pause` overrides it.")
                .durationOrZero(Duration.ZERO, "PT0.05S");
        public static final ConfigKey<Duration> LEASE = key("service.replay", "lease")
                .doc("How long a replay job stays this instance's without a heartbeat: a job of an instance that died is resumed "
                        + "by another after this; at least 300 ms. `run --replay-lease` overrides it.")
                .of("ISO-8601 duration", ConfigKey.STRING, Duration.ofSeconds(30), "PT30S", (path, raw, problems) -> {
                    Duration d = ConfigKey.positiveDuration(path, (String) raw, "PT30S", problems);
                    if (d != null && d.compareTo(MIN_LEASE) < 0) {
                        problems.add(path + ": must be at least " + MIN_LEASE + ", got " + raw);
                        return null;
                    }
                    return d;
                }, Duration::toString);
        public static final ConfigKey<Duration> POLL = key("service.replay", "poll")
                .doc("How often an idle replay worker looks for a job (and the DLQ re-drive executor for requests). "
                        + "`run --replay-poll` overrides it.")
                .positiveDuration(Duration.ofSeconds(2), "PT2S");

        /** {@code keep-replaced-tables: forever}: retired tables are never dropped by the service. */
        public static final String FOREVER = "forever";
        public static final ConfigKey<Optional<Duration>> KEEP_REPLACED_TABLES = key("service.replay", "keep-replaced-tables")
                .doc("How long the tables shadow replays leave behind are kept: `T_replaced_<job>` (the table a swap replaced) and "
                        + "`T_shadow_<job>` of a failed job, each with its `_events`; older ones are dropped by the service (audited "
                        + "as user `system`). `forever`: only an admin drops them (the replay page).")
                .of("ISO-8601 duration or `forever`", ConfigKey.STRING, Optional.empty(), FOREVER, (path, raw, problems) -> {
                    if (raw.equals(FOREVER)) {
                        return Optional.empty();
                    }
                    Duration d = ConfigKey.positiveDuration(path, (String) raw, "P7D", problems);
                    return d == null ? null : Optional.of(d);
                }, k -> k.map(ConfigKey::isoDuration).orElse(FOREVER));

        public static final ConfigSection SECTION = new ConfigSection("service.replay",
                "The replay worker, the DLQ mirror and the re-drive executor of `dimstream run`.",
                List.of(BATCH_SIZE, PAUSE, LEASE, POLL, KEEP_REPLACED_TABLES), List.of());
    }

    // ---- readers shared by keys

    private static String nonEmpty(String path, Object raw, List<String> problems) {
        String s = (String) raw;
        if (s.isBlank()) {
            problems.add(path + ": must not be empty");
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    static <T> T cast(Object raw) {
        return (T) raw;
    }

    /** {@code kafka.streams:} and {@code kafka.client:}: scalar values only; whether Kafka knows a name is checked where Kafka is. */
    private static Map<String, String> properties(String path, String what, Object raw, List<String> problems) {
        Map<String, String> m = new LinkedHashMap<>();
        ((Map<?, ?>) raw).forEach((k, v) -> {
            if (v == null || v instanceof Map || v instanceof List) {
                problems.add(path + "." + k + ": expected a single value (" + what + "), got "
                        + (v == null ? "nothing" : v instanceof Map ? "a mapping" : "a list"));
            } else {
                m.put(String.valueOf(k), String.valueOf(v));
            }
        });
        return m;
    }

    static Object printProperties(Map<String, String> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((name, value) -> out.put(name, Secrets.maskValue(name, value)));
        return out;
    }

    /** {@code admin.trusted-proxies}: IP literals or CIDR blocks, never host names. */
    private static List<AddressRange> addressRanges(String path, Object raw, List<String> problems) {
        List<?> list = (List<?>) raw;
        List<AddressRange> out = new java.util.ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < list.size(); i++) {
            String s = (String) list.get(i);
            java.util.Optional<AddressRange> r = AddressRange.parse(s);
            if (r.isEmpty()) {
                problems.add(path + "[" + i + "]: \"" + s + "\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)");
                ok = false;
            } else {
                out.add(r.get());
            }
        }
        return ok ? out : null;
    }
}
