package io.dimstream.admin.web;

import io.dimstream.db.schema.EntityShapes;
import java.sql.SQLException;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.dimstream.config.ConnectorEntities;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.schema.ConnectorTables;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured entities by name (with those of the tables the config's connectors found);
 * an unknown name is a {@link NotFound}. With a database, an
 * entity's spec includes the columns added to it while running ({@code dimstream.entity_columns}),
 * read at each lookup, so the history pages show a column as soon as the sink has added it.
 */
public final class EntityCatalog {

    private static final Logger LOG = LoggerFactory.getLogger(EntityCatalog.class);

    /** How often the tables found behind the config's connectors are read again for {@link #names()}. */
    private static final long FOUND_TABLES_EVERY_NANOS = 5_000_000_000L;

    private final DimstreamConfig config;
    private final DataSource ds;
    private volatile Map<String, EntitySpec> byName = Map.of();
    private volatile Map<String, String> topics = Map.of();
    private volatile long readAt;
    /** The entities' shapes (config plus catalog), read again at each lookup; null without a database. */
    private volatile EntityShapes shapes;

    public EntityCatalog(DimstreamConfig config) {
        this(config, null);
    }

    /**
     * @param ds dimstream's database (migrated), whose catalog of added columns is merged in, and
     *           whose tables found behind the config's connectors are entities too (read again when a
     *           name is not known yet, and every few seconds for the list); null for none
     */
    public EntityCatalog(DimstreamConfig config, DataSource ds) {
        this.config = config;
        this.ds = ds;
        read();
    }

    /** The config's entities and, with connectors, those of the tables found so far. */
    private synchronized void read() {
        DimstreamConfig resolved = config;
        if (ds != null && !config.connectors().isEmpty()) {
            try {
                resolved = ConnectorEntities.resolve(config, ConnectorTables.all(ds)).config();
            } catch (SQLException ex) {
                LOG.warn("cannot read dimstream.connector_tables (the connectors' tables): {}", ex.getMessage());
            }
        }
        Map<String, EntitySpec> specs = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        for (EntityConfig e : resolved.entities()) {
            specs.put(e.name(), e.toEntitySpec());
            sources.put(e.name(), e.topic());
        }
        byName = specs;
        topics = sources;
        shapes = ds == null ? null : new EntityShapes(ds, specs.values(), Set.of());
        readAt = System.nanoTime();
    }

    private void readIfDue() {
        if (ds != null && !config.connectors().isEmpty() && System.nanoTime() - readAt > FOUND_TABLES_EVERY_NANOS) {
            read();
        }
    }

    public EntitySpec spec(String name) {
        EntitySpec e = configSpec(name);
        EntityShapes current = shapes;
        if (current != null) {
            try {
                return current.reread(name);
            } catch (SQLException ex) {
                // the page still shows the config's columns; the database's failure shows where it is queried next
                LOG.warn("entity {}: cannot read dimstream.entity_columns: {}", name, ex.getMessage());
            }
        }
        return e;
    }

    /**
     * The entity as its config declares it, without the catalog: for a reader that merges the
     * catalog itself and lets the database's failure be its own ({@code /columns}).
     */
    public EntitySpec configSpec(String name) {
        EntitySpec e = byName.get(name);
        if (e == null && ds != null && !config.connectors().isEmpty()) {
            read(); // a table a connector found since
            e = byName.get(name);
        }
        if (e == null) {
            throw new NotFound("no entity named \"" + name + "\" (configured: " + String.join(", ", byName.keySet()) + ")");
        }
        return e;
    }

    /** The entity's source topic (what a replay reads unless told otherwise). */
    public String topic(String name) {
        return topics.get(configSpec(name).name());
    }

    public List<String> names() {
        readIfDue();
        return List.copyOf(byName.keySet());
    }

    /** Every entity's spec as {@link #spec} gives it: the catalog's columns merged in. */
    public List<EntitySpec> specs() {
        return byName.keySet().stream().map(this::spec).toList();
    }
}
