package io.dimstream.db.event;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks an {@link Event} against an entity: a time is present, no key part is NULL, every value
 * has its column's type, and no unknown column is present. Returns either a {@link TypedEvent}
 * or a {@link Rejection} naming the problem.
 */
public final class EventValidator {

    private final EntitySpec entity;
    private final List<String> columns;
    private final List<ColumnType> trackedTypes;

    public EventValidator(EntitySpec entity) {
        this.entity = entity;
        this.columns = entity.dataColumns();
        this.trackedTypes = entity.tracked().stream().map(entity::type).toList();
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
        if (e.op() == null) {
            return reject(e, "op is missing");
        }
        for (String k : e.data().keySet()) {
            if (!entity.columns().containsKey(k)) {
                return reject(e, "column '" + k + "' is not declared for entity '" + entity.name() + "'");
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
            try {
                values.add(entity.type(c).coerce(raw));
            } catch (IllegalArgumentException ex) {
                return reject(e, "column '" + c + "': " + ex.getMessage());
            }
        }
        byte[] hash = null;
        if (e.op() == Op.UPSERT) {
            hash = RecordHash.ofValues(trackedTypes, values.subList(nKey, nKey + entity.tracked().size()));
        }
        return new Result(new TypedEvent(e.op() == Op.DELETE, e.eventTime(), values, hash, e.seq(), e.source()), null);
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
