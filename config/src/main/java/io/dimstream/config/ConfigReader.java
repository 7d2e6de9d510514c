package io.dimstream.config;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.config.keys.AdminSection;
import io.dimstream.config.keys.ConfigKey;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConfigSection;
import io.dimstream.config.keys.ConfigValues;
import io.dimstream.config.keys.ConnectorKeys;
import io.dimstream.config.keys.EntityKeyParsers;
import io.dimstream.config.keys.EntityRules;
import io.dimstream.config.keys.EntityTableKeys;
import io.dimstream.config.keys.EntityValues;
import io.dimstream.config.keys.RetentionKeys;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.FeedMode;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.config.model.ServiceConfig;
import io.dimstream.config.model.SinkConfig;
import io.dimstream.config.model.UndeclaredColumns;
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
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.secrets.Secrets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns config text into a {@link DimstreamConfig}: YAML to a tree, {@code ${VAR}} substitution,
 * binding to the {@link ConfigKeys} table (each key's raw value; unknown keys refused naming the
 * known ones; each item of {@code entities:} an {@link EntityValues}), then validation of every
 * field into the typed records, collecting all problems before failing.
 */
final class ConfigReader {

    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();

    private final String source;
    private final List<String> problems = new ArrayList<>();

    private ConfigReader(String source) {
        this.source = source;
    }

    static DimstreamConfig read(String yaml, String source, Map<String, String> env, DimstreamConfig.Sections sections) {
        return new ConfigReader(source).read(yaml, env, sections);
    }

