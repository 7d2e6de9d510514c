package io.dimstream.admin.web;

import io.dimstream.db.schema.EntityShapes;
import java.sql.SQLException;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured entities by name; an unknown name is a {@link NotFound}. With a database, an
 * entity's spec includes the columns added to it while running ({@code dimstream.entity_columns}),
 * read at each lookup, so the history pages show a column as soon as the sink has added it.
 */
public final class EntityCatalog {

    private static final Logger LOG = LoggerFactory.getLogger(EntityCatalog.class);

    private final Map<String, EntitySpec> byName = new LinkedHashMap<>();
    private final Map<String, String> topics = new LinkedHashMap<>();
    /** The entities' shapes (config plus catalog), read again at each lookup; null without a database. */
    private final EntityShapes shapes;

    public EntityCatalog(DimstreamConfig config) {
        this(config, null);
    }

    /** @param ds dimstream's database (migrated), whose catalog of added columns is merged in; null for none */
    public EntityCatalog(DimstreamConfig config, DataSource ds) {
        for (EntityConfig e : config.entities()) {
            byName.put(e.name(), e.toEntitySpec());
            topics.put(e.name(), e.topic());
        }
        this.shapes = ds == null ? null : new EntityShapes(ds, byName.values(), Set.of());
    }

    public EntitySpec spec(String name) {
        EntitySpec e = configSpec(name);
        if (shapes != null) {
            try {
                return shapes.reread(name);
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
        return List.copyOf(byName.keySet());
    }

    /** Every entity's spec as {@link #spec} gives it: the catalog's columns merged in. */
    public List<EntitySpec> specs() {
        return byName.keySet().stream().map(this::spec).toList();
    }
}
