package io.dimstream.config.keys;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * How the values of the entity keys that need more than a line become typed ({@code columns},
 * {@code system-columns}, {@code op-values}, {@code value-deserializer}): the parsers their
 * {@link ConfigKeys} declarations name. Each checks its own key only; the rules between keys are
 * {@link EntityRules}'.
 */
public final class EntityKeyParsers {

    private EntityKeyParsers() {
    }

    /** {@code columns:}: each column's type, and the modifier of those declared with one ({@code varchar(255)}). */
    public record Columns(Map<String, ColumnType> types, Map<String, TypeModifier> modifiers) {

        /** As written in the config: each column's SQL type, modifier included. */
        Object printed() {
            Map<String, String> out = new LinkedHashMap<>();
            types.forEach((c, t) -> out.put(c, modifiers.containsKey(c) ? modifiers.get(c).sqlType() : t.sqlName()));
            return out;
        }
    }

    /** {@code op-values:} as bound and, once read, as checked. */
    public record OpValues(@JsonProperty("upsert") List<String> upsert, @JsonProperty("delete") List<String> delete) {

        Object printed() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("upsert", upsert);
            out.put("delete", delete);
            return out;
        }
    }

    private static final Pattern JAVA_CLASS_NAME = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    /** {@code numeric(12} of {@code {amount: numeric(12,2)}}, which YAML reads as two entries ... */
    private static final Pattern CUT_TYPE = Pattern.compile("(?i)\\s*(numeric|decimal)\\s*\\(\\s*-?\\d+\\s*");
    /** ... the second {@code 2)}, with no value. */
    private static final Pattern CUT_REST = Pattern.compile("\\s*-?\\d+\\s*\\)\\s*");

    /** The keys under {@code system-columns:}; each renames one {@link SystemColumns} field. */
    static final Map<String, Function<SystemColumns, String>> SYSTEM_COLUMN_KEYS = systemColumnKeys();

    /** {@code columns:}; the columns read so far even after a problem, for the rules that look at them. */
    static Columns columns(String at, Object rawValue, List<String> problems) {
        @SuppressWarnings("unchecked")
        Map<String, String> raw = (Map<String, String>) rawValue;
        Map<String, ColumnType> columns = new LinkedHashMap<>();
        Map<String, TypeModifier> modifiers = new LinkedHashMap<>();
        if (raw.isEmpty()) {
            problems.add(at + ": required (a map of column name to type)");
            return new Columns(columns, modifiers);
        }
        String cutAt = null; // a type YAML cut at its comma: the next entry is its rest, not a column
        for (Map.Entry<String, String> entry : raw.entrySet()) {
            String column = entry.getKey();
            String typeName = entry.getValue();
            if (cutAt != null) {
                if (typeName == null && CUT_REST.matcher(column).matches()) {
                    problems.add(at + "." + cutAt + ": \"" + raw.get(cutAt) + "\" was cut at its comma by YAML's {...} syntax: write "
                            + "it in quotes (" + cutAt + ": \"" + raw.get(cutAt).trim() + "," + column.trim() + "\"), or one column per line");
                    cutAt = null;
                    continue;
                }
                column(at, cutAt, raw.get(cutAt), columns, modifiers, problems);
            }
            cutAt = typeName != null && CUT_TYPE.matcher(typeName).matches() ? column : null;
            if (cutAt == null) {
                column(at, column, typeName, columns, modifiers, problems);
            }
        }
        if (cutAt != null) {
            column(at, cutAt, raw.get(cutAt), columns, modifiers, problems);
        }
        return new Columns(columns, modifiers);
    }

    private static void column(String at, String column, String typeName, Map<String, ColumnType> columns,
                               Map<String, TypeModifier> modifiers, List<String> problems) {
        Optional<TypeModifier> modifier;
        try {
            modifier = ColumnType.modifierFromConfig(typeName);
        } catch (IllegalArgumentException e) {
            problems.add(at + "." + column + ": \"" + typeName + "\": " + e.getMessage());
            return;
        }
        if (modifier.isPresent()) {
            columns.put(column, modifier.get().base());
            modifiers.put(column, modifier.get());
            return;
        }
        Optional<ColumnType> type = ColumnType.fromConfig(typeName);
        if (type.isEmpty()) {
            problems.add(at + "." + column + ": " + (typeName == null ? "no type given" : "unknown type \"" + typeName + "\"")
                    + " (supported: " + ColumnType.supportedNames() + ")");
        } else {
            columns.put(column, type.get());
        }
    }

    /** {@code system-columns:}: renames over the defaults, each name used once. */
    static SystemColumns systemColumns(String at, Object rawValue, List<String> problems) {
        @SuppressWarnings("unchecked")
        Map<String, String> raw = (Map<String, String>) rawValue;
        if (raw.isEmpty()) {
            return SystemColumns.DEFAULTS;
        }
        Map<String, String> names = new LinkedHashMap<>();
        SYSTEM_COLUMN_KEYS.forEach((k, getter) -> names.put(k, getter.apply(SystemColumns.DEFAULTS)));
        raw.forEach((k, v) -> {
            if (!SYSTEM_COLUMN_KEYS.containsKey(k)) {
                problems.add(at + "." + k + ": unknown system column (known: " + String.join(", ", SYSTEM_COLUMN_KEYS.keySet()) + ")");
            } else if (v == null || v.isBlank()) {
                problems.add(at + "." + k + ": must be a column name, got nothing");
            } else {
                names.put(k, v);
            }
        });
        Map<String, String> byName = new HashMap<>();
        names.forEach((k, v) -> {
            String other = byName.putIfAbsent(v, k);
            if (other != null) {
                problems.add(at + ": \"" + v + "\" is used for both " + other + " and " + k);
            }
        });
        // by name, not by the map's order
        return new SystemColumns(names.get("surrogate_key"), names.get("valid_from"), names.get("valid_to"), names.get("is_current"),
                names.get("is_deleted"), names.get("record_hash"), names.get("source_topic"), names.get("source_partition"),
                names.get("source_offset"), names.get("loaded_at"), names.get("event_seq"), names.get("known_from"),
                names.get("end_known_from"));
    }

    /** Every system column's name, under its key, in {@link SystemColumns} order. */
    static Object printSystemColumns(SystemColumns s) {
        Map<String, String> out = new LinkedHashMap<>();
        SYSTEM_COLUMN_KEYS.forEach((k, getter) -> out.put(k, getter.apply(s)));
        return out;
    }

    /** {@code op-values:}: both lists required, non-blank, no value in both. */
    static OpValues opValues(String at, Object rawValue, List<String> problems) {
        OpValues raw = (OpValues) rawValue;
        List<String> upsert = opValueList(at + ".upsert", raw.upsert(), problems);
        List<String> delete = opValueList(at + ".delete", raw.delete(), problems);
        for (String u : upsert) {
            for (String del : delete) {
                if (u.trim().equalsIgnoreCase(del.trim())) {
                    problems.add(at + ": \"" + u + "\" is listed both as upsert and as delete");
                }
            }
        }
        return new OpValues(upsert, delete);
    }

    private static List<String> opValueList(String at, List<String> raw, List<String> problems) {
        if (raw == null || raw.isEmpty()) {
            problems.add(at + ": required (a list of operation values)");
            return List.of();
        }
        for (int i = 0; i < raw.size(); i++) {
            if (raw.get(i) == null || raw.get(i).isBlank()) {
                problems.add(at + "[" + i + "]: must be an operation value, got nothing");
            }
        }
        return raw;
    }

    /** {@code value-deserializer}: a Java class name, spaces around it cut (kept after a problem, as the rules compare it). */
    static String javaClassName(String at, Object rawValue, List<String> problems) {
        String cls = ((String) rawValue).trim();
        if (!JAVA_CLASS_NAME.matcher(cls).matches()) {
            problems.add(at + ": \"" + rawValue + "\" is not a Java class name");
        }
        return cls;
    }

    private static Map<String, Function<SystemColumns, String>> systemColumnKeys() {
        Map<String, Function<SystemColumns, String>> m = new LinkedHashMap<>();
        m.put("surrogate_key", SystemColumns::surrogateKey);
        m.put("valid_from", SystemColumns::validFrom);
        m.put("valid_to", SystemColumns::validTo);
        m.put("is_current", SystemColumns::isCurrent);
        m.put("is_deleted", SystemColumns::isDeleted);
        m.put("record_hash", SystemColumns::recordHash);
        m.put("source_topic", SystemColumns::sourceTopic);
        m.put("source_partition", SystemColumns::sourcePartition);
        m.put("source_offset", SystemColumns::sourceOffset);
        m.put("loaded_at", SystemColumns::loadedAt);
        m.put("event_seq", SystemColumns::eventSeq);
        m.put("known_from", SystemColumns::knownFrom);
        m.put("end_known_from", SystemColumns::endKnownFrom);
        return java.util.Collections.unmodifiableMap(m);
    }
}
