package io.dimstream.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * An in-memory schema registry for {@code mock://SCOPE} URLs, for tests and the demo.
 *
 * <p>Every client of the same scope in the JVM sees the same registry: a serializer configured with
 * {@code mock://demo} in a producer and a deserializer configured with {@code mock://demo} in a Kafka
 * Streams topology must agree on ids, yet Kafka instantiates each of them by class name from a config
 * map, so there is no object the two could be handed. The only place they can meet is a JVM-wide map
 * keyed by scope; that is why {@link #SCOPES} is static (Confluent's {@code mock://} works the same
 * way). It is the one piece of global mutable state in this module: it holds nothing but what tests
 * and the demo put there, and {@link #drop(String)} empties a scope.
 *
 * <p>Like a real registry, ids are global within a scope (the same schema gets the same id under every
 * subject), start at 1, and never change.
 */
public final class MockSchemaRegistry implements SchemaRegistryClient {

    /** Scope name to its registry; see the class comment for why this is JVM-wide. */
    private static final Map<String, Store> SCOPES = new ConcurrentHashMap<>();

    private final String scope;
    private final Store store;

    private MockSchemaRegistry(String scope, Store store) {
        this.scope = scope;
        this.store = store;
    }

    /** A client of the registry named {@code scope} (created empty on first use). */
    public static MockSchemaRegistry forScope(String scope) {
        Objects.requireNonNull(scope, "scope");
        return new MockSchemaRegistry(scope, SCOPES.computeIfAbsent(scope, s -> new Store()));
    }

    /**
     * Forgets everything registered in {@code scope}. Clients already holding the scope keep the old
     * contents; clients created afterwards start empty.
     */
    public static void drop(String scope) {
        SCOPES.remove(scope);
    }

    /** The scope this client talks to. */
    public String scope() {
        return scope;
    }

    @Override
    public int register(String subject, Schema schema) {
        return store.register(subject, schema);
    }

    @Override
    public OptionalInt lookup(String subject, Schema schema) {
        return store.lookup(subject, schema);
    }

    @Override
    public Schema getById(int id) {
        Schema schema = store.byId(id);
        if (schema == null) {
            throw new UnknownSchemaIdException(id, "unknown schema id " + id + " (registry mock://" + scope + ")");
        }
        return schema;
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        return store.latest(subject);
    }

    @Override
    public String toString() {
        return "MockSchemaRegistry[mock://" + scope + "]";
    }

    /** One scope's contents; every method holds the store's lock, so ids and versions stay consistent. */
    private static final class Store {
        private final Map<Schema, Integer> idBySchema = new HashMap<>();
        private final Map<Integer, Schema> schemaById = new HashMap<>();
        private final Map<String, List<Integer>> idsBySubject = new HashMap<>();
        private int nextId = 1;

        synchronized int register(String subject, Schema schema) {
            int id = idBySchema.computeIfAbsent(schema, s -> nextId++);
            schemaById.putIfAbsent(id, schema);
            List<Integer> versions = idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            return id;
        }

        synchronized OptionalInt lookup(String subject, Schema schema) {
            Integer id = idBySchema.get(schema);
            return id != null && idsBySubject.getOrDefault(subject, List.of()).contains(id)
                    ? OptionalInt.of(id) : OptionalInt.empty();
        }

        synchronized Schema byId(int id) {
            return schemaById.get(id);
        }

        synchronized Optional<RegisteredSchema> latest(String subject) {
            List<Integer> versions = idsBySubject.get(subject);
            if (versions == null || versions.isEmpty()) {
                return Optional.empty();
            }
            int id = versions.get(versions.size() - 1);
            return Optional.of(new RegisteredSchema(id, versions.size(), schemaById.get(id)));
        }
    }
}
