package io.dimstream.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.secrets.Secrets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Turns config text into a {@link DimstreamConfig}: YAML to a tree, {@code ${VAR}} substitution,
 * binding to loosely typed {@code Raw*} records (unknown keys refused), then validation of every
 * field into the typed records, collecting all problems before failing.
 */
final class ConfigReader {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ConfigReader.class);

    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();

    private static final java.util.regex.Pattern JAVA_CLASS_NAME = java.util.regex.Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    /** The config file's keys; each renames one {@link SystemColumns} field. */
    private static final Map<String, Function<SystemColumns, String>> SYSTEM_COLUMN_KEYS = systemColumnKeys();

    private final String source;
    private final List<String> problems = new ArrayList<>();
    private final List<String> warnings;

    private ConfigReader(String source, List<String> warnings) {
        this.source = source;
        this.warnings = warnings;
    }

    static DimstreamConfig read(String yaml, String source, Map<String, String> env) {
        List<String> warnings = new ArrayList<>();
        DimstreamConfig config = read(yaml, source, env, warnings);
        warnings.forEach(w -> LOG.warn("{}", w));
        return config;
    }

    /** @param warnings receives what is accepted but should change (deprecated keys) */
    static DimstreamConfig read(String yaml, String source, Map<String, String> env, List<String> warnings) {
        return new ConfigReader(source, warnings).read(yaml, env);
    }

    private DimstreamConfig read(String yaml, Map<String, String> env) {
        JsonNode tree;
        try {
            tree = MAPPER.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw fail(syntaxProblem(e));
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw fail("the file is empty (expected kafka:, postgres: and entities:)");
        }
        if (!tree.isObject()) {
            throw fail("expected a mapping of keys (kafka:, postgres:, entities:) at the top level");
        }
        Set<String> fromEnv = AdminSection.secretsFromEnvironment(tree);
        problems.addAll(EnvSubstitution.apply(tree, env));
        ConfigValues values = new ConfigValues(problems);
        bind(ConfigKeys.ROOT, tree, values);
        if (!problems.isEmpty()) {
            throw fail(); // the file's shape is wrong: what it means cannot be judged
        }
        DimstreamConfig config = validate(values, fromEnv);
        if (!problems.isEmpty()) {
            throw fail();
        }
        return config;
    }

    /**
     * Binds a section of the tree to the {@link ConfigKeys} table: a name that is neither a key nor
     * a section here is refused naming the known ones; each key's value is bound by Jackson to the
     * key's raw type, a value of the wrong kind refused naming its path.
     */
    private void bind(ConfigSection section, JsonNode node, ConfigValues values) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return;
        }
        if (!node.isObject()) {
            problems.add(section.path() + ": expected a mapping of keys, got " + kind(node));
            return;
        }
        values.sectionGiven(section);
        Set<String> known = section.knownNames();
        node.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                problems.add(join(section.path(), name) + ": unknown key (known here: " + String.join(", ", known) + ")");
            }
        });
        for (ConfigKey<?> key : section.keys()) {
            JsonNode v = node.get(key.name());
            if (v == null || v.isNull()) {
                continue;
            }
            try {
                values.putRaw(key, MAPPER.readerFor(key.raw()).readValue(v));
            } catch (java.io.IOException e) {
                problems.add(e instanceof JsonProcessingException j ? bindingProblem(j, v, key.path()) : key.path() + ": " + e);
            }
        }
        for (ConfigSection inner : section.sections()) {
            bind(inner, node.get(inner.name()), values);
        }
    }

    private static String join(String section, String name) {
        return section.isEmpty() ? name : section + "." + name;
    }

    private DimstreamConfig validate(ConfigValues values, Set<String> secretsFromEnv) {
        Optional<KafkaConfig> kafka = Optional.empty();
        if (values.has(ConfigKeys.KAFKA)) {
            String servers = values.required(ConfigKeys.KAFKA_BOOTSTRAP_SERVERS);
            kafka = Optional.of(new KafkaConfig(servers, values.get(ConfigKeys.KAFKA_STREAMS), values.get(ConfigKeys.KAFKA_CLIENT)));
        }
        PostgresConfig postgres = postgres(values);
        int batchSize = loadBatchSize(values);
        List<EntityConfig> entities = new ArrayList<>();
        List<RawEntity> rawEntities = values.get(ConfigKeys.ENTITIES);
        if (rawEntities == null || rawEntities.isEmpty()) {
            problems.add("entities: at least one entity is required");
        } else {
            Map<String, Integer> names = new HashMap<>();
            Map<String, Integer> tables = new HashMap<>();
            for (int i = 0; i < rawEntities.size(); i++) {
                EntityConfig e = entity("entities[" + i + "]", rawEntities.get(i));
                if (e != null) {
                    unique("entities[" + i + "].name", e.name(), names, i);
                    unique("entities[" + i + "].table", e.table(), tables, i);
                    entities.add(e);
                }
            }
        }
        Optional<AdminConfig> admin = values.has(ConfigKeys.ADMIN)
                ? Optional.of(new AdminSection(problems, secretsFromEnv).admin(values)) : Optional.empty();
        return new DimstreamConfig(kafka, postgres, entities, batchSize, sink(values), admin, service(values));
    }

    /** {@code service:} (the defaults when absent): its keys, then {@code service.replay:}'s, problems in that order. */
    private static ServiceConfig service(ConfigValues values) {
        String applicationId = values.get(ConfigKeys.SERVICE_APPLICATION_ID);
        int partitions = values.get(ConfigKeys.SERVICE_PARTITIONS);
        Duration pruneInterval = values.get(ConfigKeys.SERVICE_PRUNE_INTERVAL);
        ServiceConfig.Replay replay = new ServiceConfig.Replay(values.get(ConfigKeys.ServiceReplayKeys.BATCH_SIZE),
                values.get(ConfigKeys.ServiceReplayKeys.PAUSE), values.get(ConfigKeys.ServiceReplayKeys.LEASE),
                values.get(ConfigKeys.ServiceReplayKeys.POLL));
        return new ServiceConfig(applicationId, partitions, pruneInterval, replay);
    }

    /** {@code load.batch-size}, or the deprecated top-level {@code batch-size} (with a warning), not both. */
    private int loadBatchSize(ConfigValues values) {
        if (values.given(ConfigKeys.BATCH_SIZE)) {
            if (values.given(ConfigKeys.LOAD_BATCH_SIZE)) {
                problems.add(ConfigKeys.BATCH_SIZE.path() + ": the old name of " + ConfigKeys.LOAD_BATCH_SIZE.path()
                        + ", which is given too: keep only " + ConfigKeys.LOAD_BATCH_SIZE.path());
            } else {
                warnings.add(source + ": " + ConfigKeys.BATCH_SIZE.path() + " is deprecated, write " + ConfigKeys.LOAD_BATCH_SIZE.path()
                        + " (load:\n  batch-size: ...) instead");
                return values.get(ConfigKeys.BATCH_SIZE);
            }
        }
        return values.get(ConfigKeys.LOAD_BATCH_SIZE);
    }

    private SinkConfig sink(ConfigValues values) {
        if (!values.has(ConfigKeys.SINK)) {
            return SinkConfig.DEFAULTS;
        }
        Optional<String> group = Optional.ofNullable(values.get(ConfigKeys.SINK_GROUP_ID));
        int size = values.get(ConfigKeys.SINK_BATCH_SIZE);
        Duration wait = values.get(ConfigKeys.SINK_BATCH_MAX_WAIT);
        int parallelism = values.get(ConfigKeys.SINK_PARALLELISM);
        if ((long) size * parallelism > Integer.MAX_VALUE) {
            problems.add(ConfigKeys.SINK_BATCH_SIZE.path() + ": " + size + " times " + ConfigKeys.SINK_PARALLELISM.path() + " "
                    + parallelism + " records must fit one poll (at most " + Integer.MAX_VALUE + ")");
        }
        SinkConfig.OffsetOutOfRange outOfRange = values.get(ConfigKeys.SINK_ON_OFFSET_OUT_OF_RANGE);
        Duration stuckAfter = values.get(ConfigKeys.SINK_STUCK_AFTER);
        return new SinkConfig(group, size, wait, parallelism, outOfRange, stuckAfter);
    }

    private PostgresConfig postgres(ConfigValues values) {
        if (!values.has(ConfigKeys.POSTGRES)) {
            problems.add("postgres: required (url, user, password)");
            return null;
        }
        String url = values.required(ConfigKeys.POSTGRES_URL);
        if (url != null && !url.equals(PostgresConfig.EMBEDDED) && !url.startsWith("jdbc:postgresql:")) {
            problems.add(ConfigKeys.POSTGRES_URL.path() + ": \"" + Secrets.mask(url) + "\" is neither a jdbc:postgresql: URL nor \"embedded\"");
        }
        int poolSize = values.get(ConfigKeys.POSTGRES_POOL_SIZE);
        String password = values.get(ConfigKeys.POSTGRES_PASSWORD);
        AdminSection.placeholderSecret(ConfigKeys.POSTGRES_PASSWORD.path(), password).ifPresent(problems::add);
        return new PostgresConfig(url, values.get(ConfigKeys.POSTGRES_USER), password, poolSize);
    }

    /** Null when the entity has problems (all of them recorded). */
    private EntityConfig entity(String at, RawEntity raw) {
        if (raw == null) {
            problems.add(at + ": expected an entity (name:, topic:, table:, key:, ...), got nothing");
            return null;
        }
        int before = problems.size();
        String name = required(at + ".name", raw.name());
        String topic = required(at + ".topic", raw.topic());
        String table = required(at + ".table", raw.table());
        EventFormat format = ConfigKeys.ENTITY_FORMAT.readAt(at + ".format", raw.format(), problems);
        List<String> key = columnList(at + ".key", raw.key(), true);
        List<String> tracked = columnList(at + ".tracked", raw.tracked(), true);
        List<String> type1 = columnList(at + ".type1", raw.type1(), false);
        Optional<Duration> horizon = ConfigKeys.ENTITY_LATENESS_HORIZON.readAt(at + ".lateness-horizon", raw.latenessHorizon(), problems);
        Map<String, TypeModifier> modifiers = new LinkedHashMap<>();
        Map<String, ColumnType> columns = columns(at + ".columns", raw.columns(), modifiers);
        tracked = trackedStar(at, tracked, key, type1, raw.except(), columns);
        List<String> except = raw.except() == null ? List.of() : raw.except();
        SystemColumns system = systemColumns(at + ".system-columns", raw.systemColumns());
        SeedJsonOptions seedJson = seedJson(at, raw, format, columns);
        AvroOptions avro = avro(at, raw, format);
        FeedMode mode = mode(at, raw, format);
        String snapshotTimeField = snapshotTimeField(at, raw, mode, columns);
        boolean partitionedByKey = ConfigKeys.ENTITY_PARTITIONED_BY_KEY.readAt(at + ".partitioned-by-key", raw.partitionedByKey(), problems);
        if (partitionedByKey && mode == FeedMode.SNAPSHOT) {
            problems.add(at + ".partitioned-by-key: not with mode: snapshot (its end-of-slice markers need the repartition step)");
        }
        Boolean ignoreUndeclared = ConfigKeys.ENTITY_UNDECLARED_COLUMNS.readAt(at + ".undeclared-columns", raw.undeclaredColumns(), problems);
        boolean surrogateKeyIndex = ConfigKeys.ENTITY_SURROGATE_KEY_INDEX.readAt(at + ".surrogate-key-index", raw.surrogateKeyIndex(), problems);
        boolean star = raw.tracked() != null && raw.tracked().size() == 1 && "*".equals(raw.tracked().get(0));
        CdcOptions cdc = cdc(at, raw, format, mode, key, columns, except, star);
        if (problems.size() > before) {
            return null;
        }
        EntityConfig e = EntityConfig.builder().name(name).topic(topic).format(format).table(table).key(key).tracked(tracked)
                .type1(type1).latenessHorizon(horizon).columns(columns).systemColumns(system).seedJson(seedJson).avro(avro)
                .mode(mode).snapshotTimeField(snapshotTimeField).partitionedByKey(partitionedByKey)
                .ignoreUndeclaredColumns(ignoreUndeclared).surrogateKeyIndex(surrogateKeyIndex)
                .modifiers(modifiers).cdc(cdc).build();
        try {
            e.toEntitySpec(); // built here only for EntitySpec's own checks, so later calls cannot fail
            EntitySpec.checkTableName(e.table());
        } catch (IllegalArgumentException ex) {
            problems.add(at + "." + ex.getMessage());
            return null;
        }
        return e;
    }

    /**
     * {@code tracked: "*"}: every column of {@code columns} that is not a key or type-1 column, in
     * {@code columns} order. {@code except:} (only with it) lists source fields the entity leaves
     * out: they are dropped when a record is read, and a field new to the source is not tracked
     * under that name.
     */
    private List<String> trackedStar(String at, List<String> tracked, List<String> key, List<String> type1, List<String> except,
                                     Map<String, ColumnType> columns) {
        boolean star = tracked.size() == 1 && "*".equals(tracked.get(0));
        if (!star) {
            if (tracked.contains("*")) {
                problems.add(at + ".tracked: \"*\" stands alone (every column but the key, type1 and except columns)");
            }
            if (except != null) {
                problems.add(at + ".except: only with tracked: \"*\"");
            }
            return tracked;
        }
        List<String> excluded = except == null ? List.of() : except;
        for (int i = 0; i < excluded.size(); i++) {
            String c = excluded.get(i);
            if (c == null || c.isBlank()) {
                problems.add(at + ".except[" + i + "]: must be a field name, got nothing");
            } else if (columns.containsKey(c)) {
                problems.add(at + ".except[" + i + "]: '" + c + "' is a column of the entity: except lists source fields the "
                        + "entity leaves out (dropped when read), so leave it out of columns or out of except");
            }
        }
        List<String> all = new ArrayList<>();
        for (String c : columns.keySet()) {
            if (!key.contains(c) && !type1.contains(c) && !excluded.contains(c)) {
                all.add(c);
            }
        }
        if (all.isEmpty() && !columns.isEmpty()) {
            problems.add(at + ".tracked: \"*\" leaves no column to track");
        }
        return all;
    }

    /**
     * {@code event-time}, {@code unavailable-value}, {@code ignore-null-updates}, {@code on-truncate},
     * {@code encodings} ({@link CdcOptions}); null after a problem (recorded).
     */
    private CdcOptions cdc(String at, RawEntity raw, EventFormat format, FeedMode mode, List<String> key,
                           Map<String, ColumnType> columns, List<String> except, boolean star) {
        CdcOptions d = CdcOptions.defaults(format);
        boolean debezium = format == EventFormat.DEBEZIUM_JSON || format == EventFormat.DEBEZIUM_AVRO;
        CdcOptions.EventTime eventTime = d.eventTime();
        if (raw.eventTime() != null && mode == FeedMode.SNAPSHOT) {
            // a slice row's time is its slice's instant: event-time would be silently ignored
            problems.add(at + ".event-time: not with mode: snapshot (a slice row's time is its snapshot-time-field)");
        } else if (raw.eventTime() != null) {
            String t = raw.eventTime().trim();
            if (t.equals("source.ts_ms") || t.equals("ts_ms")) {
                eventTime = t.equals("ts_ms") ? CdcOptions.EventTime.TS_MS : CdcOptions.EventTime.SOURCE_TS_MS;
                if (!debezium && format != null) {
                    problems.add(at + ".event-time: " + t + " is a field of Debezium's envelope: only with format: "
                            + EventFormat.DEBEZIUM_JSON.configName() + " or " + EventFormat.DEBEZIUM_AVRO.configName()
                            + " (this entity's format is " + format.configName() + ")");
                }
            } else if (t.matches("field\\s+\\S+")) {
                eventTime = CdcOptions.EventTime.field(t.substring(5).trim());
                if (format == EventFormat.SEED_JSON && raw.timeField() != null) {
                    problems.add(at + ".event-time: not with time-field (both name the field of the event time)");
                }
            } else {
                problems.add(at + ".event-time: \"" + raw.eventTime() + "\" is none of source.ts_ms, ts_ms, field NAME");
            }
        }
        Optional<String> unavailable = d.unavailableValue();
        if (raw.unavailableValue() != null) {
            if (raw.unavailableValue().isEmpty()) {
                problems.add(at + ".unavailable-value: must be a value, or none to turn it off");
            }
            unavailable = raw.unavailableValue().equals("none") ? Optional.empty() : Optional.of(raw.unavailableValue());
        }
        CdcOptions.NullUpdates nullUpdates = CdcOptions.NullUpdates.NONE;
        Object nu = raw.ignoreNullUpdates();
        if ("all".equals(nu)) {
            nullUpdates = CdcOptions.NullUpdates.ALL;
        } else if (nu instanceof List<?> list) {
            java.util.Set<String> cols = new java.util.LinkedHashSet<>();
            for (int i = 0; i < list.size(); i++) {
                Object c = list.get(i);
                if (!(c instanceof String s) || s.isBlank()) {
                    problems.add(at + ".ignore-null-updates[" + i + "]: must be a column name, got " + (c == null ? "nothing" : c));
                } else if (key.contains(s)) {
                    problems.add(at + ".ignore-null-updates[" + i + "]: '" + s + "' is a key column (a key is never NULL)");
                } else if (!columns.containsKey(s)) {
                    problems.add(at + ".ignore-null-updates[" + i + "]: '" + s + "' is not a column of the entity");
                } else {
                    cols.add(s);
                }
            }
            nullUpdates = new CdcOptions.NullUpdates(false, cols);
        } else if (nu != null) {
            problems.add(at + ".ignore-null-updates: expected all or a list of columns, got " + nu);
        }
        CdcOptions.OnTruncate onTruncate = CdcOptions.OnTruncate.IGNORE;
        if (raw.onTruncate() != null) {
            switch (raw.onTruncate().trim()) {
                case "ignore" -> onTruncate = CdcOptions.OnTruncate.IGNORE;
                case "delete-all" -> onTruncate = CdcOptions.OnTruncate.DELETE_ALL;
                default -> problems.add(at + ".on-truncate: \"" + raw.onTruncate() + "\" is neither ignore nor delete-all");
            }
            if (!debezium && format != null) {
                onlyWith(at, "on-truncate", EventFormat.DEBEZIUM_JSON.configName() + " or "
                        + EventFormat.DEBEZIUM_AVRO.configName(), format);
            }
            if (onTruncate == CdcOptions.OnTruncate.DELETE_ALL && eventTime.kind() == CdcOptions.EventTime.Kind.FIELD) {
                // a truncate event has no row image to read the field from; its commit time would be
                // another clock than the rows' field, and a delete-all at the wrong time deletes too much
                problems.add(at + ".on-truncate: delete-all needs the truncate's time, which a truncate event carries only in its "
                        + "envelope (it has no row image): not with event-time: " + eventTime.configText());
            }
        }
        Map<String, String> encodings = new LinkedHashMap<>();
        if (raw.encodings() != null) {
            raw.encodings().forEach((c, enc) -> {
                if (!columns.containsKey(c)) {
                    problems.add(at + ".encodings." + c + ": not a column of the entity");
                } else if (enc == null || enc.isBlank()) {
                    problems.add(at + ".encodings." + c + ": no encoding given");
                } else {
                    try {
                        ValueEncoding e = ValueEncoding.parse(enc);
                        e.refusalFor(columns.get(c)).ifPresentOrElse(
                                why -> problems.add(at + ".encodings." + c + ": " + why),
                                () -> encodings.put(c, e.configText()));
                    } catch (IllegalArgumentException ex) {
                        problems.add(at + ".encodings." + c + ": " + ex.getMessage());
                    }
                }
            });
            if (!debezium && format != null) {
                onlyWith(at, "encodings", EventFormat.DEBEZIUM_JSON.configName() + " or "
                        + EventFormat.DEBEZIUM_AVRO.configName(), format);
            }
        }
        CdcOptions.SchemaEvolution evolution = d.schemaEvolution();
        if (raw.schemaEvolution() != null) {
            switch (raw.schemaEvolution().trim()) {
                case "lenient" -> evolution = CdcOptions.SchemaEvolution.LENIENT;
                case "strict" -> evolution = CdcOptions.SchemaEvolution.STRICT;
                default -> problems.add(at + ".schema-evolution: \"" + raw.schemaEvolution() + "\" is neither lenient nor strict");
            }
        }
        // a field new to the source becomes a column only where the entity reads its source leniently;
        // tracked: "*" already says "every column", so there it is tracked unless the config says otherwise
        CdcOptions.NewColumns newColumns = evolution == CdcOptions.SchemaEvolution.LENIENT && star
                ? CdcOptions.NewColumns.TRACKED : CdcOptions.NewColumns.IGNORE;
        if (raw.newColumns() != null) {
            switch (raw.newColumns().trim()) {
                case "tracked" -> newColumns = CdcOptions.NewColumns.TRACKED;
                case "type1" -> newColumns = CdcOptions.NewColumns.TYPE1;
                case "ignore" -> newColumns = CdcOptions.NewColumns.IGNORE;
                default -> problems.add(at + ".new-columns: \"" + raw.newColumns() + "\" is none of tracked, type1, ignore");
            }
            if (newColumns != CdcOptions.NewColumns.IGNORE && evolution != CdcOptions.SchemaEvolution.LENIENT) {
                problems.add(at + ".new-columns: " + newColumns.configName() + " only with schema-evolution: lenient (this entity's is "
                        + evolution.configName() + "): a strict entity refuses fields it does not declare");
            }
        }
        return new CdcOptions(eventTime, unavailable, nullUpdates, onTruncate, encodings, evolution, except, newColumns);
    }

    /** {@code mode}: changes (default) or snapshot; a snapshot topic carries flat JSON rows ({@code format: json}). */
    private FeedMode mode(String at, RawEntity raw, EventFormat format) {
        if (raw.mode() == null) {
            return FeedMode.CHANGES;
        }
        FeedMode mode = FeedMode.fromConfig(raw.mode()).orElse(null);
        if (mode == null) {
            problems.add(at + ".mode: unknown mode \"" + raw.mode() + "\" (supported: " + FeedMode.supportedNames() + ")");
            return null;
        }
        if (mode == FeedMode.SNAPSHOT && format != null && format != EventFormat.JSON) {
            problems.add(at + ".format: mode snapshot reads flat JSON rows (format: json), not " + format.configName());
        }
        return mode;
    }

    /** {@code snapshot-time-field}: only with {@code mode: snapshot}; not a column of the entity. */
    private String snapshotTimeField(String at, RawEntity raw, FeedMode mode, Map<String, ColumnType> columns) {
        if (mode != FeedMode.SNAPSHOT) {
            if (raw.snapshotTimeField() != null && mode != null) {
                problems.add(at + ".snapshot-time-field: only used with mode: snapshot (this entity's mode is " + mode.configName() + ")");
            }
            return EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD;
        }
        if (raw.snapshotTimeField() == null && columns.containsKey(EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD)) {
            problems.add(at + ".snapshot-time-field: required here: the default \"" + EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD
                    + "\" is a column of the entity (the field is not part of the row image)");
            return null;
        }
        return fieldName(at + ".snapshot-time-field", raw.snapshotTimeField(), EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD, columns);
    }

    /** {@code op-field}, {@code time-field}, {@code op-values}: only with {@code format: seed-json}. */
    private SeedJsonOptions seedJson(String at, RawEntity raw, EventFormat format, Map<String, ColumnType> columns) {
        boolean given = raw.opField() != null || raw.timeField() != null || raw.opValues() != null;
        if (format != EventFormat.SEED_JSON) {
            if (given && format != null) {
                onlyWith(at, raw.opField() != null ? "op-field" : raw.timeField() != null ? "time-field" : "op-values",
                        EventFormat.SEED_JSON.configName(), format);
            }
            return SeedJsonOptions.DEFAULTS;
        }
        SeedJsonOptions d = SeedJsonOptions.DEFAULTS;
        String opField = fieldName(at + ".op-field", raw.opField(), d.opField(), columns);
        String timeField = fieldName(at + ".time-field", raw.timeField(), d.timeField(), columns);
        if (opField != null && opField.equals(timeField)) {
            problems.add(at + ".time-field: \"" + timeField + "\" is also the op-field");
        }
        List<String> upsert = d.upsertValues();
        List<String> delete = d.deleteValues();
        if (raw.opValues() != null) {
            upsert = opValues(at + ".op-values.upsert", raw.opValues().upsert());
            delete = opValues(at + ".op-values.delete", raw.opValues().delete());
            for (String u : upsert) {
                for (String del : delete) {
                    if (u.trim().equalsIgnoreCase(del.trim())) {
                        problems.add(at + ".op-values: \"" + u + "\" is listed both as upsert and as delete");
                    }
                }
            }
        }
        return new SeedJsonOptions(opField, timeField, upsert, delete);
    }

    private String fieldName(String at, String raw, String dflt, Map<String, ColumnType> columns) {
        if (raw == null) {
            return dflt;
        }
        if (raw.isBlank()) {
            problems.add(at + ": must be a field name, got nothing");
            return null;
        }
        if (columns.containsKey(raw)) {
            problems.add(at + ": \"" + raw + "\" is also a column of the entity (the field is not part of the row image)");
        }
        return raw;
    }

    private List<String> opValues(String at, List<String> raw) {
        if (raw == null || raw.isEmpty()) {
            problems.add(at + ": required (a list of operation values)");
            return List.of();
        }
        for (int i = 0; i < raw.size(); i++) {
            if (raw.get(i) == null || raw.get(i).isBlank()) {
                problems.add(at + "[" + i + "]: must be an operation value, got nothing");
            }
        }
        return raw;
    }

    /** {@code value-deserializer}, {@code deserializer-config}: only with an Avro format. */
    private AvroOptions avro(String at, RawEntity raw, EventFormat format) {
        if (format == null || !format.avro()) {
            if (format != null && (raw.valueDeserializer() != null || raw.deserializerConfig() != null)) {
                onlyWith(at, raw.valueDeserializer() != null ? "value-deserializer" : "deserializer-config",
                        EventFormat.AVRO.configName() + " or " + EventFormat.DEBEZIUM_AVRO.configName(), format);
            }
            return AvroOptions.DEFAULTS;
        }
        String cls = AvroOptions.DEFAULT_VALUE_DESERIALIZER;
        if (raw.valueDeserializer() != null) {
            cls = raw.valueDeserializer().trim();
            if (!JAVA_CLASS_NAME.matcher(cls).matches()) {
                problems.add(at + ".value-deserializer: \"" + raw.valueDeserializer() + "\" is not a Java class name");
            }
        }
        Map<String, String> props = new LinkedHashMap<>();
        if (raw.deserializerConfig() != null) {
            raw.deserializerConfig().forEach((k, v) -> {
                if (v == null) {
                    problems.add(at + ".deserializer-config." + k + ": no value given");
                } else if (AvroOptions.DEFAULT_VALUE_DESERIALIZER.equals(cls0(raw)) && !AvroOptions.DEFAULT_DESERIALIZER_KEYS.contains(k)) {
                    problems.add(at + ".deserializer-config." + k + ": not a setting of " + AvroOptions.DEFAULT_VALUE_DESERIALIZER
                            + " (known: " + String.join(", ", new java.util.TreeSet<>(AvroOptions.DEFAULT_DESERIALIZER_KEYS)) + ")");
                } else {
                    props.put(k, v);
                }
            });
        }
        return new AvroOptions(cls, props);
    }

    /** The entity's value-deserializer class as written, or the default. */
    private static String cls0(RawEntity raw) {
        return raw.valueDeserializer() == null ? AvroOptions.DEFAULT_VALUE_DESERIALIZER : raw.valueDeserializer().trim();
    }

    private void onlyWith(String at, String key, String formats, EventFormat format) {
        problems.add(at + "." + key + ": only used with format: " + formats + " (this entity's format is " + format.configName() + ")");
    }

    private List<String> columnList(String at, List<String> raw, boolean required) {
        if (raw == null || raw.isEmpty()) {
            if (required) {
                problems.add(at + ": required (a list of column names)");
            }
            return List.of();
        }
        for (int i = 0; i < raw.size(); i++) {
            if (raw.get(i) == null || raw.get(i).isBlank()) {
                problems.add(at + "[" + i + "]: must be a column name, got nothing");
            }
        }
        return raw;
    }

    /** @param modifiers receives the columns declared with a modifier ({@code varchar(255)}, {@code numeric(12,2)}) */
    private Map<String, ColumnType> columns(String at, Map<String, String> raw, Map<String, TypeModifier> modifiers) {
        Map<String, ColumnType> columns = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            problems.add(at + ": required (a map of column name to type)");
            return columns;
        }
        String cutAt = null; // a type YAML cut at its comma: the next entry is its rest, not a column
        for (Map.Entry<String, String> entry : raw.entrySet()) {
            String column = entry.getKey();
            String typeName = entry.getValue();
            if (cutAt != null) {
                if (typeName == null && CUT_REST.matcher(column).matches()) {
                    problems.add(at + "." + cutAt + ": \"" + raw.get(cutAt) + "\" was cut at its comma by YAML's {...} syntax: write "
                            + "it in quotes (" + cutAt + ": \"" + raw.get(cutAt).trim() + "," + column.trim() + "\"), or one column per line");
                    cutAt = null;
                    continue;
                }
                column(at, cutAt, raw.get(cutAt), columns, modifiers);
            }
            cutAt = typeName != null && CUT_TYPE.matcher(typeName).matches() ? column : null;
            if (cutAt == null) {
                column(at, column, typeName, columns, modifiers);
            }
        }
        if (cutAt != null) {
            column(at, cutAt, raw.get(cutAt), columns, modifiers);
        }
        return columns;
    }

    /** {@code numeric(12} of {@code {amount: numeric(12,2)}}, which YAML reads as two entries ... */
    private static final java.util.regex.Pattern CUT_TYPE = java.util.regex.Pattern.compile(
            "(?i)\\s*(numeric|decimal)\\s*\\(\\s*-?\\d+\\s*");
    /** ... the second {@code 2)}, with no value. */
    private static final java.util.regex.Pattern CUT_REST = java.util.regex.Pattern.compile("\\s*-?\\d+\\s*\\)\\s*");

    private void column(String at, String column, String typeName, Map<String, ColumnType> columns, Map<String, TypeModifier> modifiers) {
        Optional<TypeModifier> modifier;
        try {
            modifier = ColumnType.modifierFromConfig(typeName);
        } catch (IllegalArgumentException e) {
            problems.add(at + "." + column + ": \"" + typeName + "\": " + e.getMessage());
            return;
        }
        if (modifier.isPresent()) {
            columns.put(column, modifier.get().base());
            modifiers.put(column, modifier.get());
            return;
        }
        Optional<ColumnType> type = ColumnType.fromConfig(typeName);
        if (type.isEmpty()) {
            problems.add(at + "." + column + ": " + (typeName == null ? "no type given" : "unknown type \"" + typeName + "\"")
                    + " (supported: " + ColumnType.supportedNames() + ")");
        } else {
            columns.put(column, type.get());
        }
    }

    private SystemColumns systemColumns(String at, Map<String, String> raw) {
        if (raw == null || raw.isEmpty()) {
            return SystemColumns.DEFAULTS;
        }
        Map<String, String> names = new LinkedHashMap<>();
        SYSTEM_COLUMN_KEYS.forEach((k, getter) -> names.put(k, getter.apply(SystemColumns.DEFAULTS)));
        raw.forEach((k, v) -> {
            if (!SYSTEM_COLUMN_KEYS.containsKey(k)) {
                problems.add(at + "." + k + ": unknown system column (known: " + String.join(", ", SYSTEM_COLUMN_KEYS.keySet()) + ")");
            } else if (v == null || v.isBlank()) {
                problems.add(at + "." + k + ": must be a column name, got nothing");
            } else {
                names.put(k, v);
            }
        });
        Map<String, String> byName = new HashMap<>();
        names.forEach((k, v) -> {
            String other = byName.putIfAbsent(v, k);
            if (other != null) {
                problems.add(at + ": \"" + v + "\" is used for both " + other + " and " + k);
            }
        });
        // by name, not by the map's order
        return new SystemColumns(names.get("surrogate_key"), names.get("valid_from"), names.get("valid_to"), names.get("is_current"),
                names.get("is_deleted"), names.get("record_hash"), names.get("source_topic"), names.get("source_partition"),
                names.get("source_offset"), names.get("loaded_at"));
    }

    private String required(String at, String value) {
        if (value == null || value.isBlank()) {
            problems.add(at + ": required");
            return null;
        }
        return value;
    }

    private void unique(String at, String value, Map<String, Integer> seen, int index) {
        Integer first = seen.putIfAbsent(value, index);
        if (first != null) {
            String field = at.substring(at.lastIndexOf('.') + 1);
            problems.add(at + ": \"" + value + "\" is already the " + field + " of entities[" + first + "]");
        }
    }

    private static String syntaxProblem(JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        String where = loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
        String msg = e.getOriginalMessage();
        if (msg.startsWith("Duplicate field '")) {
            return "duplicate key " + msg.substring("Duplicate field ".length()) + where;
        }
        return "not valid YAML" + where + ": " + msg.lines().findFirst().orElse(msg);
    }

    /**
     * What is wrong with a value Jackson could not bind, named by its path.
     *
     * @param tree the value being bound
     * @param base the path of {@code tree}
     */
    private static String bindingProblem(JsonProcessingException e, JsonNode tree, String base) {
        List<JsonMappingException.Reference> refs = e instanceof JsonMappingException m ? m.getPath() : List.of();
        if (e instanceof UnrecognizedPropertyException u) {
            String known = u.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.joining(", "));
            return path(base, refs) + ": unknown key (known here: " + known + ")";
        }
        if (e instanceof InvalidFormatException f) {
            return path(base, refs) + ": \"" + f.getValue() + "\" is not " + expected(f.getTargetType());
        }
        if (e instanceof MismatchedInputException m) {
            // Walk the tree to the value that did not fit. A list index where the tree has no list
            // comes from ACCEPT_SINGLE_VALUE_AS_ARRAY wrapping a single value: the list itself is wrong.
            JsonNode node = tree;
            List<JsonMappingException.Reference> at = new ArrayList<>();
            String expected = expected(m.getTargetType());
            for (JsonMappingException.Reference r : refs) {
                if (r.getFieldName() == null && r.getIndex() >= 0 && !node.isArray()) {
                    expected = "a list";
                    break;
                }
                node = r.getFieldName() != null ? node.path(r.getFieldName()) : node.path(r.getIndex());
                at.add(r);
            }
            return path(base, at) + ": expected " + expected + ", got " + kind(node);
        }
        return path(base, refs) + ": " + e.getOriginalMessage();
    }

    private static String kind(JsonNode node) {
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return "a list";
        }
        if (node.isNull() || node.isMissingNode()) {
            return "nothing";
        }
        return "\"" + node.asText() + "\"";
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "a different kind of value";
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "a mapping of keys";
        }
        if (type == Integer.class || type == int.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        return "a single value";
    }

    private static String path(String base, List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder(base);
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private ConfigException fail(String problem) {
        problems.add(problem);
        return fail();
    }

    private ConfigException fail() {
        return new ConfigException(source, problems);
    }

    private static Map<String, Function<SystemColumns, String>> systemColumnKeys() {
        Map<String, Function<SystemColumns, String>> m = new LinkedHashMap<>();
        m.put("surrogate_key", SystemColumns::surrogateKey);
        m.put("valid_from", SystemColumns::validFrom);
        m.put("valid_to", SystemColumns::validTo);
        m.put("is_current", SystemColumns::isCurrent);
        m.put("is_deleted", SystemColumns::isDeleted);
        m.put("record_hash", SystemColumns::recordHash);
        m.put("source_topic", SystemColumns::sourceTopic);
        m.put("source_partition", SystemColumns::sourcePartition);
        m.put("source_offset", SystemColumns::sourceOffset);
        m.put("loaded_at", SystemColumns::loadedAt);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The keys under {@code system-columns:}, in {@link SystemColumns} order. */
    static Map<String, Function<SystemColumns, String>> systemColumnKeysInOrder() {
        return SYSTEM_COLUMN_KEYS;
    }

    record RawUser(
            @JsonProperty("name") String name,
            @JsonProperty("role") String role,
            @JsonProperty("password-hash") String passwordHash,
            @JsonProperty("password") String password) {
    }

    record RawToken(
            @JsonProperty("name") String name,
            @JsonProperty("role") String role,
            @JsonProperty("token") String token) {
    }

    record RawEntity(
            @JsonProperty("name") String name,
            @JsonProperty("topic") String topic,
            @JsonProperty("format") String format,
            @JsonProperty("table") String table,
            @JsonProperty("key") List<String> key,
            @JsonProperty("tracked") List<String> tracked,
            @JsonProperty("type1") List<String> type1,
            @JsonProperty("lateness-horizon") String latenessHorizon,
            @JsonProperty("columns") LinkedHashMap<String, String> columns,
            @JsonProperty("system-columns") LinkedHashMap<String, String> systemColumns,
            @JsonProperty("op-field") String opField,
            @JsonProperty("time-field") String timeField,
            @JsonProperty("op-values") RawOpValues opValues,
            @JsonProperty("value-deserializer") String valueDeserializer,
            @JsonProperty("deserializer-config") LinkedHashMap<String, String> deserializerConfig,
            @JsonProperty("mode") String mode,
            @JsonProperty("snapshot-time-field") String snapshotTimeField,
            @JsonProperty("partitioned-by-key") Boolean partitionedByKey,
            @JsonProperty("undeclared-columns") String undeclaredColumns,
            @JsonProperty("surrogate-key-index") Boolean surrogateKeyIndex,
            @JsonProperty("event-time") String eventTime,
            @JsonProperty("unavailable-value") String unavailableValue,
            @JsonProperty("ignore-null-updates") Object ignoreNullUpdates,
            @JsonProperty("on-truncate") String onTruncate,
            @JsonProperty("encodings") LinkedHashMap<String, String> encodings,
            @JsonProperty("schema-evolution") String schemaEvolution,
            @JsonProperty("except") List<String> except,
            @JsonProperty("new-columns") String newColumns) {
    }

    record RawOpValues(@JsonProperty("upsert") List<String> upsert, @JsonProperty("delete") List<String> delete) {
    }
}
