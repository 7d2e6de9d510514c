package io.dimstream.config.keys;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A mapping of the config file ({@code sink:}, {@code service.replay:}, the top level): its keys
 * and the sections inside it. {@link io.dimstream.config.ConfigReader} refuses a key that is neither, naming the keys
 * known there; {@link ConfigReference} prints one table per section.
 *
 * @param path        {@code sink}, {@code service.replay}; empty at the top level
 * @param description the reference's paragraph about the section
 * @param keys        its keys, in the order the reference and the masked dump list them
 * @param sections    the sections inside it
 */
public record ConfigSection(String path, String description, List<ConfigKey<?>> keys, List<ConfigSection> sections) {

    public ConfigSection {
        keys = List.copyOf(keys);
        sections = List.copyOf(sections);
        for (ConfigKey<?> k : keys) {
            if (!k.section().equals(path)) {
                throw new IllegalArgumentException(k.path() + " declared in section " + path);
            }
        }
    }

    /** The last part of the path: the key this section has in its parent. */
    public String name() {
        return path.substring(path.lastIndexOf('.') + 1);
    }

    /** The key called {@code name}, if this section has it. */
    public Optional<ConfigKey<?>> key(String name) {
        return keys.stream().filter(k -> k.name().equals(name)).findFirst();
    }

    /** The section called {@code name} inside this one, if any. */
    public Optional<ConfigSection> section(String name) {
        return sections.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** Every name allowed here (keys and sections), sorted, as the unknown-key refusal lists them. */
    public TreeSet<String> knownNames() {
        TreeSet<String> names = new TreeSet<>();
        keys.forEach(k -> names.add(k.name()));
        sections.forEach(s -> names.add(s.name()));
        return names;
    }

    /** This section and every section inside it, depth first, in declaration order. */
    public List<ConfigSection> flatten() {
        List<ConfigSection> out = new ArrayList<>();
        out.add(this);
        sections.forEach(s -> out.addAll(s.flatten()));
        return out;
    }
}
