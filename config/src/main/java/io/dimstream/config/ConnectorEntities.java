package io.dimstream.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.schema.ConnectorTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The entities of the tables a config's connectors found: each is read exactly as a hand-declared
 * item of {@code entities:} with the keys a connector decides ({@code name}, {@code topic},
 * {@code table} from the templates, {@code format}, {@code key} and {@code columns} from the found
 * shape, {@code tracked: "*"}) under the connector's {@code entity:} keys and then those of every
 * {@code tables:} item matching the table, in order. An entity declared by hand for the topic wins;
 * a found table whose entity name or table is already another's, or whose keys are wrong for it,
 * is left out with the reason ({@link Resolved#leftOut}), never the whole config. Resolving a
 * resolved config changes nothing (its found entities are recognised by topic and name).
 */
public final class ConnectorEntities {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectorEntities() {
    }

    /**
     * The config with its connectors' found tables as entities, and why any were left out.
     *
     * @param leftOut each found table not made an entity (its topic) and why, e.g. declared by hand
     */
    public record Resolved(DimstreamConfig config, Map<String, String> leftOut) {
    }

    /** {@code config} with the entities of {@code found} added after its hand-declared ones. */
    public static Resolved resolve(DimstreamConfig config, List<ConnectorTables.Found> found) {
        List<EntityConfig> all = new ArrayList<>(config.entities());
        Map<String, String> byTopic = new HashMap<>();
        Map<String, String> owners = new HashMap<>(); // what reads the topic, in words
        Map<String, String> names = new HashMap<>();
        Map<String, String> tables = new HashMap<>();
        for (EntityConfig e : config.entities()) {
            byTopic.put(e.topic(), e.name());
            owners.put(e.topic(), "declared by hand as entity " + e.name());
            names.put(e.name(), "the entity declared by hand");
            tables.put(e.table(), "the table of entity " + e.name());
        }
        Map<String, String> leftOut = new LinkedHashMap<>();
        for (ConnectorTables.Found f : found) {
            Optional<ConnectorConfig> connector = config.connectors().stream().filter(c -> c.name().equals(f.connector())).findFirst();
            if (connector.isEmpty()) {
                continue; // another config's (a deployment sharing the database), or a connector taken out of this one
            }
            Optional<ConnectorConfig.SourceTable> table = connector.get().tableOf(f.topic());
            if (byTopic.containsKey(f.topic())) {
                boolean resolvedBefore = table.isPresent()
                        && byTopic.get(f.topic()).equals(ConnectorConfig.fill(connector.get().entityName(), table.get()));
                if (!resolvedBefore) {
                    leftOut.put(f.topic(), owners.get(f.topic()));
                }
                continue;
            }
            if (table.isEmpty()) {
                leftOut.put(f.topic(), "no longer matched by connector " + f.connector() + " (topic pattern, include, exclude)");
                continue;
            }
            try {
                EntityConfig e = entity(connector.get(), table.get(), f);
                if (names.containsKey(e.name())) {
                    leftOut.put(f.topic(), "its entity name \"" + e.name() + "\" is already " + names.get(e.name())
                            + " (set entity-name: of connector " + f.connector() + ", e.g. '{schema}_{table}')");
                } else if (tables.containsKey(e.table())) {
                    leftOut.put(f.topic(), "its history table \"" + e.table() + "\" is already " + tables.get(e.table()));
                } else {
                    names.put(e.name(), "the entity of topic " + f.topic());
                    tables.put(e.table(), "the table of entity " + e.name());
                    byTopic.put(f.topic(), e.name());
                    owners.put(f.topic(), "already read by entity " + e.name() + " of connector " + f.connector());
                    all.add(e);
                }
            } catch (ConfigException ex) {
                leftOut.put(f.topic(), ex.getMessage());
            }
        }
        return new Resolved(config.withEntities(all), leftOut);
    }

    /**
     * The entity of one found table, read as a hand-declared one.
     *
     * @throws ConfigException naming the connector, the table and every problem
     */
    public static EntityConfig entity(ConnectorConfig c, ConnectorConfig.SourceTable table, ConnectorTables.Found f) {
        Map<String, Object> options = new LinkedHashMap<>(c.entityOptions());
        String qualified = table.qualified();
        for (ConnectorConfig.TableOptions t : c.tables()) {
            if (t.match().matcher(qualified).matches()) {
                options.putAll(t.options());
            }
        }
        // except: lists fields the entity leaves out: a found table's columns leave them out too
        Map<String, String> columns = new LinkedHashMap<>(f.columns());
        if (options.get(ConfigKeys.ENTITY_EXCEPT.name()) instanceof List<?> except) {
            except.forEach(field -> {
                if (!f.key().contains(String.valueOf(field))) {
                    columns.remove(String.valueOf(field));
                }
            });
        }
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(ConfigKeys.ENTITY_NAME.name(), ConnectorConfig.fill(c.entityName(), table));
        item.put(ConfigKeys.ENTITY_TOPIC.name(), f.topic());
        item.put(ConfigKeys.ENTITY_TABLE.name(), ConnectorConfig.fill(c.tableName(), table));
        item.put(ConfigKeys.ENTITY_FORMAT.name(), c.format().configName());
        item.put(ConfigKeys.ENTITY_KEY.name(), f.key());
        item.put(ConfigKeys.ENTITY_COLUMNS.name(), columns);
        item.put(ConfigKeys.ENTITY_TRACKED.name(), "*");
        // a connector's tables share one Kafka Streams client by default: a database of hundreds of
        // tables would otherwise run hundreds of clients (7 threads and a group each), and its tables
        // share their outages anyway (one connector, one registry); streams-client: in entity: or tables: splits them
        item.put(ConfigKeys.ENTITY_STREAMS_CLIENT.name(), c.name());
        item.putAll(options);
        JsonNode tree = JSON.valueToTree(item);
        return ConfigReader.entity(tree, "connector " + c.name() + ", table " + qualified + " (topic " + f.topic() + ")");
    }
}
