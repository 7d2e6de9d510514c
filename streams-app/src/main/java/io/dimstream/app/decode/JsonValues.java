package io.dimstream.app.decode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.json.InputJson;

/** Reads a record value as a JSON object with the exact-number mapper of {@link NativeEventJson}. */
final class JsonValues {

    private JsonValues() {
    }

    /**
     * Strict UTF-8 ({@link StrictUtf8}), then one JSON value within {@link NativeEventJson}'s limits.
     *
     * @throws IllegalArgumentException {@code not valid UTF-8: ...}, {@code not valid JSON: ...},
     *                                  {@code trailing content after the JSON value at byte N},
     *                                  {@code JSON beyond dimstream's input limits: ...} or {@code not a JSON object}
     */
    static JsonNode object(byte[] value) {
        String text = StrictUtf8.decode(value);
        JsonNode root;
        try {
            root = InputJson.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(NativeEventJson.notJson(e), e);
        }
        if (root == null || root.isMissingNode() || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        return root;
    }
}
