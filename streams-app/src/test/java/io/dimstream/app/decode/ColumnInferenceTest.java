package io.dimstream.app.decode;

import io.dimstream.app.change.TestChanges;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.Op;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The type a field new to an entity gets: from the Debezium record's schema, else from its value; and how a change names it. */
class ColumnInferenceTest {

    @Test
    void aJsonConverterSchemaGivesEachAfterFieldItsType() throws Exception {
        JsonNode schema = new ObjectMapper().readTree("""
                {"type":"struct","fields":[
                  {"type":"struct","optional":true,"field":"before","fields":[{"type":"string","field":"old_only"}]},
                  {"type":"struct","optional":true,"field":"after","fields":[
                    {"type":"int16","field":"a"},{"type":"int32","field":"b"},{"type":"int64","field":"c"},
                    {"type":"float","field":"d"},{"type":"double","field":"e"},{"type":"boolean","field":"f"},
                    {"type":"string","field":"g"},{"type":"bytes","field":"h"},
                    {"type":"int32","name":"io.debezium.time.Date","field":"i"},
                    {"type":"int64","name":"io.debezium.time.MicroTimestamp","field":"j"},
                    {"type":"string","name":"io.debezium.time.ZonedTimestamp","field":"k"},
                    {"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"},"field":"l"},
                    {"type":"string","name":"io.debezium.data.Json","field":"m"},
                    {"type":"string","name":"io.debezium.data.Uuid","field":"n"},
                    {"type":"int64","name":"io.debezium.time.MicroTime","field":"o"},
                    {"type":"array","field":"p"}]},
                  {"type":"string","field":"op"}]}
                """);
        Map<String, ColumnType> expected = new LinkedHashMap<>();
        expected.put("a", ColumnType.SMALLINT);
        expected.put("b", ColumnType.INTEGER);
        expected.put("c", ColumnType.BIGINT);
        expected.put("d", ColumnType.DOUBLE);
        expected.put("e", ColumnType.DOUBLE);
        expected.put("f", ColumnType.BOOLEAN);
        expected.put("g", ColumnType.TEXT);
        expected.put("h", ColumnType.BYTEA);
        expected.put("i", ColumnType.DATE);
        expected.put("j", ColumnType.TIMESTAMP);
        expected.put("k", ColumnType.TIMESTAMPTZ);
        expected.put("l", ColumnType.NUMERIC);
        expected.put("m", ColumnType.JSONB);
        expected.put("n", ColumnType.UUID_TYPE);
        expected.put("o", ColumnType.TIME);
        // p: a type dimstream does not map is left to the value

        assertThat(ColumnInference.fromJsonSchema(schema)).isEqualTo(expected);
        assertThat(ColumnInference.fromJsonSchema(null)).isEqualTo(Map.of());
    }

    @Test
    void anAvroSchemaGivesEachAfterFieldItsType() {
        org.apache.avro.Schema envelope = new org.apache.avro.Schema.Parser().parse("""
                {"type":"record","name":"Envelope","namespace":"pg.public.t","fields":[
                  {"name":"before","type":["null",{"type":"record","name":"Value","fields":[
                    {"name":"a","type":{"type":"int","connect.type":"int16"}},
                    {"name":"b","type":["null","int"]},
                    {"name":"c","type":"long"},
                    {"name":"d","type":"float"},{"name":"e","type":"double"},{"name":"f","type":"boolean"},
                    {"name":"g","type":["null","string"],"default":null},{"name":"h","type":"bytes"},
                    {"name":"i","type":{"type":"int","connect.name":"io.debezium.time.Date"}},
                    {"name":"j","type":{"type":"long","connect.name":"io.debezium.time.MicroTimestamp"}},
                    {"name":"k","type":{"type":"string","connect.name":"io.debezium.time.ZonedTimestamp"}},
                    {"name":"l","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
                    {"name":"m","type":{"type":"string","connect.name":"io.debezium.data.Json"}},
                    {"name":"n","type":{"type":"string","logicalType":"uuid"}},
                    {"name":"o","type":{"type":"long","logicalType":"timestamp-micros"}},
                    {"name":"p","type":{"type":"long","logicalType":"local-timestamp-millis"}},
                    {"name":"q","type":{"type":"int","logicalType":"date"}},
                    {"name":"r","type":{"type":"array","items":"int"}},
                    {"name":"s","type":["null","int","string"]}]}],"default":null},
                  {"name":"after","type":["null","Value"],"default":null},
                  {"name":"op","type":"string"}]}
                """);
        Map<String, ColumnType> expected = new LinkedHashMap<>();
        expected.put("a", ColumnType.SMALLINT);
        expected.put("b", ColumnType.INTEGER);
        expected.put("c", ColumnType.BIGINT);
        expected.put("d", ColumnType.DOUBLE);
        expected.put("e", ColumnType.DOUBLE);
        expected.put("f", ColumnType.BOOLEAN);
        expected.put("g", ColumnType.TEXT);
        expected.put("h", ColumnType.BYTEA);
        expected.put("i", ColumnType.DATE);
        expected.put("j", ColumnType.TIMESTAMP);
        expected.put("k", ColumnType.TIMESTAMPTZ);
        expected.put("l", ColumnType.NUMERIC);
        expected.put("m", ColumnType.JSONB);
        expected.put("n", ColumnType.UUID_TYPE);
        expected.put("o", ColumnType.TIMESTAMPTZ);
        expected.put("p", ColumnType.TIMESTAMP);
        expected.put("q", ColumnType.DATE);
        // r (an array) and s (a union of two types): left to the value

        assertThat(ColumnInference.fromAvroEnvelope(envelope)).isEqualTo(expected);
        assertThat(ColumnInference.fromAvroRow(envelope.getField("before").schema().getTypes().get(1))).isEqualTo(expected);
    }

