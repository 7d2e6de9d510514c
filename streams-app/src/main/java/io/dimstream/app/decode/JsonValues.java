package io.dimstream.app.decode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.event.NativeEventJson;
import java.io.IOException;

/** Reads a record value as a JSON object with the exact-number mapper of {@link NativeEventJson}. */
final class JsonValues {

    private JsonValues() {
    }

    /** @throws IllegalArgumentException {@code not valid JSON: ...} or {@code not a JSON object} */
    static JsonNode object(byte[] value) {
        JsonNode root;
        try {
            root = NativeEventJson.mapper().readTree(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode() || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        return root;
    }
}
