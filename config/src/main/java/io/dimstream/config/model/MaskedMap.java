package io.dimstream.config.model;

import io.dimstream.db.secrets.Secrets;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * An unmodifiable map of settings (Kafka client properties, {@code deserializer-config}) whose
 * {@link #toString()} masks secret values ({@link Secrets#maskValue}), so a message or log line
 * that quotes the whole map (a failed deserializer's configure, a record's toString) never
 * prints a password. Equality and hashing are those of any map with the same entries.
 */
final class MaskedMap extends AbstractMap<String, String> {

    private final Map<String, String> entries;

    private MaskedMap(Map<String, String> entries) {
        this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    static Map<String, String> of(Map<String, String> m) {
        return m instanceof MaskedMap ? m : new MaskedMap(m == null ? Map.of() : m);
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return entries.entrySet();
    }

    @Override
    public String get(Object key) {
        return entries.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return entries.containsKey(key);
    }

    @Override
    public String toString() {
        return entries.entrySet().stream().map(e -> e.getKey() + "=" + Secrets.maskValue(e.getKey(), e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }
}
