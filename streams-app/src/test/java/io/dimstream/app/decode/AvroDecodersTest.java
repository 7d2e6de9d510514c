package io.dimstream.app.decode;

import io.dimstream.schemas.AvroValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.ConfigException;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class AvroDecodersTest {

    static final Schema ROW = new Schema.Parser().parse("""
            {"type":"record","name":"Row","namespace":"test","fields":[
              {"name":"customer_id","type":"string"},
              {"name":"city","type":["null","string"],"default":null},
              {"name":"balance","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
              {"name":"signup","type":{"type":"int","logicalType":"date"}},
              {"name":"tier","type":{"type":"enum","name":"Tier","symbols":["GOLD","SILVER"]}}]}""");
    static final Schema NATIVE = new Schema.Parser().addTypes(Map.of("test.Row", ROW)).parse("""
            {"type":"record","name":"CustomerEvent","namespace":"test","fields":[
              {"name":"op","type":{"type":"enum","name":"Op","symbols":["upsert","delete"]}},
              {"name":"event_time","type":{"type":"long","logicalType":"timestamp-millis"}},
              {"name":"data","type":"test.Row"}]}""");
    static final Schema ENVELOPE = new Schema.Parser().addTypes(Map.of("test.Row", ROW)).parse("""
            {"type":"record","name":"Envelope","namespace":"test","fields":[
              {"name":"before","type":["null","test.Row"],"default":null},
              {"name":"after","type":["null","test.Row"],"default":null},
              {"name":"source","type":{"type":"record","name":"Source","fields":[{"name":"ts_ms","type":"long"}]}},
              {"name":"op","type":"string"},
              {"name":"ts_ms","type":["null","long"],"default":null}]}""");

    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");
    private static final Source SRC = Source.kafka("crm.customers.avro", 0, 3L);

    static GenericRecord row(String id, String city) {
        GenericRecord r = new GenericData.Record(ROW);
        r.put("customer_id", id);
        r.put("city", city);
        Schema decimal = ROW.getField("balance").schema();
        r.put("balance", new Conversions.DecimalConversion().toBytes(new BigDecimal("12.50"), decimal, LogicalTypes.decimal(10, 2)));
        r.put("signup", (int) LocalDate.parse("2024-02-29").toEpochDay());
        r.put("tier", new GenericData.EnumSymbol(ROW.getField("tier").schema(), "GOLD"));
        return r;
    }

    static Map<String, Object> rowMap(String id, String city) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("city", city);
        m.put("balance", new BigDecimal("12.50"));
        m.put("signup", LocalDate.parse("2024-02-29"));
        m.put("tier", "GOLD");
        return m;
    }

    static byte[] envelope(String op, GenericRecord before, GenericRecord after, Long tsMs) {
        GenericRecord e = new GenericData.Record(ENVELOPE);
        e.put("before", before);
        e.put("after", after);
        GenericRecord source = new GenericData.Record(ENVELOPE.getField("source").schema());
        source.put("ts_ms", T.toEpochMilli() - 250);
        e.put("source", source);
        e.put("op", op);
        e.put("ts_ms", tsMs);
        return GenericBinaryDeserializer.write(e);
    }

    static byte[] nativeEvent(String op, GenericRecord data) {
        GenericRecord e = new GenericData.Record(NATIVE);
        e.put("op", new GenericData.EnumSymbol(NATIVE.getField("op").schema(), op));
        e.put("event_time", T.toEpochMilli());
        e.put("data", data);
        return GenericBinaryDeserializer.write(e);
    }

    private static Decoded decode(EventDecoder d, byte[] key, byte[] value) {
        return d.decode(key, value, T.plusSeconds(60).toEpochMilli(), "crm.customers.avro", 0, 3L);
    }

    @Test
    void nativeAvroEventIsDecodedWithLogicalTypesAsJavaValues() {
        AvroEventDecoder d = new AvroEventDecoder(new GenericBinaryDeserializer(NATIVE), List.of("customer_id"));

        assertThat(List.of(decode(d, null, nativeEvent("upsert", row("C1", "Oslo"))), decode(d, null, nativeEvent("delete", row("C1", null)))))
                .isEqualTo(List.of(typed(Event.upsert(T, rowMap("C1", "Oslo"), 3L, SRC)),
                        typed(Event.delete(T, rowMap("C1", null), 3L, SRC))));
    }

    @Test
    void nativeAvroTombstoneIsADeleteOfTheRecordKeyAtTheRecordTimestamp() {
        AvroEventDecoder d = new AvroEventDecoder(new GenericBinaryDeserializer(NATIVE), List.of("customer_id"));

        assertThat(decode(d, "C1".getBytes(StandardCharsets.UTF_8), null))
                .isEqualTo(Decoded.ok(Event.delete(T.plusSeconds(60), Map.of("customer_id", "C1"), 3L, SRC)));
    }

    @Test
    void debeziumAvroUpsertsTheAfterImageAndDeletesTheBeforeImage() {
        DebeziumAvroDecoder d = new DebeziumAvroDecoder(new GenericBinaryDeserializer(ENVELOPE));

        assertThat(List.of(
                decode(d, null, envelope("c", null, row("C1", "Oslo"), T.toEpochMilli())),
                decode(d, null, envelope("u", row("C1", "Oslo"), row("C1", "Bergen"), null)),
                decode(d, null, envelope("d", row("C1", "Bergen"), null, T.toEpochMilli())),
                decode(d, null, null)))
                // the commit time (source.ts_ms, 250 ms before the connector's ts_ms), with or without ts_ms
                .isEqualTo(List.of(
                        typed(Event.upsert(T.minusMillis(250), rowMap("C1", "Oslo"), 3L, SRC)),
                        typed(Event.upsert(T.minusMillis(250), rowMap("C1", "Bergen"), 3L, SRC)),
                        typed(Event.delete(T.minusMillis(250), rowMap("C1", "Bergen"), 3L, SRC)),
                        Decoded.skip("Debezium tombstone (null value) after a delete")));
    }

    @Test
    void badAvroBytesAndUnknownOpsAreErrors() {
        DebeziumAvroDecoder debezium = new DebeziumAvroDecoder(new GenericBinaryDeserializer(ENVELOPE));
        AvroEventDecoder avro = new AvroEventDecoder(new GenericBinaryDeserializer(NATIVE), List.of("customer_id"));

        assertThat(List.of(
                decode(debezium, null, new byte[] {(byte) 0x7f, 1, 2}),
                decode(debezium, null, envelope("x", null, row("C1", "Oslo"), T.toEpochMilli())),
                decode(avro, null, new byte[] {5})))
                .isEqualTo(List.of(
                        Decoded.error("not valid Avro: cannot read Avro binary of test.Envelope from crm.customers.avro"),
                        Decoded.error("Debezium op \"x\" unknown (expected c, u, r, d, t or m)"),
                        Decoded.error("not valid Avro: cannot read Avro binary of test.CustomerEvent from crm.customers.avro")));
    }

    private static EntityConfig avroEntity(String deserializerClass, Map<String, String> config) {
        return EntityConfig.builder().name("customer").topic("crm.customers.avro").format(EventFormat.DEBEZIUM_AVRO)
                .table("dim_customer").key(List.of("customer_id")).tracked(List.of("city")).latenessHorizon(Optional.empty())
                .columns(Map.of("customer_id", ColumnType.TEXT, "city", ColumnType.TEXT))
                .avro(new AvroOptions(deserializerClass, config)).build();
    }

    @Test
    void theConfiguredDeserializerClassIsInstantiatedByReflectionAndConfigured() {
        EventDecoder d = Decoders.forEntity(avroEntity(GenericBinaryDeserializer.class.getName(),
                Map.of(GenericBinaryDeserializer.SCHEMA_CONFIG, ENVELOPE.toString())));

        // an entity made in code adds no column while running: the fields it does not declare are dropped, and named
        Decoded.Ok whole = (Decoded.Ok) typed(Event.upsert(T.minusMillis(250), rowMap("C1", "Oslo"), 3L, SRC));
        assertThat(decode(d, null, envelope("r", null, row("C1", "Oslo"), T.toEpochMilli())))
                .isEqualTo(new Decoded.Ok(Event.upsert(T.minusMillis(250), Map.of("customer_id", "C1", "city", "Oslo"), 3L, SRC),
                        whole.sourceTypes(), Set.of("balance", "signup", "tier")));
    }

    @Test
    void aDeserializerClassThatCannotBeUsedIsAConfigError() {
        assertThatThrownBy(() -> Decoders.forEntity(avroEntity("com.example.Missing", Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessage("entity \"customer\": value-deserializer: class com.example.Missing is not on the classpath");
        assertThatThrownBy(() -> Decoders.forEntity(avroEntity(String.class.getName(), Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessage("entity \"customer\": value-deserializer: class java.lang.String is not a "
                        + "org.apache.kafka.common.serialization.Deserializer");
    }

    @Test
    void decimalsAsFixedAndTimestampMicrosAreConverted() {
        Schema s = new Schema.Parser().parse("""
                {"type":"record","name":"R","fields":[
                  {"name":"amount","type":{"type":"fixed","name":"Amt","size":4,"logicalType":"decimal","precision":8,"scale":3}},
                  {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
                  {"name":"tags","type":{"type":"array","items":"string"}}]}""");
        GenericRecord r = new GenericData.Record(s);
        r.put("amount", new GenericData.Fixed(s.getField("amount").schema(), ByteBuffer.allocate(4).putInt(12345).array()));
        r.put("at", 1_755_882_000_000_001L);
        r.put("tags", List.of(new org.apache.avro.util.Utf8("a")));

        assertThat(AvroValues.toMap(r)).isEqualTo(Map.of("amount", new BigDecimal("12.345"),
                "at", Instant.parse("2025-08-22T17:00:00.000001Z"), "tags", List.of("a")));
    }

    @Test
    void aRegistryThatCannotAnswerIsThrownNotDeadLetteredAndAnUnknownSchemaIdIsAFailure() {
        byte[] wire = {0, 0, 0, 0, 1, 2, 'x'};
        // dimstream's deserializer after its retries
        org.apache.kafka.common.serialization.Deserializer<GenericRecord> unavailable = (topic, data) -> {
            throw new io.dimstream.schemas.registry.SchemaRegistryUnavailableException("registry http://r:8081: 503");
        };
        // another deserializer wrapping its registry client's network error
        org.apache.kafka.common.serialization.Deserializer<GenericRecord> refused = (topic, data) -> {
            throw new org.apache.kafka.common.errors.SerializationException("Error retrieving Avro schema for id 1",
                    new java.net.ConnectException("Connection refused"));
        };
        // a schema id the registry answers 404 for: the record itself is bad
        org.apache.kafka.common.serialization.Deserializer<GenericRecord> unknownId =
                new io.dimstream.schemas.serde.AvroWireDeserializer(io.dimstream.schemas.registry.MockSchemaRegistry.forScope("avro-decoders-test"));

        for (EventDecoder d : List.of(new AvroEventDecoder(unavailable, List.of("customer_id")), new DebeziumAvroDecoder(unavailable))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> d.decode(null, wire, 0, "t", 0, 3))
                    .isExactlyInstanceOf(io.dimstream.schemas.registry.SchemaRegistryUnavailableException.class)
                    .hasMessage("registry http://r:8081: 503");
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AvroEventDecoder(refused, List.of("customer_id")).decode(null, wire, 0, "t", 0, 3))
                .isExactlyInstanceOf(io.dimstream.schemas.registry.SchemaRegistryUnavailableException.class)
                .hasMessage("schema registry unavailable: Error retrieving Avro schema for id 1");
        assertThat(new AvroEventDecoder(unknownId, List.of("customer_id")).decode(null, wire, 0, "t", 0, 3))
                .isEqualTo(Decoded.error("not valid Avro: unknown schema id 1"));
        assertThat(new DebeziumAvroDecoder(unknownId).decode(null, wire, 0, "t", 0, 3))
                .isEqualTo(Decoded.error("not valid Avro: unknown schema id 1"));
    }

    /** An event decoded from an Avro record: the row schema's column types come with it (ColumnInference.fromAvroRow). */
    private static Decoded typed(Event e) {
        return new Decoded.Ok(e, Map.of("customer_id", io.dimstream.db.entity.ColumnType.TEXT, "city", io.dimstream.db.entity.ColumnType.TEXT,
                "balance", io.dimstream.db.entity.ColumnType.NUMERIC, "signup", io.dimstream.db.entity.ColumnType.DATE,
                "tier", io.dimstream.db.entity.ColumnType.TEXT));
    }
}
