package io.dimstream.db.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The keys a key-restricted replay (a repair) applies, stored with the job
 * ({@code dimstream.replay_jobs.key_filter}, V011): either a list of keys, each as the canonical
 * text of its key columns in key order ({@link ColumnType#canonical}, the text the record hash is
 * computed over), or a prefix of the first key column's text (text keys only).
 *
 * <p>A repair rebuilds its keys from the topic: at the job's first start, in one transaction under
 * the writer lock, {@link #clear} deletes the keys' version rows and remembered events from the live
 * table and its memory; then the job reads its range, skips the records of other keys (read, not
 * applied) and applies the rest. The range is taken after the clear, so an event the sink applied
 * before it is in the range and is read again.
 *
 * @param keys   the listed keys (canonical texts per key column), or null with a prefix
 * @param prefix the first key column's text starts with it, or null with a list
 */
public record ReplayKeys(List<List<String>> keys, String prefix) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public ReplayKeys {
        if ((keys == null) == (prefix == null)) {
            throw new IllegalArgumentException("a key restriction is a list of keys or a prefix, exactly one");
        }
        keys = keys == null ? null : keys.stream().map(List::copyOf).toList();
    }

    /**
     * Reads {@code dimstream replay --keys} (and the form's field) against the entity's key columns:
     * for a one-column key, values separated by commas ({@code C1,C2}) or a JSON array of values;
     * for any key, JSON objects naming every key column, separated by commas or in a JSON array
     * ({@code {"region": "eu", "id": 7}, {"region": "us", "id": 1}}). Each value is read as its
     * column's type would read it from an event, and stored (its {@code varchar(n)} or
     * {@code numeric(p,s)} modifier applied, or refused).
     *
     * @throws IllegalArgumentException naming {@code field} and what is wrong
     */
    public static ReplayKeys parseKeys(String field, String text, EntitySpec entity) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException(field + ": list the keys to repair, e.g. C1,C2 (or JSON objects for a key of several columns)");
        }
        List<String> cols = entity.key();
        List<List<String>> out = new ArrayList<>();
        if (t.startsWith("{") || t.startsWith("[")) {
            JsonNode node;
            try {
                node = JSON.readTree(t.startsWith("{") ? "[" + t + "]" : t);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(field + ": not JSON objects or a JSON array (" + e.getOriginalMessage() + ")");
            }
            for (JsonNode k : node) {
                if (k.isObject()) {
                    List<String> names = new ArrayList<>();
                    k.fieldNames().forEachRemaining(names::add);
                    if (!new java.util.HashSet<>(names).equals(new java.util.HashSet<>(cols))) {
                        throw new IllegalArgumentException(field + ": the key " + k + " must name exactly the key columns " + cols);
                    }
                    List<String> key = new ArrayList<>();
                    for (String c : cols) {
                        key.add(canonical(field, entity, c, k.get(c)));
                    }
                    out.add(key);
                } else if (k.isValueNode() && cols.size() == 1) {
                    out.add(List.of(canonical(field, entity, cols.get(0), k)));
                } else {
                    throw new IllegalArgumentException(field + ": " + k + " is not a key; the key columns are " + cols
                            + (cols.size() > 1 ? ", give each key as a JSON object naming them" : ""));
                }
            }
        } else {
            if (cols.size() > 1) {
                throw new IllegalArgumentException(field + ": the key has " + cols.size() + " columns " + cols
                        + "; give each key as a JSON object naming them, e.g. " + example(cols));
            }
            for (String v : t.split(",")) {
                if (v.isBlank()) {
                    throw new IllegalArgumentException(field + ": an empty key in \"" + t + "\"");
                }
                out.add(List.of(canonical(field, entity, cols.get(0), v.trim())));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(field + ": list the keys to repair");
        }
        return new ReplayKeys(List.copyOf(new java.util.LinkedHashSet<>(out)), null);
    }

    /**
     * Reads ONE key ({@code dimstream erase --key}, a line of its {@code --keys-file}, the admin's erase
     * form): a JSON object naming every key column, or, for a one-column key, its value as plain text
     * (one key, commas and all). Each value is read as its column's type would read it from an event.
     *
     * @return the key's canonical texts in key order
     * @throws IllegalArgumentException naming {@code field} and what is wrong
     */
    public static List<String> parseKey(String field, String text, EntitySpec entity) {
        String t = text == null ? "" : text.trim();
        List<String> cols = entity.key();
        if (t.isEmpty()) {
            throw new IllegalArgumentException(field + ": an empty key");
        }
        if (t.startsWith("{")) {
            ReplayKeys k = parseKeys(field, t, entity);
            if (k.keys().size() != 1) {
                throw new IllegalArgumentException(field + ": one key at a time, got " + k.keys().size() + " objects");
            }
            return k.keys().get(0);
        }
        if (cols.size() > 1) {
            throw new IllegalArgumentException(field + ": the key has " + cols.size() + " columns " + cols
                    + "; give it as a JSON object naming them, e.g. " + example(cols));
        }
        return List.of(canonical(field, entity, cols.get(0), t));
    }

    /**
     * Reads {@code --key-prefix}: keys whose first key column's text starts with {@code prefix}.
     *
     * @throws IllegalArgumentException naming {@code field} for an empty prefix or a first key column that is not text
     */
    public static ReplayKeys parsePrefix(String field, String prefix, EntitySpec entity) {
        if (prefix == null || prefix.isEmpty()) {
            throw new IllegalArgumentException(field + ": must not be empty (an empty prefix is every key: replay without it)");
        }
        String first = entity.key().get(0);
        if (entity.type(first) != ColumnType.TEXT) {
            throw new IllegalArgumentException(field + ": a prefix applies to a text key; the first key column " + first + " of entity "
                    + entity.name() + " is " + entity.sqlType(first) + " (list the keys instead)");
        }
        return new ReplayKeys(null, prefix);
    }

    private static String example(List<String> cols) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < cols.size(); i++) {
            b.append(i == 0 ? "" : ", ").append('"').append(cols.get(i)).append("\": ...");
        }
        return b.append('}').toString();
    }

    private static String canonical(String field, EntitySpec entity, String column, Object raw) {
        Object v = raw instanceof JsonNode n ? (n.isNull() ? null : n.isTextual() ? n.asText() : n.isNumber() ? n.numberValue()
                : n.isBoolean() ? (Object) n.asBoolean() : n.toString()) : raw;
        if (v == null) {
            throw new IllegalArgumentException(field + ": key column " + column + " cannot be null");
        }
        ColumnType type = entity.type(column);
        try {
            Object typed = type.coerce(v);
            Object stored = entity.modifier(column).map(m -> m.apply(typed)).orElse(typed);
            return type.canonical(stored);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": key column " + column + ": " + e.getMessage());
        }
    }

    /** Whether an event's data (its key columns, as a decoder made them) is one of these keys. */
    public boolean matches(EntitySpec entity, Map<String, Object> data) {
        List<String> cols = entity.key();
        List<String> key = new ArrayList<>(cols.size());
        for (String c : cols) {
            Object v = data.get(c);
            if (v == null) {
                return false;
            }
            try {
                ColumnType type = entity.type(c);
                Object typed = type.coerce(v);
                key.add(type.canonical(entity.modifier(c).map(m -> m.apply(typed)).orElse(typed)));
            } catch (RuntimeException e) {
                return false; // not a key of this table at all: not one of these
            }
            if (prefix != null) {
                return key.get(0).startsWith(prefix);
            }
        }
        return keys.contains(key);
    }

    /**
     * Deletes the keys' version rows and remembered events from {@code entity}'s table and memory,
     * in the caller's transaction (which holds the writer lock).
     *
     * @return the version rows deleted
     */
    public int clear(Connection c, EntitySpec entity) throws SQLException {
        int rows = 0;
        for (String relation : List.of(entity.table(), entity.memoryTable())) {
            try (PreparedStatement p = c.prepareStatement("DELETE FROM " + Sql.table(relation) + " WHERE " + where(entity))) {
                bind(p, 1, entity);
                int n = p.executeUpdate();
                if (relation.equals(entity.table())) {
                    rows = n;
                }
            }
        }
        return rows;
    }

    /** The condition on the key columns: a prefix of the first, or the listed keys (unnest of one text array per key column). */
    private String where(EntitySpec entity) {
        List<String> cols = entity.key();
        if (prefix != null) {
            return "starts_with(" + Sql.ident(cols.get(0)) + ", ?)";
        }
        return where(entity, cols.stream().map(Sql::ident).toList());
    }

    /**
     * The condition that a row's key is one of the listed keys, over {@code exprs}: one SQL expression
     * per key column, in key order, of the column's type (a column, or {@code (event_key ->> 'id')::bigint}).
     * Its parameters: one text array per key column, bound by {@link #bind}.
     */
    public String where(EntitySpec entity, List<String> exprs) {
        if (prefix != null) {
            throw new IllegalStateException("a key prefix is no list of keys");
        }
        List<String> cols = entity.key();
        StringBuilder b = new StringBuilder("(").append(String.join(", ", exprs)).append(") IN (SELECT ");
        for (int i = 0; i < cols.size(); i++) {
            // the base type, never its modifier: a cast to varchar(5) or numeric(6,2) would cut or round a
            // listed key into another key of the table
            b.append(i == 0 ? "" : ", ").append("u.k").append(i).append("::").append(entity.type(cols.get(i)).sqlName());
        }
        b.append(" FROM unnest(");
        for (int i = 0; i < cols.size(); i++) {
            b.append(i == 0 ? "" : ", ").append("?::text[]");
        }
        b.append(") AS u(");
        for (int i = 0; i < cols.size(); i++) {
            b.append(i == 0 ? "" : ", ").append("k").append(i);
        }
        return b.append("))").toString();
    }

    /** Binds the parameters of {@link #where} from {@code first} on; returns the next parameter's index. */
    public int bind(PreparedStatement p, int first, EntitySpec entity) throws SQLException {
        if (prefix != null) {
            p.setString(first, prefix);
            return first + 1;
        }
        for (int i = 0; i < entity.key().size(); i++) {
            int col = i;
            p.setArray(first + i, p.getConnection().createArrayOf("text", keys.stream().map(k -> k.get(col)).toArray()));
        }
        return first + entity.key().size();
    }

    /** The stored form ({@code key_filter}). */
    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        if (prefix != null) {
            o.put("prefix", prefix);
        } else {
            ArrayNode a = o.putArray("keys");
            keys.forEach(k -> {
                ArrayNode one = a.addArray();
                k.forEach(one::add);
            });
        }
        return o.toString();
    }

    /**
     * These keys without {@code erased} (canonical texts in key order): what a job's restriction becomes
     * when some of its keys are erased ({@code io.dimstream.db.erase}); an empty list replays no key.
     */
    public ReplayKeys without(Collection<List<String>> erased) {
        if (prefix != null) {
            return this;
        }
        return new ReplayKeys(keys.stream().filter(k -> !erased.contains(k)).toList(), null);
    }

    /** Reads the stored form ({@code key_filter}). */
    public static ReplayKeys fromJson(String json) {
        try {
            JsonNode o = JSON.readTree(json);
            if (o.hasNonNull("prefix")) {
                return new ReplayKeys(null, o.get("prefix").asText());
            }
            List<List<String>> keys = new ArrayList<>();
            for (JsonNode k : o.get("keys")) {
                List<String> one = new ArrayList<>();
                for (Iterator<JsonNode> it = k.elements(); it.hasNext(); ) {
                    one.add(it.next().asText());
                }
                keys.add(one);
            }
            return new ReplayKeys(keys, null);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new IllegalStateException("replay job key_filter is neither {\"keys\": [[...]]} nor {\"prefix\": ...}: " + json, e);
        }
    }

    /** Stores the restriction of job {@code id}, in the caller's transaction (the submit's). */
    static void store(Connection c, long id, ReplayKeys keys) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET key_filter = ?::jsonb WHERE id = ?")) {
            p.setString(1, keys.toJson());
            p.setLong(2, id);
            p.executeUpdate();
        }
    }

    /** The restriction of job {@code id}; empty for a replay of every key (or no such job). */
    public static Optional<ReplayKeys> of(DataSource ds, long id) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT key_filter::text FROM dimstream.replay_jobs WHERE id = ?")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getString(1) != null ? Optional.of(fromJson(rs.getString(1))) : Optional.empty();
            }
        }
    }

    /** As the job page and the command line show it: {@code keys C1, C2} or {@code keys starting with "P"}. */
    @Override
    public String toString() {
        if (prefix != null) {
            return "keys starting with \"" + prefix + "\"";
        }
        if (keys.isEmpty()) {
            return "no keys (those it listed were erased)";
        }
        return "keys " + String.join(", ", keys.stream().map(k -> k.size() == 1 ? k.get(0) : "(" + String.join(", ", k) + ")").toList());
    }
}
