package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;

/**
 * {@code format: debezium-json}: Debezium change events as Kafka Connect's JsonConverter writes them,
 * with the {@code {"schema": ..., "payload": {...}}} wrapper ({@code schemas.enable=true}) or without
 * it. See {@link DebeziumEnvelope} for the mapping. The tombstone Debezium writes after a delete (a
 * null value, or a wrapper whose payload is null) carries no change and is skipped.
 *
 * <p>Values are taken as JSON gives them: columns that Debezium encodes as numbers with a semantic
 * type (e.g. {@code io.debezium.time.MicroTimestamp}) must be declared with a matching numeric type,
 * or the connector configured to emit ISO strings ({@code time.precision.mode}, ZonedTimestamp).
 */
public final class DebeziumJsonDecoder implements EventDecoder {

    static final String TOMBSTONE = "Debezium tombstone (null value) after a delete";

    private final DebeziumEnvelope envelope;

    /** Debezium's defaults: {@code event-time: source.ts_ms}, {@code on-truncate: ignore}. */
    public DebeziumJsonDecoder() {
        this(DebeziumEnvelope.DEFAULTS);
    }

    DebeziumJsonDecoder(DebeziumEnvelope envelope) {
        this.envelope = envelope;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
        if (value == null) {
            return Decoded.skip(TOMBSTONE);
        }
        JsonNode root;
        try {
            root = JsonValues.object(value);
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
        if (root.has("schema") && root.has("payload")) {
            root = root.get("payload");
            if (root.isNull()) {
                return Decoded.skip(TOMBSTONE);
            }
            if (!root.isObject()) {
                return Decoded.error("Debezium 'payload' is not a JSON object");
            }
        }
        return envelope.decode(NativeEventJson.toMap(root), offset, Source.kafka(topic, partition, offset));
    }
}
