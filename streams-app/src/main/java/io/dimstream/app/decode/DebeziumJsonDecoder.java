package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.util.Map;

/**
 * {@code format: debezium-json}: Debezium change events as Kafka Connect's JsonConverter writes them,
 * with the {@code {"schema": ..., "payload": {...}}} wrapper ({@code schemas.enable=true}) or without
 * it. See {@link DebeziumEnvelope} for the mapping. The tombstone Debezium writes after a delete (a
 * null value, or a wrapper whose payload is null) carries no change and is skipped.
 *
 * <p>Values are converted by their semantic type ({@link DebeziumValues}): with the wrapper, the
 * {@code name} and {@code parameters} the schema gives each column of {@code before} and
 * {@code after} (e.g. {@code io.debezium.time.MicroTimestamp} to a timestamp,
 * {@code org.apache.kafka.connect.data.Decimal} from base64 to a decimal of the schema's scale,
 * {@code bytes} from base64); without it, the entity's {@code encodings:} hints; a column neither
 * names is taken as JSON gives it. A value that does not decode is a {@link Decoded.Failed} naming
 * the column.
 */
public final class DebeziumJsonDecoder implements EventDecoder {

    static final String TOMBSTONE = "Debezium tombstone (null value) after a delete";

    private final DebeziumEnvelope envelope;
    private final DebeziumValues values;

    /** Debezium's defaults: {@code event-time: source.ts_ms}, {@code on-truncate: ignore}; conversions by the records' schemas only. */
    public DebeziumJsonDecoder() {
        this(DebeziumEnvelope.DEFAULTS, DebeziumValues.SCHEMAS_ONLY);
    }

    DebeziumJsonDecoder(DebeziumEnvelope envelope, DebeziumValues values) {
        this.envelope = envelope;
        this.values = values;
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
        JsonNode schema = null;
        if (root.has("schema") && root.has("payload")) {
            schema = root.get("schema");
            root = root.get("payload");
            if (root.isNull()) {
                return Decoded.skip(TOMBSTONE);
            }
            if (!root.isObject()) {
                return Decoded.error("Debezium 'payload' is not a JSON object");
            }
        }
        Map<String, Object> image = NativeEventJson.toMap(root);
        try {
            values.convertImages(image, DebeziumValues.fromJsonSchema(schema));
        } catch (IllegalArgumentException e) {
            return Decoded.error(e.getMessage());
        }
        Decoded d = envelope.toDecoded(image, offset, Source.kafka(topic, partition, offset));
        if (schema != null && d instanceof Decoded.Ok ok) {
            // the row image's schema: what a field new to the entity becomes (new-columns:)
            Map<String, io.dimstream.db.entity.ColumnType> types = ColumnInference.fromJsonSchema(schema);
            return types.isEmpty() ? d : new Decoded.Ok(ok.event(), types);
        }
        return d;
    }
}
