package io.dimstream.app.change;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Op;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * JSON encoding of {@link ChangeRecord} on the changes topic:
 * <pre>{"entity":"customer","class":"CHANGED","op":"upsert","event_time":"2025-08-22T17:00:00.000000Z",
 *  "data":{...},"source":{"topic":"crm.customers","partition":0,"offset":42}}</pre>
 * Values in {@code data} keep their JSON types; decimals stay exact (BigDecimal).
 */
public final class ChangeCodec {

    private static final ObjectMapper MAPPER = NativeEventJson.mapper();

    private ChangeCodec() {
    }

    public static byte[] encode(ChangeRecord r) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("entity", r.entity());
        root.put("class", r.changeClass().name());
        root.put("op", r.op().name().toLowerCase(Locale.ROOT));
        root.put("event_time", ColumnType.CANONICAL_TIMESTAMP.format(r.eventTime()));
        root.set("data", MAPPER.valueToTree(r.data()));
        ObjectNode src = root.putObject("source");
        src.put("topic", r.sourceTopic());
        src.put("partition", r.sourcePartition());
        src.put("offset", r.sourceOffset());
        try {
            return MAPPER.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode change record of entity " + r.entity() + ": " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException when the bytes are not a change record */
    public static ChangeRecord decode(byte[] bytes) {
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("change record is not JSON: " + e.getMessage(), e);
        }
        try {
            Instant t = ColumnType.parseInstant(root.get("event_time").asText())
                    .orElseThrow(() -> new IllegalArgumentException("bad event_time " + root.get("event_time")));
            JsonNode src = root.get("source");
            return new ChangeRecord(root.get("entity").asText(), ChangeClass.valueOf(root.get("class").asText()),
                    Op.valueOf(root.get("op").asText().toUpperCase(Locale.ROOT)), t, NativeEventJson.toMap(root.get("data")),
                    src.get("topic").asText(), src.get("partition").asInt(), src.get("offset").asLong());
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed change record: " + new String(bytes, StandardCharsets.UTF_8), e);
        }
    }

    /**
     * The changes-topic record key of a business key: a JSON array of the key values' canonical
     * texts, e.g. {@code ["C1"]} or {@code ["C1","2"]}. Equal keys give equal bytes, so Kafka's
     * default partitioner puts a key's events in one partition.
     */
    public static byte[] key(List<String> canonicalKeyParts) {
        ArrayNode a = MAPPER.createArrayNode();
        canonicalKeyParts.forEach(a::add);
        try {
            return MAPPER.writeValueAsBytes(a);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
