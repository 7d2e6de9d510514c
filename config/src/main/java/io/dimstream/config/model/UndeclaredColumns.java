package io.dimstream.config.model;

import java.util.Locale;

/**
 * What a field of a source record that is no column of its entity does ({@code undeclared-columns:}
 * in config), when {@code new-columns} does not make it one: {@link #IGNORE} (the default) drops it,
 * counts it and logs it once, so a column added at the source never stops a history;
 * {@link #REJECT} sends the record to the dead-letter topic naming the field (a typo in
 * {@code columns:} is seen at once, at the price of every record of a table whose source grew).
 */
public enum UndeclaredColumns implements ConfigEnum {
    IGNORE, REJECT;

    @Override
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