    private DimstreamConfig read(String yaml, Map<String, String> env, DimstreamConfig.Sections sections) {
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
        AdminSection.leaveOutUnlessRead(tree, sections == DimstreamConfig.Sections.ALL);
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
            if (key == ConfigKeys.ENTITIES) {
                values.putRaw(key, bindItems(v, base(key), ConfigKeys.ENTITY));
                continue;
            }
            if (key == ConnectorKeys.CONNECTORS) {
                values.putRaw(key, bindItems(v, base(key), ConnectorKeys.SECTION));
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

    /** The path of the keys of an entity read on its own ({@link #entity(JsonNode, String)}): {@code entity.type1}. */
    private static final String ITEM = "entity";

    private static String base(ConfigKey<?> listKey) {
        return listKey.path();
    }

    /**
     * {@code entities:} (or {@code connectors:}), a list of {@code section}s (a single mapping is a
     * list of one): each item bound as {@link #bind} binds a section, its problems named by the item's
     * index ({@code entities[0].key}); a null item stays null (refused when read, naming it).
     */
    private List<EntityValues> bindItems(JsonNode node, String base, ConfigSection section) {
        if (!node.isArray() && !node.isObject()) {
            problems.add(base + ": expected a list, got " + kind(node));
            return List.of();
        }
        List<JsonNode> items = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(items::add);
        } else {
            items.add(node);
        }
        List<EntityValues> out = new ArrayList<>();
        Set<String> known = section.knownNames();
        for (int i = 0; i < items.size(); i++) {
            String at = section == ConfigKeys.ENTITY && base.equals(ITEM) ? base : base + "[" + i + "]";
            JsonNode item = items.get(i);
            if (item == null || item.isNull()) {
                out.add(null);
                continue;
            }
            if (!item.isObject()) {
                problems.add(at + ": expected a mapping of keys, got " + kind(item));
                continue;
            }
            EntityValues values = new EntityValues(at, problems);
            item.fieldNames().forEachRemaining(name -> {
                if (!known.contains(name)) {
                    problems.add(at + "." + name + ": unknown key (known here: " + String.join(", ", known) + ")");
                }
            });
            for (ConfigKey<?> key : section.keys()) {
                JsonNode v = item.get(key.name());
                if (v == null || v.isNull()) {
                    continue;
                }
                try {
                    values.putRaw(key, MAPPER.readerFor(key.raw()).readValue(v));
                } catch (java.io.IOException e) {
                    String path = values.path(key);
                    problems.add(e instanceof JsonProcessingException j ? bindingProblem(j, v, path) : path + ": " + e);
                }
            }
            out.add(values);
        }
        return out;
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
        int batchSize = values.get(ConfigKeys.LOAD_BATCH_SIZE);
        List<EntityConfig> entities = new ArrayList<>();
        List<EntityValues> rawEntities = values.get(ConfigKeys.ENTITIES);
        List<ConnectorConfig> connectors = connectors(values.get(ConnectorKeys.CONNECTORS));
        if (!connectors.isEmpty() && (kafka.isEmpty() || kafka.get().embedded())) {
            problems.add(ConnectorKeys.CONNECTORS.path() + ": a connector writes to a broker of its own: kafka.bootstrap-servers "
                    + "must name it (not \"embedded\")");
        }
        if ((rawEntities == null || rawEntities.isEmpty()) && connectors.isEmpty()) {
            problems.add("entities: at least one entity (or a connector under connectors:) is required");
        } else if (rawEntities != null) {
            Map<String, Integer> names = new HashMap<>();
            Map<String, Integer> tables = new HashMap<>();
            for (int i = 0; i < rawEntities.size(); i++) {
                String at = ConfigKeys.ENTITIES.path() + "[" + i + "]";
                EntityConfig e = entity(at, rawEntities.get(i));
                if (e != null) {
                    unique(at, ConfigKeys.ENTITY_NAME, e.name(), names, i);
                    unique(at, ConfigKeys.ENTITY_TABLE, e.table(), tables, i);
                    entities.add(e);
                }
            }
        }
        Optional<AdminConfig> admin = values.has(ConfigKeys.ADMIN)
                ? Optional.of(new AdminSection(problems, secretsFromEnv).admin(values)) : Optional.empty();
        return new DimstreamConfig(kafka, postgres, entities, batchSize, sink(values), admin, service(values), connectors);
    }

    /** {@code connectors:}: each item read by {@link ConnectorKeys#read}; names unique. */
    private List<ConnectorConfig> connectors(List<EntityValues> raw) {
        List<ConnectorConfig> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < raw.size(); i++) {
            String at = ConnectorKeys.CONNECTORS.path() + "[" + i + "]";
            if (raw.get(i) == null) {
                problems.add(at + ": expected a connector (name:, topic-prefix:, ...), got nothing");
                continue;
            }
            String name = raw.get(i).required(ConnectorKeys.NAME);
            if (name != null) {
                unique(at, ConnectorKeys.NAME, name, names, i);
            }
            ConnectorConfig c = ConnectorKeys.read(raw.get(i));
            if (c != null) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * One entity given as a tree of entity keys (a table a connector found, {@link ConnectorEntities}),
     * read exactly as an item of {@code entities:} is.
     *
     * @param source names the entity in the exception, e.g. {@code connector shop, table public.orders}
     * @throws ConfigException naming every problem
     */
    static EntityConfig entity(JsonNode item, String source) {
        ConfigReader reader = new ConfigReader(source);
        List<EntityValues> bound = reader.bindItems(item, ITEM, ConfigKeys.ENTITY);
        EntityConfig e = reader.problems.isEmpty() && bound.size() == 1 ? reader.entity(ITEM, bound.get(0)) : null;
        if (e == null || !reader.problems.isEmpty()) {
            throw reader.fail();
        }
        return e;
    }

    /** {@code service:} (the defaults when absent): its keys, then {@code service.replay:}'s, problems in that order. */
    private static ServiceConfig service(ConfigValues values) {
        String applicationId = values.get(ConfigKeys.SERVICE_APPLICATION_ID);
        int partitions = values.get(ConfigKeys.SERVICE_PARTITIONS);
        Duration pruneInterval = values.get(ConfigKeys.SERVICE_PRUNE_INTERVAL);
        ServiceConfig.Replay replay = new ServiceConfig.Replay(values.get(ConfigKeys.ServiceReplayKeys.BATCH_SIZE),
                values.get(ConfigKeys.ServiceReplayKeys.PAUSE), values.get(ConfigKeys.ServiceReplayKeys.LEASE),
                values.get(ConfigKeys.ServiceReplayKeys.POLL), values.get(ConfigKeys.ServiceReplayKeys.KEEP_REPLACED_TABLES));
        return new ServiceConfig(applicationId, partitions, pruneInterval, replay);
    }

    private SinkConfig sink(ConfigValues values) {
        if (!values.has(ConfigKeys.SINK)) {
            return ConfigDefaults.SINK;
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

    /**
     * Null when the entity has problems (all of them recorded). Each key is read through its
     * {@link ConfigKeys} declaration; the rules between keys are {@link EntityRules}'. The order the
     * keys are read in is the order their problems are listed in.
     */
    private EntityConfig entity(String at, EntityValues v) {
        if (v == null) {
            problems.add(at + ": expected an entity (" + java.util.stream.Stream.of(ConfigKeys.ENTITY_NAME, ConfigKeys.ENTITY_TOPIC,
                    ConfigKeys.ENTITY_TABLE, ConfigKeys.ENTITY_KEY).map(k -> k.name() + ":, ").collect(Collectors.joining()) + "...), got nothing");
            return null;
        }
        int before = problems.size();
        String name = v.required(ConfigKeys.ENTITY_NAME);
        String topic = v.required(ConfigKeys.ENTITY_TOPIC);
        String table = v.required(ConfigKeys.ENTITY_TABLE);
        EventFormat format = v.get(ConfigKeys.ENTITY_FORMAT);
        List<String> key = v.required(ConfigKeys.ENTITY_KEY);
        List<String> tracked = v.required(ConfigKeys.ENTITY_TRACKED);
        List<String> type1 = v.get(ConfigKeys.ENTITY_TYPE1);
        Optional<Duration> horizon = v.get(ConfigKeys.ENTITY_LATENESS_HORIZON);
        EntityKeyParsers.Columns columns = v.required(ConfigKeys.ENTITY_COLUMNS);
        EntityRules rules = new EntityRules(v, format, key, columns.types());
        boolean star = EntityRules.star(tracked);
        tracked = rules.tracked(tracked, type1);
        List<String> except = v.given(ConfigKeys.ENTITY_EXCEPT) ? v.get(ConfigKeys.ENTITY_EXCEPT) : List.of();
        SystemColumns system = v.get(ConfigKeys.ENTITY_SYSTEM_COLUMNS);
        SeedJsonOptions seedJson = rules.seedJson();
        AvroOptions avro = rules.avro();
        FeedMode mode = rules.mode();
        String snapshotTimeField = rules.snapshotTimeField(mode);
        boolean partitionedByKey = rules.partitionedByKey(mode);
        boolean rejectUndeclared = v.get(ConfigKeys.ENTITY_UNDECLARED_COLUMNS) == UndeclaredColumns.REJECT;
        boolean surrogateKeyIndex = v.get(ConfigKeys.ENTITY_SURROGATE_KEY_INDEX);
        Integer tablePartitions = v.get(ConfigKeys.ENTITY_TABLE_PARTITIONS);
        ValidToCurrent validToCurrent = v.get(EntityTableKeys.VALID_TO_CURRENT);
        CdcOptions cdc = rules.cdc(mode, except, star);
        HistoryRetention retention = RetentionKeys.read(v);
        if (problems.size() > before) {
            return null;
        }
        EntityConfig e = EntityConfig.builder().name(name).topic(topic).format(format).table(table).key(key).tracked(tracked)
                .type1(type1).latenessHorizon(horizon).columns(columns.types()).systemColumns(system).seedJson(seedJson).avro(avro)
                .mode(mode).snapshotTimeField(snapshotTimeField).partitionedByKey(partitionedByKey)
                .streamsClient(v.get(ConfigKeys.ENTITY_STREAMS_CLIENT)).rejectUndeclaredColumns(rejectUndeclared).surrogateKeyIndex(surrogateKeyIndex)
                .tablePartitions(tablePartitions).modifiers(columns.modifiers()).cdc(cdc).validToCurrent(validToCurrent)
                .transactionTime(v.get(EntityTableKeys.TRANSACTION_TIME)).retention(retention).build();
        try {
            e.toEntitySpec(); // built here only for EntitySpec's own checks, so later calls cannot fail
            EntitySpec.checkTableName(e.table());
        } catch (IllegalArgumentException ex) {
            problems.add(at + "." + ex.getMessage());
            return null;
        }
        return e;
    }

    /** {@code key}'s value must differ from every earlier entity's. */
    private void unique(String at, ConfigKey<?> key, String value, Map<String, Integer> seen, int index) {
        Integer first = seen.putIfAbsent(value, index);
        if (first != null) {
            problems.add(at + "." + key.name() + ": \"" + value + "\" is already the " + key.name() + " of "
                    + at.substring(0, at.lastIndexOf('[')) + "[" + first + "]");
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
}
