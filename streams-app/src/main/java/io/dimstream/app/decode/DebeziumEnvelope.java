package io.dimstream.app.decode;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Debezium change-event envelope, whatever its encoding: {@code op} c (create), u (update),
 * r (snapshot read) is an upsert of the {@code after} image; d is a delete of the {@code before}
 * image's key; t (a truncate of the source table, no key and no row image) is counted and dropped
 * with {@code on-truncate: ignore}, or a {@link Decoded.Truncated} with {@code delete-all}; m (a
 * logical decoding message, {@code pg_logical_emit_message}: no row change) is counted and dropped.
 *
 * <p>The event time follows {@code event-time}: {@code source.ts_ms} (the default: when the change
 * was committed in the source database), {@code ts_ms} (when the connector processed it) or
 * {@code field NAME} of the row image ({@link TimeField}). Events of one source transaction share
 * their commit time; their order is the topic's ({@code seq} = offset).
 */
final class DebeziumEnvelope {

    /** Debezium's defaults: commit time, truncates ignored. */
    static final DebeziumEnvelope DEFAULTS = new DebeziumEnvelope(CdcOptions.EventTime.SOURCE_TS_MS, null, CdcOptions.OnTruncate.IGNORE);

    private final CdcOptions.EventTime eventTime;
    private final TimeField timeField;
    private final CdcOptions.OnTruncate onTruncate;

    /**
     * @param timeField the field of {@code event-time: field NAME}, null for the other kinds
     */
    DebeziumEnvelope(CdcOptions.EventTime eventTime, TimeField timeField, CdcOptions.OnTruncate onTruncate) {
        if ((eventTime.kind() == CdcOptions.EventTime.Kind.FIELD) != (timeField != null)) {
            throw new IllegalArgumentException("event-time " + eventTime.configText() + " with time field " + timeField);
        }
        this.eventTime = eventTime;
        this.timeField = timeField;
        this.onTruncate = onTruncate;
    }

    /** @param envelope the envelope's fields as plain values; before, after and source as maps */
    Decoded toDecoded(Map<String, Object> envelope, long offset, Source source) {
        Object op = envelope.get("op");
        if (op == null) {
            return Decoded.error("Debezium field 'op' is missing");
        }
        try {
            return switch (String.valueOf(op)) {
                case "c", "u", "r" -> {
                    Map<String, Object> after = image(envelope, "after", op);
                    Instant time = time(envelope, after, "after");
                    yield Decoded.ok(Event.upsert(time, after, offset, source));
                }
                case "d" -> {
                    Map<String, Object> before = image(envelope, "before", op);
                    Instant time = time(envelope, before, "before");
                    yield Decoded.ok(Event.delete(time, before, offset, source));
                }
                case "t" -> truncate(envelope, source);
                case "m" -> Decoded.skip("Debezium message event (op m" + prefix(envelope) + "): a logical decoding message, "
                        + "no row change", Decoded.Skipped.MESSAGE);
                default -> Decoded.error("Debezium op \"" + op + "\" unknown (expected c, u, r, d, t or m)");
            };
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
    }

    /** A truncate has no row image: its time can only be the envelope's. */
    private Decoded truncate(Map<String, Object> envelope, Source source) {
        if (onTruncate == CdcOptions.OnTruncate.IGNORE) {
            return Decoded.skip("Debezium truncate of the source table (op t), on-truncate: ignore", Decoded.Skipped.TRUNCATE);
        }
        if (timeField != null) {
            // the config refuses delete-all with event-time: field NAME; a decoder made otherwise says why
            throw new IllegalArgumentException("Debezium truncate (op t) has no row image to read event-time field "
                    + timeField.name() + " from");
        }
        return Decoded.truncated(envelopeTime(envelope), source);
    }

    /** The event time of a row event, checked against the supported range and named by the field it came from. */
    private Instant time(Map<String, Object> envelope, Map<String, Object> image, String imageName) {
        return timeField != null ? timeField.take(image, imageName) : envelopeTime(envelope);
    }

    /**
     * {@code source.ts_ms} or {@code ts_ms}, as {@code event-time} says. A missing
     * {@code source.ts_ms} is the record's reason for the DLQ, never a silent fall-back to
     * {@code ts_ms}: the connector always writes it (the source block and its {@code ts_ms} are
     * mandatory in every data event), so a record without it was changed on its way (a transform)
     * or made by hand; taking the connector's processing time for that one record would put it on
     * another clock than its neighbours (later by the connector's lag, or by hours after a restart
     * or a snapshot) and could reorder it in its key's history without a trace. In the DLQ it is
     * seen, and re-driven once the cause is fixed (or {@code event-time: ts_ms} chosen for the feed).
     */
    private Instant envelopeTime(Map<String, Object> envelope) {
        if (eventTime.kind() == CdcOptions.EventTime.Kind.TS_MS) {
            Object ts = envelope.get("ts_ms");
            if (ts == null) {
                throw new IllegalArgumentException("ts_ms missing (event-time: ts_ms; source.ts_ms, the default, is the commit time)");
            }
            return EventTimes.ofEpochMillis(ts, "ts_ms");
        }
        Object ts = envelope.get("source") instanceof Map<?, ?> src ? src.get("ts_ms") : null;
        if (ts == null) {
            throw new IllegalArgumentException("source.ts_ms missing (event-time: source.ts_ms, the default; event-time: ts_ms "
                    + "takes the connector's processing time instead)");
        }
        return EventTimes.ofEpochMillis(ts, "source.ts_ms");
    }

    private static String prefix(Map<String, Object> envelope) {
        return envelope.get("message") instanceof Map<?, ?> m && m.get("prefix") != null ? ", prefix '" + m.get("prefix") + "'" : "";
    }

    /** The row image; a copy when the time field is to be taken out of it. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> image(Map<String, Object> envelope, String field, Object op) {
        if (envelope.get(field) instanceof Map<?, ?> m) {
            return timeField != null && !timeField.keep() ? new LinkedHashMap<>((Map<String, Object>) m) : (Map<String, Object>) m;
        }
        throw new IllegalArgumentException("Debezium op \"" + op + "\" has no '" + field + "' row image");
    }
}
