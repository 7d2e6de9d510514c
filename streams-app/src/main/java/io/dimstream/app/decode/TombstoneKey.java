package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.json.InputJson;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The key columns of a tombstone (a record with a null value, which deletes its key), read from the
 * record key: a JSON object {@code {"customer_id":"C1"}}, or, for a single-column key, the plain key
 * text ({@code C1}) or a JSON string ({@code "C1"}). A JSON object or string with content after it
 * ({@code {"customer_id":"C1"}{...}}) is refused, not read as its first value.
 */
final class TombstoneKey {

    private TombstoneKey() {
    }

    /** @throws IllegalArgumentException with a reason fit for the dead-letter topic */
    static Map<String, Object> columns(byte[] key, List<String> keyColumns) {
        if (key == null) {
            throw new IllegalArgumentException("tombstone (null value) without a record key: no key to delete");
        }
        String text;
        try {
            text = StrictUtf8.decode(key);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tombstone key is " + e.getMessage());
        }
        JsonNode node = null;
        try {
            node = InputJson.readTree(text);
        } catch (InputJson.TrailingContent e) {
            String start = text.strip();
            if (start.startsWith("{") || start.startsWith("\"")) {
                throw new IllegalArgumentException("tombstone key has " + e.getOriginalMessage());
            }
            // a plain key that starts like a JSON number or word ("2024 Q1"): the text itself, below
        } catch (IOException e) {
            // not JSON (or JSON beyond the limits): a plain key string, accepted below for a single-column key
        }
        if (node != null && node.isObject()) {
            return NativeEventJson.toMap(node);
        }
        if (keyColumns.size() != 1) {
            throw new IllegalArgumentException("tombstone key is not a JSON object of the key columns " + keyColumns + ": " + text);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(keyColumns.get(0), node != null && node.isTextual() ? node.asText() : text);
        return m;
    }
}
