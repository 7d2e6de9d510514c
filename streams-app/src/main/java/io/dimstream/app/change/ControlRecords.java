package io.dimstream.app.change;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.json.InputJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.header.Headers;

/**
 * What the control records ({@link SliceMarker}, {@link TruncateMarker}) share: the header that
 * names their kind, and the reading of their JSON value with messages naming the marker and the
 * field ({@code what} is the marker's name in them, e.g. "end-of-slice marker").
 */
final class ControlRecords {

    static final ObjectMapper MAPPER = NativeEventJson.mapper();

    private ControlRecords() {
    }

    /** Puts the control header naming {@code kind} (replacing any control header). */
    static Headers mark(Headers headers, String kind) {
        headers.remove(SliceMarker.HEADER);
        headers.add(SliceMarker.HEADER, kind.getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    /** The value as a JSON object. */
    static JsonNode object(byte[] value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " without a value");
        }
        JsonNode root;
        try {
            root = InputJson.readTree(StrictUtf8.decode(value));
        } catch (InputJson.TrailingContent e) {
            throw new IllegalArgumentException(what + " has " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(what + " is not JSON: " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(what + ": expected a JSON object");
        }
        return root;
    }

    /** The {@code entity} field: a non-blank string. */
    static String entity(JsonNode root, String what) {
        JsonNode entity = root.get("entity");
        if (entity == null || !entity.isTextual() || entity.asText().isBlank()) {
            throw new IllegalArgumentException(what + ": field 'entity' missing or not a string");
        }
        return entity.asText();
    }

    /** An instant field, within the range PostgreSQL stores (the sink writes it and deletes keys at it). */
    static Instant instant(JsonNode root, String what, String field) {
        JsonNode n = root.get(field);
        if (n == null || !n.isTextual()) {
            throw new IllegalArgumentException(what + ": field '" + field + "' missing or not a string");
        }
        Instant t = ColumnType.parseInstant(n.asText()).orElseThrow(() -> new IllegalArgumentException(
                what + ": field '" + field + "' is not an ISO-8601 instant with offset: \"" + n.asText() + "\""));
        if (!ColumnType.inRange(t)) {
            throw new IllegalArgumentException(what + ": field '" + field + "' \"" + n.asText() + "\" is outside the supported range "
                    + ColumnType.INSTANT_RANGE);
        }
        return t;
    }
}
