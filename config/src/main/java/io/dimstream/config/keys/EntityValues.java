package io.dimstream.config.keys;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One item of {@code entities:} bound to the {@link ConfigKeys#ENTITY} keys: each key's raw value
 * (as Jackson bound it) and, once read, its value. A key is read once, when first asked for, so its
 * problems (named by the item's path, e.g. {@code entities[0].mode}) come in the order the entity is
 * read in, and only for the keys it reads (a seed-json key of a json entity is refused, not parsed).
 */
public final class EntityValues {

    private final String at;
    private final List<String> problems;
    private final Map<ConfigKey<?>, Object> raw = new HashMap<>();
    private final Map<ConfigKey<?>, Object> read = new HashMap<>();

    /** @param at the item's path, {@code entities[0]} */
    public EntityValues(String at, List<String> problems) {
        this.at = at;
        this.problems = problems;
    }

    /** The item's path, {@code entities[0]}. */
    String at() {
        return at;
    }

    /** The key's path in this item, {@code entities[0].mode}. */
    public String path(ConfigKey<?> key) {
        return at + "." + key.name();
    }

    /** Where this item's problems go (for those named by a path inside a key, e.g. {@code entities[0].except[1]}). */
    List<String> problems() {
        return problems;
    }

    /** Records {@code <key's path>: text}. */
    void problem(ConfigKey<?> key, String text) {
        problems.add(path(key) + ": " + text);
    }

    public void putRaw(ConfigKey<?> key, Object value) {
        raw.put(key, value);
    }

    /** Whether the item gives the key a value. */
    public boolean given(ConfigKey<?> key) {
        return raw.get(key) != null;
    }

    /** The key's value: its default when absent, null after a problem (recorded). */
    public <T> T get(ConfigKey<T> key) {
        return once(key, () -> key.readAt(path(key), raw.get(key), problems));
    }

    /** The value of a key that must be given: absent is read as empty, which the key's parser refuses as required. */
    public <T> T required(ConfigKey<T> key) {
        return once(key, () -> {
            Object r = raw.get(key);
            return key.parser().parse(path(key), r != null ? r : key.emptyRaw(), problems);
        });
    }

    @SuppressWarnings("unchecked")
    private <T> T once(ConfigKey<T> key, java.util.function.Supplier<T> reader) {
        if (!read.containsKey(key)) {
            read.put(key, reader.get());
        }
        return (T) read.get(key);
    }
}
