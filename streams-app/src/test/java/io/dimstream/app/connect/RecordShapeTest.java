package io.dimstream.app.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** A table's shape from one Debezium record, and what an operator is told when a record cannot give it. */
class RecordShapeTest {

    private static final String VALUE = """
            {"schema": {"type": "struct", "name": "shop.public.orders.Envelope", "fields": [
              {"type": "struct", "optional": true, "field": "before", "fields": [
                {"type": "int64", "optional": false, "field": "order_id"}, {"type": "int32", "optional": false, "field": "line"}]},
              {"type": "struct", "optional": true, "field": "after", "fields": [
                {"type": "int64", "optional": false, "field": "order_id"}, {"type": "int32", "optional": false, "field": "line"},
                {"type": "bytes", "optional": true, "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"},
                 "field": "price"},
                {"type": "string", "optional": true, "name": "io.debezium.time.ZonedTimestamp", "field": "placed"},
                {"type": "int32", "optional": true, "name": "io.debezium.time.Date", "field": "due"},
                {"type": "string", "optional": true, "name": "io.debezium.data.Json", "field": "attrs"},
                {"type": "boolean", "optional": true, "field": "gift"}]},
              {"type": "string", "optional": false, "field": "op"}]},
             "payload": {"before": null, "after": {"order_id": 1, "line": 2, "price": "AfQ=", "placed": "2025-08-01T10:00:00Z",
               "due": 20000, "attrs": "{}", "gift": true}, "op": "c"}}
            """;
    private static final String KEY = """
            {"schema": {"type": "struct", "name": "shop.public.orders.Key", "fields": [
              {"type": "int64", "optional": false, "field": "order_id"}, {"type": "int32", "optional": false, "field": "line"}]},
             "payload": {"order_id": 1, "line": 2}}
            """;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> orderColumns() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("order_id", "bigint");
        m.put("line", "integer");
        m.put("price", "numeric");
        m.put("placed", "timestamp with time zone");
        m.put("due", "date");
        m.put("attrs", "jsonb");
        m.put("gift", "boolean");
        return m;
    }

    @Test
    void aJsonConverterRecordWithSchemasGivesTheKeyAndEveryTypedColumn() {
        assertThat(RecordShape.ofJson(bytes(KEY), bytes(VALUE)))
                .isEqualTo(new RecordShape.Shape(List.of("order_id", "line"), orderColumns()));
        // a key written without its schema: its fields are the key
        assertThat(RecordShape.ofJson(bytes("{\"order_id\": 1, \"line\": 2}"), bytes(VALUE)))
                .isEqualTo(new RecordShape.Shape(List.of("order_id", "line"), orderColumns()));
    }

    @Test
    void aRecordThatCannotTypeItsTableSaysWhatToDo() {
        assertThat(RecordShape.ofJson(bytes(KEY), bytes("{\"before\": null, \"after\": {\"order_id\": 1}, \"op\": \"c\"}")))
                .isEqualTo(new RecordShape.Unreadable("its records carry no schema (JsonConverter with "
                        + "value.converter.schemas.enable=false): set value.converter.schemas.enable=true and "
                        + "key.converter.schemas.enable=true on the connector, or declare the entity by hand under entities: with its "
                        + "columns and types"));
        assertThat(RecordShape.ofJson(null, bytes(VALUE))).isEqualTo(new RecordShape.Unreadable("its records have no key (a table "
                + "without a primary key): give the connector message.key.columns for it, or declare the entity by hand with key:"));
        assertThat(RecordShape.ofJson(bytes("{\"schema\": {\"type\": \"struct\", \"fields\": [{\"type\": \"string\", \"field\": \"sku\"}]},"
                + " \"payload\": {\"sku\": \"x\"}}"), bytes(VALUE)))
                .isEqualTo(new RecordShape.Unreadable("key field \"sku\" is not a typed field of the row image "
                        + "[order_id, line, price, placed, due, attrs, gift]"));
        assertThat(RecordShape.ofJson(bytes(KEY), bytes("not json"))).isInstanceOf(RecordShape.Unreadable.class)
                .extracting(u -> ((RecordShape.Unreadable) u).reason()).asString()
                .startsWith("a record is not JSON (").endsWith("): is the connector's converter JsonConverter?");
        assertThat(RecordShape.ofJson(bytes(KEY), bytes("{\"schema\": {\"type\": \"string\"}, \"payload\": \"x\"}")))
                .isEqualTo(new RecordShape.Unreadable("its value schema has no before/after row image with typed fields: is it a "
                        + "Debezium change event?"));
    }

    @Test
    void anAvroRecordGivesItsShapeFromTheWriterSchema() {
        Schema row = SchemaBuilder.record("Value").namespace("shop.public.devices").fields()
                .name("id").type(SchemaBuilder.builder().stringType()).noDefault()
                .name("active").type().optional().booleanType()
                .name("seen").type().optional().longType()
                .endRecord();
        Schema envelope = SchemaBuilder.record("Envelope").namespace("shop.public.devices").fields()
                .name("before").type().optional().type(row)
                .name("after").type().optional().type(row)
                .name("op").type().stringType().noDefault()
                .endRecord();
        Schema keySchema = SchemaBuilder.record("Key").namespace("shop.public.devices").fields()
                .name("id").type(SchemaBuilder.builder().stringType()).noDefault().endRecord();
        GenericRecord key = new GenericData.Record(keySchema);
        key.put("id", "d1");
        GenericRecord value = new GenericData.Record(envelope);
        value.put("op", "c");
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put("id", "text");
        columns.put("active", "boolean");
        columns.put("seen", "bigint");
        assertThat(RecordShape.ofAvro(key, value)).isEqualTo(new RecordShape.Shape(List.of("id"), columns));
        assertThat(RecordShape.ofAvro(null, value)).isInstanceOf(RecordShape.Unreadable.class);
    }
}
