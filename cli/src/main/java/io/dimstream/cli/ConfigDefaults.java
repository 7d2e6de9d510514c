package io.dimstream.cli;

import io.dimstream.config.keys.ConfigKey;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConfigSection;
import java.util.ArrayList;
import java.util.List;
import java.util.ListResourceBundle;

/**
 * The config keys' defaults for the verbs' help texts: a flag that overrides a config key names the
 * key's default as {@code ${bundle:default.<path>}} (picocli interpolates it from this bundle,
 * {@code @Command(resourceBundle = ...)}), so each default is said once, in {@link ConfigKeys}.
 * Keys: {@value #PREFIX} and a key's path ({@code default.service.partitions}); values: the default
 * as the generated reference prints it. A key without a default has no entry (picocli would print
 * {@code null} for it); {@code DimstreamCliTest} checks each such flag's text.
 */
public final class ConfigDefaults extends ListResourceBundle {

    /** What each entry's key starts with (no help text of picocli's own is looked up under it). */
    static final String PREFIX = "default.";

    @Override
    protected Object[][] getContents() {
        List<Object[]> entries = new ArrayList<>();
        for (ConfigSection section : ConfigKeys.documented()) {
            for (ConfigKey<?> key : section.keys()) {
                if (key.defaultValue() != null) {
                    entries.add(new Object[] {PREFIX + key.path(), key.defaultText()});
                }
            }
        }
        return entries.toArray(new Object[0][]);
    }
}
