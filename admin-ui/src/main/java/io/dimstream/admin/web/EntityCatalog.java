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

    public EntityCatalog(DimstreamConfig config) {
        for (EntityConfig e : config.entities()) {
            byName.put(e.name(), e.toEntitySpec());
        }
    }

    public EntitySpec spec(String name) {
        EntitySpec e = byName.get(name);
        if (e == null) {
            throw new NotFound("no entity named \"" + name + "\" (configured: " + String.join(", ", byName.keySet()) + ")");
        }
        return e;
    }

    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    public List<EntitySpec> specs() {
        return List.copyOf(byName.values());
    }
}
