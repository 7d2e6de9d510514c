package io.dimstream.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.schemas.registry.MockSchemaRegistry;
import io.dimstream.schemas.serde.AvroWireDeserializer;
import io.dimstream.schemas.serde.AvroWireSerializer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AvroValuesTest {

    private static final String SCOPE = "avro-values-test";

    private static final Schema EVERYTHING = new Schema.Parser().parse("""
            {"type": "record", "name": "Everything", "namespace": "t", "fields": [
              {"name": "s", "type": "string"},
              {"name": "i", "type": "int"},
              {"name": "l", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "d", "type": "double"},
              {"name": "b", "type": "boolean"},
              {"name": "raw", "type": "bytes"},
              {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
              {"name": "maybe_string", "type": ["null", "string"]},
              {"name": "maybe_long", "type": ["null", "long"]},
              {"name": "absent", "type": ["null", "string"]},
              {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "city", "type": "string"}, {"name": "zip", "type": ["null", "int"]}]}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attrs", "type": {"type": "map", "values": "long"}},
              {"name": "ts_millis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "ts_micros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "maybe_ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "round_price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "fixed_price", "type": {"type": "fixed", "name": "Money", "size": 8,
                                               "logicalType": "decimal", "precision": 12, "scale": 3}},
              {"name": "id", "type": {"type": "string", "logicalType": "uuid"}}
            ]}""");

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static byte[] fixed8(long unscaled) {
        return ByteBuffer.allocate(8).putLong(unscaled).array();
    }

    /** The record as a deserializer gives it: Utf8 strings, raw longs and ints, ByteBuffers, GenericFixed. */
    private static GenericRecord throughTheWire(GenericRecord record) {
        MockSchemaRegistry registry = MockSchemaRegistry.forScope(SCOPE);
        byte[] bytes = new AvroWireSerializer(registry).serialize("t", record);
        return new AvroWireDeserializer(registry).deserialize("t", bytes);
    }

    private static GenericData.Record everything() {
        Schema address = EVERYTHING.getField("address").schema();
        return new GenericRecordBuilder(EVERYTHING)
                .set("s", "héllo")
                .set("i", 7)
                .set("l", 1L << 40)
                .set("f", 0.1f)
                .set("d", 2.5)
                .set("b", true)
                .set("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .set("color", new GenericData.EnumSymbol(EVERYTHING.getField("color").schema(), "GREEN"))
                .set("maybe_string", "x")
                .set("maybe_long", 42L)
                .set("absent", null)
                .set("address", new GenericRecordBuilder(address).set("city", "Utrecht").set("zip", 3511).build())
                .set("tags", List.of("a", "b"))
                .set("attrs", Map.of("k", 1L))
                .set("ts_millis", 1_755_882_000_123L)
                .set("ts_micros", 1_755_882_000_123_456L)
                .set("maybe_ts", 1_755_882_000_000_001L)
                .set("day", 20_322)
                .set("price", ByteBuffer.wrap(BigInteger.valueOf(-12_345).toByteArray()))
                .set("round_price", ByteBuffer.wrap(BigInteger.valueOf(1_000).toByteArray()))
                .set("fixed_price", new GenericData.Fixed(EVERYTHING.getField("fixed_price").schema(), fixed8(1_234_567)))
                .set("id", "3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f")
                .build();
    }

    private static LinkedHashMap<String, Object> expected() {
        LinkedHashMap<String, Object> address = new LinkedHashMap<>();
        address.put("city", "Utrecht");
        address.put("zip", 3511L);
        LinkedHashMap<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("k", 1L);
        LinkedHashMap<String, Object> map = new LinkedHashMap<>();
        map.put("s", "héllo");
        map.put("i", 7L);
        map.put("l", 1L << 40);
        map.put("f", 0.1d);
        map.put("d", 2.5d);
        map.put("b", true);
        map.put("raw", new byte[] {1, 2, 3});
        map.put("color", "GREEN");
        map.put("maybe_string", "x");
        map.put("maybe_long", 42L);
        map.put("absent", null);
        map.put("address", address);
        map.put("tags", List.of("a", "b"));
        map.put("attrs", attrs);
        map.put("ts_millis", Instant.parse("2025-08-22T17:00:00.123Z"));
        map.put("ts_micros", Instant.parse("2025-08-22T17:00:00.123456Z"));
        map.put("maybe_ts", Instant.parse("2025-08-22T17:00:00.000001Z"));
        map.put("day", LocalDate.of(2025, 8, 22));
        map.put("price", new BigDecimal("-123.45"));
        map.put("round_price", new BigDecimal("10.00"));
        map.put("fixed_price", new BigDecimal("1234.567"));
        map.put("id", "3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f");
        return map;
    }

    private static void assertWhole(Map<String, Object> actual, Map<String, Object> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        // recursive: byte[] compared by content, BigDecimal by equals (so the scale counts), types strictly
        assertThat(actual).usingRecursiveComparison().withStrictTypeChecking().isEqualTo(expected);
    }

    @Test
    void everyAvroTypeAndLogicalTypeBecomesAPlainJavaValue() {
        LinkedHashMap<String, Object> map = AvroValues.toMap(throughTheWire(everything()));

        assertWhole(map, expected());
        assertThat(map.get("round_price")).hasToString("10.00");
    }

    @Test
    void valuesAlreadyConvertedToJavaTypesAreTakenAsTheyAre() {
        GenericRecord converted = new GenericRecordBuilder(everything())
                .set("ts_millis", Instant.parse("2025-08-22T17:00:00.123Z"))
                .set("ts_micros", Instant.parse("2025-08-22T17:00:00.123456Z"))
                .set("maybe_ts", Instant.parse("2025-08-22T17:00:00.000001Z"))
                .set("day", LocalDate.of(2025, 8, 22))
                .set("price", new BigDecimal("-123.45"))
                .set("round_price", new BigDecimal("10.00"))
                .set("fixed_price", new BigDecimal("1234.567"))
                .set("id", UUID.fromString("3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f"))
                .build();

        assertWhole(AvroValues.toMap(converted), expected());
    }

    @Test
    void theNativeCustomerChangeEventBecomesNestedMaps() {
        Schema change = DemoSchemas.customerChange();
        GenericRecord event = new GenericRecordBuilder(change)
                .set("op", new GenericData.EnumSymbol(change.getField("op").schema(), "upsert"))
                .set("event_time", 1_755_882_000_000_000L)
                .set("data", new GenericRecordBuilder(DemoSchemas.customer())
                        .set("customer_id", "C1").set("email", "alice@example.com").set("last_login", 1_755_882_000_000L)
                        .build())
                .build();

        LinkedHashMap<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("email", "alice@example.com");
        data.put("full_name", null);
        data.put("country", null);
        data.put("city", null);
        data.put("loyalty_tier", null);
        data.put("last_login", 1_755_882_000_000L);
        LinkedHashMap<String, Object> expected = new LinkedHashMap<>();
        expected.put("op", "upsert");
        expected.put("event_time", Instant.parse("2025-08-22T17:00:00Z"));
        expected.put("data", data);
        assertWhole(AvroValues.toMap(throughTheWire(event)), expected);
    }

    @Test
    void aValueThatDoesNotFitItsSchemaNamesTheFieldPath() {
        Schema address = EVERYTHING.getField("address").schema();
        GenericData.Record bad = new GenericData.Record(address);
        bad.put("city", 12);

        assertThatThrownBy(() -> AvroValues.toMap(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Address.city: a java.lang.Integer is not a value of Avro type string");
    }

    @Test
    void bytesAreCopiedWithoutMovingTheSourceBuffer() {
        ByteBuffer buffer = ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII));

        Object bytes = AvroValues.toJava(Schema.create(Schema.Type.BYTES), buffer);

        assertThat(bytes).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
        assertThat(buffer.remaining()).isEqualTo(3);
    }

    /**
     * The extremes of every time logical type convert to a value, never an exception: whether such a
     * time is acceptable is the validator's call (it refuses what lies outside 0001..9999, with a
     * reason), not a crash of the decoding step.
     */
    @Test
    void extremeTimesConvertWithoutAnException() {
        Schema millis = new Schema.Parser().parse("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}");
        Schema micros = new Schema.Parser().parse("{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}");
        Schema nanos = new Schema.Parser().parse("{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}");
        Schema date = new Schema.Parser().parse("{\"type\":\"int\",\"logicalType\":\"date\"}");

        assertThat(List.of(
                AvroValues.toJava(millis, Long.MAX_VALUE), AvroValues.toJava(millis, Long.MIN_VALUE),
                AvroValues.toJava(micros, Long.MAX_VALUE), AvroValues.toJava(micros, Long.MIN_VALUE),
                AvroValues.toJava(nanos, Long.MAX_VALUE), AvroValues.toJava(nanos, Long.MIN_VALUE),
                AvroValues.toJava(date, Integer.MAX_VALUE), AvroValues.toJava(date, Integer.MIN_VALUE)))
                .isEqualTo(List.of(
                        Instant.parse("+292278994-08-17T07:12:55.807Z"), Instant.parse("-292275055-05-16T16:47:04.192Z"),
                        Instant.parse("+294247-01-10T04:00:54.775807Z"), Instant.parse("-290308-12-21T19:59:05.224192Z"),
                        Instant.parse("2262-04-11T23:47:16.854775807Z"), Instant.parse("1677-09-21T00:12:43.145224192Z"),
                        LocalDate.parse("+5881580-07-11"), LocalDate.parse("-5877641-06-23")));
    }
}
