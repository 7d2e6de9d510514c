package io.dimstream.config.keys;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.ConfigEnum;
import io.dimstream.db.secrets.Secrets;
import com.fasterxml.jackson.core.type.TypeReference;
import java.util.Map;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One key of the config file, declared once (in the spirit of Debezium's {@code Field}): where it
 * lives, what it holds, its default, how its text becomes a value (with the problems named by the
 * key's path), whether it is a secret, and the sentence the generated reference prints for it.
 * {@link ConfigKeys} is the table of them; {@link io.dimstream.config.ConfigReader} reads with it,
 * {@link DimstreamConfig#describeMasked()} prints with it, {@link ConfigReference} documents with it.
 *
 * @param section     the section's path ({@code sink}, {@code service.replay}), empty at the top level
 * @param name        the key inside its section ({@code batch-size})
 * @param type        the kind of value as the reference names it
 * @param raw         what Jackson binds the YAML value to before {@link #parser} reads it
 * @param defaultValue the value when the key is absent; null when there is none
 * @param defaultText the default as the reference prints it
 * @param parser      the value of a bound raw value; records a problem (naming the path) and returns
 *                    null when the value is wrong
 * @param printer     the value as {@link DimstreamConfig#describeMasked()} writes it
 * @param secret      printed as {@value Secrets#MASK}
 * @param description the reference's sentence
 */
public record ConfigKey<T>(String section, String name, String type, TypeReference<?> raw, T defaultValue, String defaultText,
                           Parser<T> parser, Function<T, Object> printer, boolean secret, String description) {

    /** How a bound raw value becomes the key's value. */
    @FunctionalInterface
    public interface Parser<T> {
        /** The value, or null after adding a problem (starting with {@code path}) to {@code problems}. */
        T parse(String path, Object raw, List<String> problems);
    }

    static final TypeReference<String> STRING = new TypeReference<>() { };
    static final TypeReference<Integer> INTEGER = new TypeReference<>() { };
    static final TypeReference<Boolean> BOOLEAN = new TypeReference<>() { };
    static final TypeReference<List<String>> STRING_LIST = new TypeReference<>() { };
    static final TypeReference<java.util.LinkedHashMap<String, Object>> PROPERTIES = new TypeReference<>() { };
    static final TypeReference<java.util.LinkedHashMap<String, String>> STRING_MAP = new TypeReference<>() { };
    /** Any YAML value (scalar, list, mapping) as Jackson binds it to {@code Object}. */
    static final TypeReference<Object> ANY = new TypeReference<>() { };

    /**
     * The raw value an absent required key is read as (an empty text, list or mapping), so that its
     * parser names it required just as when it is given empty; null for a raw type without one.
     */
    Object emptyRaw() {
        if (raw == STRING) {
            return "";
        }
        if (raw == STRING_LIST) {
            return List.of();
        }
        if (raw == STRING_MAP) {
            return new java.util.LinkedHashMap<String, String>();
        }
        return null;
    }

    public ConfigKey {
        Objects.requireNonNull(section);
        Objects.requireNonNull(name);
        Objects.requireNonNull(description);
    }

    /** The key's full path, e.g. {@code sink.batch-size}. */
    public String path() {
        return section.isEmpty() ? name : section + "." + name;
    }

    /** The value of a raw value bound to {@link #raw}, {@link #defaultValue} when absent (null) or wrong. */
    T read(Object rawValue, List<String> problems) {
        if (rawValue == null) {
            return defaultValue;
        }
        T v = parser.parse(path(), rawValue, problems);
        return v == null ? defaultValue : v;
    }

    /**
     * A command-line flag's value over the file's: {@code current} when the flag is absent (null),
     * else the flag's value checked as the key checks the file's, a problem named by the flag.
     *
     * @param raw the flag's value: a {@link Duration} is taken as its ISO-8601 text
     */
    public T override(String flag, Object raw, T current, List<String> problems) {
        if (raw == null) {
            return current;
        }
        T v = parser.parse(flag, raw instanceof Duration d ? d.toString() : raw, problems);
        return v == null ? current : v;
    }

    /**
     * The value of a raw value found at {@code path} (an item of a list, e.g. {@code entities[0].format}):
     * {@link #defaultValue} when absent, null after a problem (recorded, naming {@code path}).
     */
    T readAt(String path, Object rawValue, List<String> problems) {
        return rawValue == null ? defaultValue : parser.parse(path, rawValue, problems);
    }

    /** The value as printed: {@value Secrets#MASK} for a secret, any secret inside a text masked. */
    Object print(T value) {
        if (secret) {
            return Secrets.MASK;
        }
        Object p = printer.apply(value);
        return p instanceof String s ? Secrets.mask(s) : p;
    }

    /** {@code m.put(name, print(value))}, nothing for a null value. */
    public void putInto(Map<String, Object> m, T value) {
        if (value != null) {
            m.put(name, print(value));
        }
    }

    // ---- builders of the kinds of keys the config has

    /** Starts a key of {@code section} called {@code name}. */
    static Builder key(String section, String name) {
        return new Builder(section, name);
    }

    /** Collects a key's declaration. */
    static final class Builder {
        private final String section;
        private final String name;
        private String description = "";
        private boolean secret;

        private Builder(String section, String name) {
            this.section = section;
            this.name = name;
        }

        Builder doc(String text) {
            this.description = text;
            return this;
        }

        Builder secret() {
            this.secret = true;
            return this;
        }

        /** A key of any kind. */
        <T> ConfigKey<T> of(String type, TypeReference<?> raw, T dflt, String dfltText, Parser<T> parser, Function<T, Object> printer) {
            return new ConfigKey<>(section, name, type, raw, dflt, dfltText, parser, printer, secret, description);
        }

        /** An integer of at least {@code min}. */
        ConfigKey<Integer> atLeast(int min, Integer dflt) {
            return of("integer", INTEGER, dflt, dflt == null ? "" : String.valueOf(dflt), (path, raw, problems) -> {
                int v = (Integer) raw;
                if (v < min) {
                    problems.add(path + ": must be at least " + min + ", got " + v);
                    return null;
                }
                return v;
            }, v -> v);
        }

        /** An integer from {@code min} to {@code max}. */
        ConfigKey<Integer> between(int min, int max, int dflt) {
            return of("integer, " + min + " to " + max, INTEGER, dflt, String.valueOf(dflt), (path, raw, problems) -> {
                int v = (Integer) raw;
                if (v < min || v > max) {
                    problems.add(path + ": must be between " + min + " and " + max + ", got " + v);
                    return null;
                }
                return v;
            }, v -> v);
        }

        /** A positive ISO-8601 duration; {@code example} shows how one is written. */
        ConfigKey<Duration> positiveDuration(Duration dflt, String example) {
            return of("ISO-8601 duration", STRING, dflt, dflt == null ? "" : isoDuration(dflt),
                    (path, raw, problems) -> ConfigKey.positiveDuration(path, (String) raw, example, problems), Duration::toString);
        }

        /** An ISO-8601 duration of zero or more. */
        ConfigKey<Duration> durationOrZero(Duration dflt, String example) {
            return of("ISO-8601 duration", STRING, dflt, dflt.toString(), (path, raw, problems) -> {
                Duration d = duration(path, (String) raw, example, problems);
                if (d != null && d.isNegative()) {
                    problems.add(path + ": must not be negative, got " + raw);
                    return null;
                }
                return d;
            }, Duration::toString);
        }

        /** A text that must not be blank when given; {@code trim} cuts spaces around it. */
        ConfigKey<String> nonEmptyText(String dflt, boolean trim) {
            return of("text", STRING, dflt, dflt == null ? "" : dflt, (path, raw, problems) -> {
                String s = (String) raw;
                if (s.isBlank()) {
                    problems.add(path + ": must not be empty");
                    return null;
                }
                return trim ? s.trim() : s;
            }, s -> s);
        }

        /** A text taken as written; a required one is checked where its section is built ({@code ConfigValues.required}). */
        ConfigKey<String> text(String dfltText) {
            return of("text", STRING, null, dfltText, (path, raw, problems) -> (String) raw, s -> s);
        }

        /** A text that is required: {@code path: required} when blank (or absent, read through {@code EntityValues.required}). */
        ConfigKey<String> requiredText() {
            return of("text", STRING, null, "required", (path, raw, problems) -> {
                String s = (String) raw;
                if (s.isBlank()) {
                    problems.add(path + ": required");
                    return null;
                }
                return s;
            }, s -> s);
        }

        /**
         * A list of column names, each non-blank; a required one empty (or absent, read through
         * {@code EntityValues.required}) is {@code path: required (a list of column names)}.
         */
        ConfigKey<List<String>> columnList(String type, boolean required) {
            return of(type, STRING_LIST, required ? null : List.of(), required ? "required" : "none", (path, raw, problems) -> {
                @SuppressWarnings("unchecked")
                List<String> list = (List<String>) raw;
                if (list.isEmpty()) {
                    if (required) {
                        problems.add(path + ": required (a list of column names)");
                    }
                    return List.of();
                }
                for (int i = 0; i < list.size(); i++) {
                    if (list.get(i) == null || list.get(i).isBlank()) {
                        problems.add(path + "[" + i + "]: must be a column name, got nothing");
                    }
                }
                return list;
            }, l -> l);
        }

        /**
         * The name of a field of the source's records (not a column: whether it is one is a rule of
         * the entity, {@code EntityRules}); null (absent: the default is the rules') or a problem when blank.
         */
        ConfigKey<String> fieldName(String type, String dfltText) {
            return of(type, STRING, null, dfltText, (path, raw, problems) -> {
                String s = (String) raw;
                if (s.isBlank()) {
                    problems.add(path + ": must be a field name, got nothing");
                    return null;
                }
                return s;
            }, s -> s);
        }

        /**
         * A name that becomes part of Kafka topic and group names: letters, digits, {@code .},
         * {@code _} and {@code -} (Kafka's legal topic characters); anything else refused as
         * {@code path: "x" must be letters, digits, '.', '_' or '-' (it names WHAT)}; null when absent.
         */
        ConfigKey<String> kafkaName(String dfltText, String names) {
            return of("text", STRING, null, dfltText, (path, raw, problems) -> {
                String s = String.valueOf(raw);
                if (!s.matches("[A-Za-z0-9._-]+")) {
                    problems.add(path + ": \"" + s + "\" must be letters, digits, '.', '_' or '-' (it names " + names + ")");
                    return null;
                }
                return s;
            }, s -> s);
        }

        /**
         * One of the enum {@code values}, written by its config name (spaces around ignored), printed
         * by it; anything else refused by {@link ConfigEnum#parse} ({@code path: "x" is none of a, b, c}).
         */
        <E extends Enum<E> & ConfigEnum> ConfigKey<E> oneOf(String type, E dflt, String dfltText, Class<E> values) {
            return of(type, STRING, dflt, dfltText, (path, raw, problems) -> {
                try {
                    return ConfigEnum.parse(values, (String) raw, path);
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                    return null;
                }
            }, ConfigEnum::configName);
        }

        /** {@code true} or {@code false}. */
        ConfigKey<Boolean> bool(boolean dflt) {
            return of("boolean", BOOLEAN, dflt, String.valueOf(dflt), (path, raw, problems) -> (Boolean) raw, b -> b);
        }
    }

    /** A positive ISO-8601 duration or null after a problem. */
    static Duration positiveDuration(String path, String raw, String example, List<String> problems) {
        Duration d = duration(path, raw, example, problems);
        if (d != null && (d.isNegative() || d.isZero())) {
            problems.add(path + ": must be positive, got " + raw);
            return null;
        }
        return d;
    }

    /** An ISO-8601 duration or null after a problem. */
    static Duration duration(String path, String raw, String example, List<String> problems) {
        try {
            return Duration.parse(raw);
        } catch (DateTimeParseException e) {
            problems.add(path + ": \"" + raw + "\" is not an ISO-8601 duration (e.g. " + example + ")");
            return null;
        }
    }

    /** {@code P30D} rather than {@link Duration#toString()}'s {@code PT720H} when whole days. */
    public static String isoDuration(Duration d) {
        if (!d.isZero() && d.toSecondsPart() == 0 && d.toMinutesPart() == 0 && d.toHoursPart() == 0 && d.toNanosPart() == 0) {
            return "P" + d.toDays() + "D";
        }
        return d.toString();
    }
}
