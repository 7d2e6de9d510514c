package io.dimstream.config.model;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * An enum whose constants are written in config by a name of their own ({@code debezium-json},
 * {@code delete-all}, ...). The one place that reads such a name and refuses an unknown one, naming
 * the key's path and the accepted names, so every key of this kind answers alike:
 * {@code entities[0].format: "xml" is none of json, avro, debezium-json, debezium-avro, seed-json}.
 */
public interface ConfigEnum {

    /** The name written in config. */
    String configName();

    /** Whether {@code text} (trimmed) names this constant: its config name exactly, unless the enum says otherwise. */
    default boolean isNamedBy(String text) {
        return configName().equals(text);
    }

    /** The constant of {@code type} that {@code text} names (trimmed); empty when none does. */
    static <E extends Enum<E> & ConfigEnum> Optional<E> find(Class<E> type, String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.trim();
        return Arrays.stream(type.getEnumConstants()).filter(e -> e.isNamedBy(t)).findFirst();
    }

    /**
     * The constant of {@code type} that {@code text} names.
     *
     * @param path the config key's path, for the message
     * @throws IllegalArgumentException {@code PATH: "TEXT" is none of A, B, C} (or {@code neither A nor B})
     */
    static <E extends Enum<E> & ConfigEnum> E parse(Class<E> type, String text, String path) {
        return find(type, text).orElseThrow(() -> new IllegalArgumentException(path + ": \"" + text + "\" is " + noneOf(type)));
    }

    /** The accepted names in declaration order, comma-separated: {@code json, avro, ...}. */
    static <E extends Enum<E> & ConfigEnum> String names(Class<E> type) {
        return String.join(", ", configNames(type));
    }

    /** {@code neither A nor B} for two names, {@code none of A, B, C} for more. */
    static <E extends Enum<E> & ConfigEnum> String noneOf(Class<E> type) {
        List<String> names = configNames(type);
        return names.size() == 2 ? "neither " + names.get(0) + " nor " + names.get(1) : "none of " + String.join(", ", names);
    }

    private static <E extends Enum<E> & ConfigEnum> List<String> configNames(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(ConfigEnum::configName).toList();
    }
}
