package io.dimstream.db.event;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A change event as the writer takes it (DESIGN section 3), not yet checked against an entity.
 *
 * @param eventTime when it happened at the source; null when the input had none or a bad one
 *                  (the writer then rejects it with {@code badTimeReason})
 * @param data      key columns and, for upserts, the full row image, as decoded (String,
 *                  Number, Boolean, null, or typed values)
 * @param seq       arrival order: of two events of one key with the same event time, the higher
 *                  seq wins. Kafka sources use the record offset, {@code load} a per-run base plus
 *                  the line number, so re-delivering an event never changes the winner.
 */
public record Event(Op op, Instant eventTime, Map<String, Object> data, long seq, Source source, String badTimeReason) {

    public Event {
        data = Collections.unmodifiableMap(new LinkedHashMap<>(data));
    }

    public static Event upsert(Instant t, Map<String, Object> data, long seq, Source source) {
        return new Event(Op.UPSERT, t, data, seq, source, null);
    }

    public static Event delete(Instant t, Map<String, Object> key, long seq, Source source) {
        return new Event(Op.DELETE, t, key, seq, source, null);
    }
}
