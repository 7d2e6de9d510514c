package io.dimstream.admin.web;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The configured entities by name; an unknown name is a {@link NotFound}. */
public final class EntityCatalog {

    private final Map<String, EntitySpec> byName = new LinkedHashMap<>();
    private final Map<String, String> topics = new LinkedHashMap<>();

    public EntityCatalog(DimstreamConfig config) {
        for (EntityConfig e : config.entities()) {
            byName.put(e.name(), e.toEntitySpec());
            topics.put(e.name(), e.topic());
        }
    }

    public EntitySpec spec(String name) {
        EntitySpec e = byName.get(name);
        if (e == null) {
            throw new NotFound("no entity named \"" + name + "\" (configured: " + String.join(", ", byName.keySet()) + ")");
        }
        return e;
    }

    /** The entity's source topic (what a replay reads unless told otherwise). */
    public String topic(String name) {
        return topics.get(spec(name).name());
    }

    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    public List<EntitySpec> specs() {
        return List.copyOf(byName.values());
    }
}
