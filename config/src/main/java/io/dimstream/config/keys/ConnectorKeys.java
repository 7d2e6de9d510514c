package io.dimstream.config.keys;

import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.db.secrets.Secrets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The keys of {@code connectors[]} (a class of their own: {@link ConfigKeys#ROOT} holds their list,
 * {@link io.dimstream.config.ConfigReader} binds each item as it binds an entity) and the reading of
 * one item into a {@link ConnectorConfig}. Nothing here reads {@link ConfigKeys}' fields while the
 * class initialises (the root section refers to this one).
 */
public final class ConnectorKeys {

    private ConnectorKeys() {
    }

    static final String SECTION_PATH = "connectors[]";

    /** Entity keys a connector decides for each table itself: {@code entity:} and {@code tables[]} may not give them. */
    public static final Set<String> DECIDED_PER_TABLE = Set.of("name", "topic", "table", "format", "key", "columns", "mode",
            "snapshot-time-field");

    /** Bound item by item to {@link #SECTION}'s keys: one {@link EntityValues} per item. */
    public static final ConfigKey<List<EntityValues>> CONNECTORS = ConfigKey.key("", "connectors")
            .doc("Change-data-capture connectors whose every captured table becomes an entity, typed from its records' schema: "
                    + "see the `connectors[]` section. `entities:`, `connectors:` or both; an entity declared by hand for one of "
                    + "the topics wins.")
            .of("list of connectors", ConfigKey.ANY, null, "none", (path, raw, problems) -> cast(raw), l -> l);

    public static final ConfigKey<String> NAME = ConfigKey.key(SECTION_PATH, "name")
            .doc("The connector's name in dimstream (unique): logs, metrics and the catalog of found tables name it, and its "
                    + "tables run on the Kafka Streams client of that name (`streams-client`). Letters, digits, `.`, `_` and `-`.")
            .kafkaName("required", "its tables' Kafka Streams client");
    public static final ConfigKey<String> TOPIC_PREFIX = ConfigKey.key(SECTION_PATH, "topic-prefix")
            .doc("Debezium's `topic.prefix`: the topics `<prefix>.<schema>.<table>` are the connector's. This or `topic-pattern`.")
            .text("none");
    public static final ConfigKey<Pattern> TOPIC_PATTERN = ConfigKey.key(SECTION_PATH, "topic-pattern")
            .doc("A Java regular expression the connector's topics match whole; its groups `schema` and `table` (`(?<table>...)`) "
                    + "name the table, else the topic's last part is the table and the one before the schema. This or `topic-prefix`.")
            .of("regular expression", ConfigKey.STRING, null, "none", ConnectorKeys::pattern, Pattern::pattern);
    public static final ConfigKey<List<Pattern>> INCLUDE = ConfigKey.key(SECTION_PATH, "include")
            .doc("Regular expressions over `<schema>.<table>`, matched whole (as Debezium's `table.include.list`): only these "
                    + "tables become entities.")
            .of("list of regular expressions", ConfigKey.STRING_LIST, List.of(), "all tables", ConnectorKeys::patterns,
                    ConnectorKeys::printed);
    public static final ConfigKey<List<Pattern>> EXCLUDE = ConfigKey.key(SECTION_PATH, "exclude")
            .doc("Regular expressions over `<schema>.<table>`, matched whole: these tables never become entities.")
            .of("list of regular expressions", ConfigKey.STRING_LIST, List.of(), "none", ConnectorKeys::patterns,
                    ConnectorKeys::printed);
    public static final ConfigKey<EventFormat> FORMAT = ConfigKey.key(SECTION_PATH, "format")
            .doc("How the connector's records are written: Kafka Connect's JsonConverter with `schemas.enable=true` (the schema types "
                    + "the columns) or Avro through a schema registry (give `entity: {deserializer-config: {schema.registry.url: ...}}`).")
            .oneOf("`debezium-json` or `debezium-avro`", EventFormat.DEBEZIUM_JSON, "`debezium-json`", EventFormat.class);
    public static final ConfigKey<String> ENTITY_NAME = ConfigKey.key(SECTION_PATH, "entity-name")
            .doc("Each table's entity name: `{schema}` and `{table}` are replaced.")
            .of("template", ConfigKey.STRING, ConnectorConfig.DEFAULT_ENTITY_NAME, "`" + ConnectorConfig.DEFAULT_ENTITY_NAME + "`",
                    ConnectorKeys::template, s -> s);
    public static final ConfigKey<String> TABLE_NAME = ConfigKey.key(SECTION_PATH, "table-name")
            .doc("Each table's history table (`schema.table` allowed): `{schema}` and `{table}` are replaced.")
            .of("template", ConfigKey.STRING, ConnectorConfig.DEFAULT_TABLE_NAME, "`" + ConnectorConfig.DEFAULT_TABLE_NAME + "`",
                    ConnectorKeys::template, s -> s);
    public static final ConfigKey<Map<String, Object>> ENTITY = ConfigKey.key(SECTION_PATH, "entity")
            .doc("Keys of `entities[]` every table's entity gets (`tracked`, `except`, `type1`, `lateness-horizon`, `on-truncate`, "
                    + "`deserializer-config`, ...; not `name`, `topic`, `table`, `format`, `key`, `columns`, `mode`). Without "
                    + "`tracked:` every column is tracked (`\"*\"`).")
            .of("mapping of entity keys", ConfigKey.PROPERTIES, Map.of(), "none", ConnectorKeys::entityOptions, m -> m);
    public static final ConfigKey<List<ConnectorConfig.TableOptions>> TABLES = ConfigKey.key(SECTION_PATH, "tables")
            .doc("Entity keys for some tables: each item a `match:` (a regular expression over `<schema>.<table>`, matched whole) "
                    + "and keys as in `entity:`; every matching item applies, in order, over `entity:`.")
            .of("list of `match:` and entity keys", ConfigKey.ANY, List.of(), "none", ConnectorKeys::tables, ConnectorKeys::printedTables);
    public static final ConfigKey<Duration> DISCOVERY_INTERVAL = ConfigKey.key(SECTION_PATH, "discovery-interval")
            .doc("How often the running service looks for tables new to the connector (a new topic with a first record); "
                    + "a table found makes the service restart its pipeline inside the process.")
            .positiveDuration(Duration.ofSeconds(30), "PT30S");

    /** One item of {@code connectors:}. */
    public static final ConfigSection SECTION = new ConfigSection(SECTION_PATH,
            "One item of `connectors:`: every table behind one change-data-capture connector (Debezium), each its own entity and "
                    + "history table, typed from its records' schema and keyed by its record key (docs/formats.md, \"A whole "
                    + "database from one connector\").",
            List.of(NAME, TOPIC_PREFIX, TOPIC_PATTERN, INCLUDE, EXCLUDE, FORMAT, ENTITY_NAME, TABLE_NAME, ENTITY, TABLES,
                    DISCOVERY_INTERVAL), List.of());

    /**
     * One item read into a {@link ConnectorConfig}; null after problems (recorded, named by the
     * item's path).
     */
    public static ConnectorConfig read(EntityValues v) {
        int before = v.problems().size();
        String name = v.required(NAME);
        String prefix = v.get(TOPIC_PREFIX);
        Pattern pattern = v.get(TOPIC_PATTERN);
        if ((prefix == null) == (pattern == null) && v.problems().size() == before) {
            v.problems().add(v.at() + ": give one of " + TOPIC_PREFIX.name() + " (Debezium's topic.prefix) or " + TOPIC_PATTERN.name());
        }
        if (prefix != null && prefix.isBlank()) {
            v.problem(TOPIC_PREFIX, "must not be blank");
        }
        List<Pattern> include = v.get(INCLUDE);
        List<Pattern> exclude = v.get(EXCLUDE);
        EventFormat format = v.get(FORMAT);
        if (format != null && format != EventFormat.DEBEZIUM_JSON && format != EventFormat.DEBEZIUM_AVRO) {
            v.problem(FORMAT, "\"" + format.configName() + "\": a connector's records are debezium-json or debezium-avro");
        }
        String entityName = v.get(ENTITY_NAME);
        String tableName = v.get(TABLE_NAME);
        Map<String, Object> entity = v.get(ENTITY);
        List<ConnectorConfig.TableOptions> tables = v.get(TABLES);
        Duration interval = v.get(DISCOVERY_INTERVAL);
        if (v.problems().size() > before || name == null) { // the name may have been read (and refused) before this item
            return null;
        }
        Pattern topics = pattern != null ? pattern : ConnectorConfig.prefixPattern(prefix);
        return new ConnectorConfig(name, Optional.ofNullable(prefix), topics, include, exclude, format, entityName, tableName, entity,
                tables, interval);
    }

    /**
     * The connector as {@code describeMasked} prints it: every key with its value (defaults filled
     * in), a {@code deserializer-config}'s secrets masked.
     */
    public static Map<String, Object> describe(ConnectorConfig c) {
        Map<String, Object> m = new LinkedHashMap<>();
        NAME.putInto(m, c.name());
        if (c.topicPrefix().isPresent()) {
            TOPIC_PREFIX.putInto(m, c.topicPrefix().get());
        } else {
            TOPIC_PATTERN.putInto(m, c.topics());
        }
        INCLUDE.putInto(m, c.include());
        EXCLUDE.putInto(m, c.exclude());
        FORMAT.putInto(m, c.format());
        ENTITY_NAME.putInto(m, c.entityName());
        TABLE_NAME.putInto(m, c.tableName());
        m.put(ENTITY.name(), masked(c.entityOptions()));
        m.put(TABLES.name(), c.tables().stream().map(t -> {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("match", t.match().pattern());
            item.putAll(masked(t.options()));
            return item;
        }).toList());
        DISCOVERY_INTERVAL.putInto(m, c.discoveryInterval());
        return m;
    }

    private static Map<String, Object> masked(Map<String, Object> options) {
        Map<String, Object> out = new LinkedHashMap<>(options);
        if (out.get(ConfigKeys.ENTITY_DESERIALIZER_CONFIG.name()) instanceof Map<?, ?> settings) {
            Map<String, Object> m = new LinkedHashMap<>();
            settings.forEach((k, v) -> m.put(String.valueOf(k), Secrets.maskValue(String.valueOf(k), String.valueOf(v))));
            out.put(ConfigKeys.ENTITY_DESERIALIZER_CONFIG.name(), m);
        }
        return out;
    }

    private static Pattern pattern(String path, Object raw, List<String> problems) {
        try {
            return Pattern.compile((String) raw);
        } catch (PatternSyntaxException e) {
            problems.add(path + ": \"" + raw + "\" is not a regular expression: " + e.getDescription());
            return null;
        }
    }

    private static List<Pattern> patterns(String path, Object raw, List<String> problems) {
        List<String> list = cast(raw);
        List<Pattern> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Pattern p = pattern(path + "[" + i + "]", list.get(i) == null ? "" : list.get(i), problems);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    private static List<String> printed(List<Pattern> patterns) {
        return patterns.stream().map(Pattern::pattern).toList();
    }

    private static String template(String path, Object raw, List<String> problems) {
        String s = (String) raw;
        if (!s.contains("{table}")) {
            problems.add(path + ": \"" + s + "\" must contain {table} (each table needs a name of its own)");
            return null;
        }
        return s;
    }

    private static Map<String, Object> entityOptions(String path, Object raw, List<String> problems) {
        Map<String, Object> m = cast(raw);
        Set<String> known = ConfigKeys.ENTITY.knownNames();
        for (String k : m.keySet()) {
            if (DECIDED_PER_TABLE.contains(k)) {
                problems.add(path + "." + k + ": the connector decides it for each table (" + String.join(", ",
                        new java.util.TreeSet<>(DECIDED_PER_TABLE)) + "); declare an entity by hand to choose it");
            } else if (!known.contains(k)) {
                problems.add(path + "." + k + ": unknown key (known here: " + String.join(", ", known) + ")");
            }
        }
        return new LinkedHashMap<>(m);
    }

    private static List<ConnectorConfig.TableOptions> tables(String path, Object raw, List<String> problems) {
        if (!(raw instanceof List<?> list)) {
            problems.add(path + ": expected a list of mappings with match:");
            return null;
        }
        List<ConnectorConfig.TableOptions> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = path + "[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> item)) {
                problems.add(at + ": expected a mapping with match: and entity keys");
                continue;
            }
            Map<String, Object> options = new LinkedHashMap<>(cast(item));
            Object match = options.remove("match");
            if (!(match instanceof String m) || m.isBlank()) {
                problems.add(at + ".match: required (a regular expression over <schema>.<table>)");
                continue;
            }
            Pattern p = pattern(at + ".match", m, problems);
            Map<String, Object> checked = entityOptions(at, options, problems);
            if (p != null) {
                out.add(new ConnectorConfig.TableOptions(p, checked));
            }
        }
        return out;
    }

    private static List<Map<String, Object>> printedTables(List<ConnectorConfig.TableOptions> tables) {
        return tables.stream().map(t -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("match", t.match().pattern());
            m.putAll(t.options());
            return m;
        }).toList();
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object raw) {
        return (T) raw;
    }
}
