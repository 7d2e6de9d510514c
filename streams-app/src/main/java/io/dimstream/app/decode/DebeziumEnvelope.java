package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.Map;

/**
 * The Debezium change-event envelope, whatever its encoding: {@code op} c (create), u (update),
 * r (snapshot read) is an upsert of the {@code after} image; d is a delete of the {@code before}
 * image's key. The event time is the envelope's {@code ts_ms}, else {@code source.ts_ms}.
 */
final class DebeziumEnvelope {

    private DebeziumEnvelope() {
    }

    /** @param envelope the envelope's fields as plain values; before, after and source as maps */
    static Decoded decode(Map<String, Object> envelope, long offset, Source source) {
        Object op = envelope.get("op");
        if (op == null) {
            return Decoded.error("Debezium field 'op' is missing");
        }
        try {
            Instant time = timestamp(envelope);
            return switch (String.valueOf(op)) {
                case "c", "u", "r" -> Decoded.ok(Event.upsert(time, image(envelope, "after", op), offset, source));
                case "d" -> Decoded.ok(Event.delete(time, image(envelope, "before", op), offset, source));
                default -> Decoded.error("Debezium op \"" + op + "\" unknown (expected c, u, r or d)");
            };
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }

    /** The event time, checked against the supported range and named by the field it came from. */
    private static Instant timestamp(Map<String, Object> envelope) {
        Object ts = envelope.get("ts_ms");
        if (ts != null) {
            return EventTimes.ofEpochMillis(ts, "ts_ms");
        }
        if (envelope.get("source") instanceof Map<?, ?> src && src.get("ts_ms") != null) {
            return EventTimes.ofEpochMillis(src.get("ts_ms"), "source.ts_ms");
        }
        throw new IllegalArgumentException("ts_ms missing (neither ts_ms nor source.ts_ms is set)");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> image(Map<String, Object> envelope, String field, Object op) {
        if (envelope.get(field) instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new IllegalArgumentException("Debezium op \"" + op + "\" has no '" + field + "' row image");
    }
}
