package io.dimstream.app.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.app.decode.ColumnInference;
import io.dimstream.db.entity.ColumnType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * A captured table's shape read from one of its Debezium records: the record key's fields (the
 * business key) and the row image's fields typed by the record's schema ({@link ColumnInference}:
 * Kafka Connect's JSON schema, or the Avro writer schema). A record that cannot give it says why,
 * in words an operator acts on ({@link Unreadable}).
 */
public sealed interface RecordShape {

    /** The shape: key fields and every typed field of the row image, in the record's order. */
    record Shape(List<String> key, Map<String, String> columns) implements RecordShape {
    }

    /** Why the record gives no shape. */
    record Unreadable(String reason) implements RecordShape {
    }

    ObjectMapper JSON = new ObjectMapper();

    /** The shape of a {@code debezium-json} record (JsonConverter with {@code schemas.enable=true} for key and value). */
    static RecordShape ofJson(byte[] key, byte[] value) {
        JsonNode v;
        JsonNode k;
        try {
            v = value == null ? null : JSON.readTree(value);
            k = key == null ? null : JSON.readTree(key);
        } catch (IOException e) {
            return new Unreadable("a record is not JSON (" + e.getMessage() + "): is the connector's converter JsonConverter?");
        }
        if (v == null || !v.isObject()) {
            return new Unreadable("a record has no JSON object as value");
        }
        if (!v.has("schema") || !v.has("payload")) {
            return new Unreadable("its records carry no schema (JsonConverter with value.converter.schemas.enable=false): "
                    + "set value.converter.schemas.enable=true and key.converter.schemas.enable=true on the connector, or declare "
                    + "the entity by hand under entities: with its columns and types");
        }
        Map<String, ColumnType> types = ColumnInference.fromJsonSchema(v.get("schema"));
        if (types.isEmpty()) {
            return new Unreadable("its value schema has no before/after row image with typed fields: is it a Debezium change event?");
        }
        if (k == null || k.isNull()) {
            return noKey();
        }
        List<String> keyFields = new ArrayList<>();
        if (k.isObject() && !k.has("schema") && !k.has("payload")) {
            k.fieldNames().forEachRemaining(keyFields::add); // key.converter.schemas.enable=false: the key's fields
            return shape(keyFields, types);
        }
        JsonNode fields = k.path("schema").path("fields");
        if (!fields.isArray()) {
            return new Unreadable("its record keys carry no schema (key.converter.schemas.enable=false): set "
                    + "key.converter.schemas.enable=true on the connector, or declare the entity by hand with key:");
        }
        fields.forEach(f -> keyFields.add(f.path("field").asText()));
        return shape(keyFields, types);
    }

    /** The shape of a {@code debezium-avro} record, its key and value read by the connector's deserializers. */
    static RecordShape ofAvro(GenericRecord key, GenericRecord value) {
        if (value == null) {
            return new Unreadable("a record has no value");
        }
        Map<String, ColumnType> types = ColumnInference.fromAvroEnvelope(value.getSchema());
        if (types.isEmpty()) {
            return new Unreadable("its value schema has no before/after row image with typed fields: is it a Debezium change event?");
        }
        if (key == null) {
            return noKey();
        }
        List<String> keyFields = key.getSchema().getType() == Schema.Type.RECORD
                ? key.getSchema().getFields().stream().map(Schema.Field::name).toList() : List.of();
        return shape(keyFields, types);
    }

    private static RecordShape noKey() {
        return new Unreadable("its records have no key (a table without a primary key): give the connector message.key.columns "
                + "for it, or declare the entity by hand with key:");
    }

    private static RecordShape shape(List<String> keyFields, Map<String, ColumnType> types) {
        if (keyFields.isEmpty()) {
            return noKey();
        }
        for (String f : keyFields) {
            if (!types.containsKey(f)) {
                return new Unreadable("key field \"" + f + "\" is not a typed field of the row image " + types.keySet());
            }
        }
        Map<String, String> columns = new LinkedHashMap<>();
        types.forEach((name, type) -> columns.put(name, type.sqlName()));
        return new Shape(keyFields, columns);
    }
}
