package io.dimstream.db.event;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks an {@link Event} against an entity: a time is present and within
 * {@link ColumnType#INSTANT_RANGE}, no key part is NULL, every value has its column's type (and
 * fits PostgreSQL's limits for it, see {@link ColumnType#coerce}), the key's text is at most
 * {@value #MAX_KEY_BYTES} bytes, and no unknown column is present. Returns either a
 * {@link TypedEvent} or a {@link Rejection} naming the problem. An attribute whose value is
 * {@link Unchanged#VALUE} stays so (the writer resolves it); a key part may not be.
 *
 * <p>Everything PostgreSQL would refuse later is refused here, so that a bad value becomes one
 * rejection with its reason instead of a batch the database refuses (which the streaming sink
 * would retry).
 */
public final class EventValidator {

    /**
     * The most bytes a key's canonical text may have, all parts together. PostgreSQL refuses a
     * B-tree entry larger than about a third of a page (2704 bytes with 8 kB pages, SQLSTATE
     * 54000), and the key is indexed three times: the primary key (key, valid_from), the
     * one-open-version index (key) and the event memory's primary key (key, event_time). 2000
     * bytes leave room for the time column, the tuple and per-column headers and alignment.
     */
    public static final int MAX_KEY_BYTES = 2000;

    private final EntitySpec entity;
    private final List<String> columns;
    private final List<ColumnType> trackedTypes;
    private final List<String> evolvedTracked;
    /** Per data column, its modifier or null. */
    private final TypeModifier[] modifiers;

    public EventValidator(EntitySpec entity) {
        this.entity = entity;
        this.columns = entity.dataColumns();
        this.trackedTypes = entity.tracked().stream().map(entity::type).toList();
        this.evolvedTracked = entity.evolvedTracked();
        this.modifiers = columns.stream().map(c -> entity.modifier(c).orElse(null)).toArray(TypeModifier[]::new);
    }

    /** The outcome of one validation: exactly one side is set. */
    public record Result(TypedEvent event, Rejection rejection) {
        public boolean ok() {
            return event != null;
        }
    }

    public Result validate(Event e) {
        if (e.eventTime() == null) {
            return reject(e, e.badTimeReason() != null ? e.badTimeReason() : "event_time is missing");
        }
        if (!ColumnType.inRange(e.eventTime())) {
            return reject(e, "event_time " + e.eventTime() + " is outside the supported range " + ColumnType.INSTANT_RANGE);
        }
        // PostgreSQL's precision: events a nanosecond apart are one (key, event_time) there, so they are here too
        Instant time = e.eventTime().truncatedTo(ChronoUnit.MICROS);
        if (e.op() == null) {
            return reject(e, "op is missing");
        }
        for (Map.Entry<String, Object> f : e.data().entrySet()) {
            // a value carried on for a column this shape lacks carries nothing: a column another shape
            // added (a topology task's, a load batch's) that this one did not (only erased keys held it)
            if (!entity.columns().containsKey(f.getKey()) && f.getValue() != Unchanged.VALUE) {
                return reject(e, "column '" + f.getKey() + "' is not declared for entity '" + entity.name() + "'");
            }
        }
        int nKey = entity.key().size();
        List<Object> values = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            boolean isKey = i < nKey;
            if (!isKey && e.op() == Op.DELETE) {
                values.add(null);
                continue;
            }
            Object raw = e.data().get(c);
            if (isKey && raw == null) {
                return reject(e, "key column '" + c + "' is " + (e.data().containsKey(c) ? "NULL" : "missing"));
            }
            if (raw == Unchanged.VALUE) {
                if (isKey) {
                    return reject(e, "key column '" + c + "' is not available (the source sent a placeholder for it)");
                }
                values.add(raw); // resolved by the writer from the event before this one
                continue;
            }
            try {
                Object v = entity.type(c).coerce(raw);
                TypeModifier m = modifiers[i];
                // before hashing: the hash is of the value as the column stores it (rounded, cut)
                values.add(v == null || m == null ? v : m.apply(v));
            } catch (IllegalArgumentException ex) {
                return reject(e, "column '" + c + "': " + ex.getMessage());
            }
        }
        String keyTooLong = keyTooLong(values);
        if (keyTooLong != null) {
            return reject(e, keyTooLong);
        }
        byte[] hash = null;
        if (e.op() == Op.UPSERT) {
            hash = RecordHash.ofValues(trackedTypes, values.subList(nKey, nKey + entity.tracked().size()), evolvedTracked);
        }
        return new Result(new TypedEvent(e.op() == Op.DELETE, time, values, hash, e.seq(), e.source()), null);
    }

    /** Null when the key's canonical text fits {@link #MAX_KEY_BYTES}, else the reason. */
    private String keyTooLong(List<Object> values) {
        int nKey = entity.key().size();
        String[] texts = new String[nKey];
        long chars = 0;
        for (int i = 0; i < nKey; i++) {
            texts[i] = entity.type(columns.get(i)).canonical(values.get(i)); // never Unchanged: refused above
            chars += texts[i].length();
        }
        // a UTF-16 char is at most 3 UTF-8 bytes: a key this short needs no encoding to be judged
        if (chars * 3 <= MAX_KEY_BYTES) {
            return null;
        }
        long bytes = 0;
        for (String t : texts) {
            bytes += t.getBytes(StandardCharsets.UTF_8).length;
        }
        if (bytes <= MAX_KEY_BYTES) {
            return null;
        }
        return "key (" + String.join(", ", entity.key()) + ") is " + bytes + " bytes long as text; at most " + MAX_KEY_BYTES
                + " bytes fit PostgreSQL's indexes on the key (an index entry holds at most about 2700 bytes)";
    }

    private static Result reject(Event e, String reason) {
        return new Result(null, new Rejection(e.source(), reason));
    }

    public static Map<String, Object> keyOf(EntitySpec entity, TypedEvent e) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < entity.key().size(); i++) {
            m.put(entity.key().get(i), e.values().get(i));
        }
        return m;
    }
}
