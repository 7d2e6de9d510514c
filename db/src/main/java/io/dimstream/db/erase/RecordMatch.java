package io.dimstream.db.erase;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.ReplayKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a Kafka record kept in PostgreSQL (a DLQ mirror row, a sink reject: its key and value
 * bytes) belongs to one of the erased keys. dimstream stores these records as they came, in any
 * format, undecoded, so the match reads what it can:
 * <ul>
 *   <li>bytes that are JSON (native events, Debezium JSON, the changes topic's records, JSON keys):
 *       any object in it, at any depth, holding every key column with the key's values (as the
 *       column's type reads them), or, for a one-column key, the whole document being the key's value;</li>
 *   <li>other UTF-8 text as the record key of a one-column key: the text being the key's value (the
 *       way most producers key their records; {@code C10} is not {@code C1});</li>
 *   <li>anything else (Avro, a value that is not JSON, a key of several columns as text): the bytes
 *       containing the UTF-8 text of every column of the key. This may also take a record of
 *       another key whose text contains this one ({@code C10} for {@code C1}): an erasure would
 *       rather remove a dead letter too many than leave one of the person's.</li>
 * </ul>
 */
final class RecordMatch {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final EntitySpec entity;
    private final ReplayKeys keys;
    private final List<List<byte[]>> keyBytes = new ArrayList<>();

    RecordMatch(EntitySpec entity, ReplayKeys keys) {
        this.entity = entity;
        this.keys = keys;
        for (List<String> k : keys.keys()) {
            keyBytes.add(k.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList());
        }
    }

    /** Whether a record of these key and value bytes (either may be null) belongs to one of the keys. */
    boolean matches(byte[] key, byte[] value) {
        return matches(key, true) || matches(value, false);
    }

    private boolean matches(byte[] bytes, boolean isKey) {
        if (bytes == null || bytes.length == 0) {
            return false;
        }
        String text = utf8(bytes);
        if (text != null) {
            JsonNode doc = json(text);
            if (doc != null && (doc.isContainerNode() || doc.isTextual() || doc.isNumber())) {
                return matchesJson(doc, true);
            }
            if (isKey && entity.key().size() == 1) {
                return keys.matches(entity, Map.of(entity.key().get(0), text));
            }
        }
        return containsEveryColumn(bytes);
    }

    private boolean matchesJson(JsonNode n, boolean root) {
        List<String> cols = entity.key();
        if (root && n.isValueNode()) {
            return cols.size() == 1 && keys.matches(entity, Map.of(cols.get(0), scalar(n)));
        }
        if (n.isObject() && cols.stream().allMatch(c -> n.has(c) && n.get(c).isValueNode() && !n.get(c).isNull())) {
            Map<String, Object> data = new HashMap<>();
            cols.forEach(c -> data.put(c, scalar(n.get(c))));
            if (keys.matches(entity, data)) {
                return true;
            }
        }
        for (JsonNode child : n) {
            if (child.isContainerNode() && matchesJson(child, false)) {
                return true;
            }
        }
        return false;
    }

    private boolean containsEveryColumn(byte[] bytes) {
        for (List<byte[]> k : keyBytes) {
            if (k.stream().allMatch(part -> indexOf(bytes, part) >= 0)) {
                return true;
            }
        }
        return false;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return needle.length == 0 ? 0 : -1;
    }

    private static Object scalar(JsonNode n) {
        return n.isTextual() ? n.asText() : n.isNumber() ? n.numberValue() : n.isBoolean() ? (Object) n.asBoolean() : n.toString();
    }

    /** The bytes as text: valid UTF-8 without control characters (but tab and line breaks); else null (binary, e.g. Avro's length prefixes). */
    private static String utf8(byte[] bytes) {
        for (byte x : bytes) {
            if (x >= 0 && x < 0x20 && x != '\t' && x != '\n' && x != '\r') {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
