package io.dimstream.config.keys;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The config file bound to the {@link ConfigKeys} table: each key's raw value (as Jackson bound it)
 * and which sections the file has. {@link #get} turns a raw value into the key's value, adding any
 * problem with the key's path.
 */
public final class ConfigValues {

    private final Map<ConfigKey<?>, Object> raw = new HashMap<>();
    private final Set<String> sections = new HashSet<>();
    private final List<String> problems;

    public ConfigValues(List<String> problems) {
        this.problems = problems;
    }

    public void putRaw(ConfigKey<?> key, Object value) {
        raw.put(key, value);
    }

    public void sectionGiven(ConfigSection section) {
        sections.add(section.path());
    }

    /** Whether the file has the section (a mapping, possibly empty; {@code sink:} with nothing after it does not count). */
    public boolean has(ConfigSection section) {
        return sections.contains(section.path());
    }

    /** The key's value; its default when absent or wrong (the problem recorded). */
    public <T> T get(ConfigKey<T> key) {
        return key.read(raw.get(key), problems);
    }

    /** The key's value, {@code path: required} recorded when absent or blank. */
    public String required(ConfigKey<String> key) {
        String v = get(key);
        if (v == null || v.isBlank()) {
            problems.add(key.path() + ": required");
            return null;
        }
        return v;
    }
}
