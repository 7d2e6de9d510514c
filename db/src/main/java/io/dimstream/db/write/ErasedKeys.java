package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tombstones of erased keys ({@code dimstream.erased_keys}, V014): a key erased with a tombstone is
 * kept only as a hash, and the writer drops the events of such a key before it remembers or writes
 * anything ({@link #keep}), so a replay of the topic, a re-delivered record, a {@code load} of an old
 * file or a quarantined event applied later does not bring it back.
 *
 * <p>The hash is {@link RecordHash#of} over the key's canonical texts in key order (each
 * length-prefixed, as {@code record_hash} encodes tracked values): the text a typed event's key
 * values canonicalize to and the text {@code dimstream erase --key} reads are the same
 * ({@link ColumnType#canonical}), so both hash alike. It cannot be turned back into the key, but it
 * lets anyone who guesses a key confirm that it was erased (what a tombstone is for); a key of few
 * possible values (a small integer) can be found by trying them all.
 */
public final class ErasedKeys {

    private static final Logger LOG = LoggerFactory.getLogger(ErasedKeys.class);

    private ErasedKeys() {
    }

    /** The events that may be applied, and how many were dropped as events of erased keys. */
    public record Kept(List<TypedEvent> events, int erased) {
        public Kept {
            events = List.copyOf(events);
        }
    }

    /** The hash of a key given as its canonical texts in key order. */
    public static byte[] hash(List<String> canonicalKey) {
        return RecordHash.of(canonicalKey);
    }

    /** The hash of a typed event's key (its first key-column values). */
    static byte[] hash(EntitySpec entity, TypedEvent event) {
        List<ColumnType> types = entity.key().stream().map(entity::type).toList();
        return RecordHash.ofValues(types, event.values().subList(0, types.size()));
    }

    /**
     * Keeps a tombstone of each key of {@code entity}, in the caller's transaction (the erasure's).
     *
     * @return the tombstones added (a key erased before has one already)
     */
    public static int remember(Connection c, String entity, Collection<List<String>> keys) throws SQLException {
        List<String> hashes = keys.stream().map(k -> HexFormat.of().formatHex(hash(k))).toList();
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.erased_keys (entity, key_hash) "
                + "SELECT ?, decode(h, 'hex') FROM unnest(?::text[]) h ON CONFLICT DO NOTHING")) {
            p.setString(1, entity);
            p.setArray(2, c.createArrayOf("text", hashes.toArray()));
            return p.executeUpdate();
        }
    }

    /**
     * {@code events} without those of erased keys of {@code entity}, read in the caller's transaction.
     * One index probe when the entity has no tombstone (nothing hashed); else the events' keys are
     * hashed and looked up in one more query. The writer calls it on every batch after validation
     * ({@code Scd2Writer}), so every source of changes goes through it. Logs the count, never a key.
     */
    public static Kept keep(Connection c, EntitySpec entity, List<TypedEvent> events) throws SQLException {
        if (events.isEmpty() || !any(c, entity.name())) {
            return new Kept(events, 0);
        }
        List<String> hashes = new ArrayList<>(events.size());
        for (TypedEvent ev : events) {
            hashes.add(HexFormat.of().formatHex(hash(entity, ev)));
        }
        Set<String> erased = erasedHashes(c, entity.name(), new LinkedHashSet<>(hashes));
        if (erased.isEmpty()) {
            return new Kept(events, 0);
        }
        List<TypedEvent> kept = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            if (!erased.contains(hashes.get(i))) {
                kept.add(events.get(i));
            }
        }
        int dropped = events.size() - kept.size();
        LOG.info("{}: {} events of {} erased keys dropped (tombstones in dimstream.erased_keys)", entity.name(), dropped, erased.size());
        return new Kept(kept, dropped);
    }

    /**
     * Those of {@code keys} (canonical texts in key order) that are erased with a tombstone, read in
     * {@code c}'s transaction: one index probe when the entity has none.
     */
    public static Set<List<String>> erasedAmong(Connection c, String entity, Collection<List<String>> keys) throws SQLException {
        if (keys.isEmpty() || !any(c, entity)) {
            return Set.of();
        }
        Map<String, List<String>> byHash = new LinkedHashMap<>();
        for (List<String> k : keys) {
            byHash.put(HexFormat.of().formatHex(hash(k)), k);
        }
        Set<List<String>> erased = new HashSet<>();
        for (String h : erasedHashes(c, entity, byHash.keySet())) {
            erased.add(byHash.get(h));
        }
        return erased;
    }

    /**
     * The key of an event's {@code data} as canonical texts in key order (what {@link #hash(List)}
     * hashes), or null when a key part does not type (the validator refuses such an event).
     */
    public static List<String> canonicalKey(EntitySpec entity, Map<String, Object> data) {
        List<String> key = new ArrayList<>(entity.key().size());
        for (String k : entity.key()) {
            ColumnType type = entity.type(k);
            Object v = data.get(k);
            try {
                key.add(v == null ? null : type.canonical(type.coerce(v)));
            } catch (RuntimeException notTyped) {
                return null;
            }
        }
        return key;
    }

    /**
     * The refusals of {@code batch}'s events ({@code rejected}, by their source) that are not of an
     * erased key: an erased key's event is dropped as erased even when it is invalid, so neither its
     * reason nor (for the sink) its record is kept among the rejects.
     */
    static List<Rejection> notErased(Connection c, EntitySpec entity, List<Event> batch, List<Rejection> rejected) throws SQLException {
        if (rejected.isEmpty() || !any(c, entity.name())) {
            return rejected;
        }
        Set<Source> refused = rejected.stream().map(Rejection::source).collect(Collectors.toSet());
        Map<Source, List<String>> keyOf = new HashMap<>();
        for (Event e : batch) {
            List<String> key = refused.contains(e.source()) ? canonicalKey(entity, e.data()) : null;
            if (key != null) {
                keyOf.put(e.source(), key);
            }
        }
        Set<List<String>> erased = erasedAmong(c, entity.name(),
                rejected.stream().map(r -> keyOf.get(r.source())).filter(java.util.Objects::nonNull).toList());
        if (erased.isEmpty()) {
            return rejected;
        }
        return rejected.stream().filter(r -> !erased.contains(keyOf.get(r.source()))).toList();
    }

    /** Those of {@code hashes} (hex) that are tombstones of {@code entity}: one query. */
    private static Set<String> erasedHashes(Connection c, String entity, Collection<String> hashes) throws SQLException {
        Set<String> erased = new HashSet<>();
        try (PreparedStatement p = c.prepareStatement("SELECT encode(key_hash, 'hex') FROM dimstream.erased_keys "
                + "WHERE entity = ? AND key_hash = ANY (SELECT decode(h, 'hex') FROM unnest(?::text[]) h)")) {
            p.setString(1, entity);
            p.setArray(2, c.createArrayOf("text", hashes.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    erased.add(rs.getString(1));
                }
            }
        }
        return erased;
    }

    /** Whether {@code entity} has any tombstone: one probe of the primary key's prefix. */
    public static boolean any(Connection c, String entity) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM dimstream.erased_keys WHERE entity = ?)")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