    @Test
    void withoutASchemaTheValueDecides() {
        assertThat(List.of("nick", 42, 42L, new BigInteger("99999999999999999999"), new BigDecimal("1.50"), 2.5, true,
                Map.of("a", 1), List.of(1), LocalDate.of(2025, 1, 1), Instant.EPOCH, UUID.randomUUID(), new byte[] {1})
                .stream().map(v -> ColumnInference.ofValue(v).orElseThrow()).toList())
                .isEqualTo(List.of(ColumnType.TEXT, ColumnType.BIGINT, ColumnType.BIGINT, ColumnType.NUMERIC, ColumnType.NUMERIC,
                        ColumnType.DOUBLE, ColumnType.BOOLEAN, ColumnType.JSONB, ColumnType.JSONB, ColumnType.DATE,
                        ColumnType.TIMESTAMPTZ, ColumnType.UUID_TYPE, ColumnType.BYTEA));
        assertThat(ColumnInference.ofValue(null)).isEqualTo(Optional.empty());
    }

    @Test
    void aChangeNamesItsNewColumnsBesideItsData() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "K1");
        data.put("nickname", "Al");
        ChangeRecord change = new ChangeRecord("customer", ChangeClass.CHANGED, Op.UPSERT, Instant.parse("2025-01-01T00:00:00Z"), data,
                "crm.customers", 0, 42, Map.of("nickname", "text"));

        byte[] bytes = TestChanges.encode(change);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"CHANGED\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\","
                + "\"event_time\":\"2025-01-01T00:00:00.000000Z\",\"data\":{\"id\":\"K1\",\"nickname\":\"Al\"},"
                + "\"new_columns\":{\"nickname\":\"text\"},\"source\":{\"topic\":\"crm.customers\",\"partition\":0,\"offset\":42}}");
        assertThat(ChangeCodec.decode(bytes)).isEqualTo(change);
        assertThat(ChangeCodec.mayHaveNewColumns(bytes)).isTrue();
        ChangeRecord plain = new ChangeRecord("customer", ChangeClass.CHANGED, Op.UPSERT, change.eventTime(), data, "crm.customers", 0, 42);
        assertThat(ChangeCodec.mayHaveNewColumns(TestChanges.encode(plain))).isFalse();
        assertThat(ChangeCodec.decode(TestChanges.encode(plain)).newColumns()).isEqualTo(Map.of());
    }

    @Test
    void aChangeNamesItsWidenedColumnsBesideItsData() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "K1");
        data.put("visits", java.math.BigInteger.valueOf(3_000_000_000L));
        ChangeRecord change = new ChangeRecord("customer", ChangeClass.CHANGED, Op.UPSERT, Instant.parse("2025-01-01T00:00:00Z"), data,
                "crm.customers", 0, 42, Map.of(), Map.of("visits", "bigint", "name", "character varying(8)"));

        byte[] bytes = TestChanges.encode(change);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"CHANGED\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\","
                + "\"event_time\":\"2025-01-01T00:00:00.000000Z\",\"data\":{\"id\":\"K1\",\"visits\":3000000000},"
                + "\"widened\":{\"name\":\"character varying(8)\",\"visits\":\"bigint\"},"
                + "\"source\":{\"topic\":\"crm.customers\",\"partition\":0,\"offset\":42}}");
        assertThat(ChangeCodec.decode(bytes)).isEqualTo(change);
        assertThat(ChangeCodec.mayHaveNewColumns(bytes)).isTrue();
        // a data value spelling the field's name is only a maybe: decode then finds none
        Map<String, Object> tricky = Map.of("id", "\"widened\":");
        byte[] maybe = TestChanges.encode(new ChangeRecord("customer", ChangeClass.CHANGED, Op.UPSERT, change.eventTime(), tricky,
                "crm.customers", 0, 42));
        assertThat(ChangeCodec.decode(maybe).widened()).isEqualTo(Map.of());
    }
}
