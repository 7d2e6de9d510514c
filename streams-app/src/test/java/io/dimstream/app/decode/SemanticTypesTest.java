package io.dimstream.app.decode;

import static io.dimstream.app.decode.DebeziumDocumentationEventsTest.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.TypedEvent;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * One row carrying every semantic type dimstream converts, given four ways: Debezium JSON with the
 * JsonConverter's schema, the same without the schema and with the entity's {@code encodings:},
 * Debezium Avro (the schema as Confluent's Avro converter writes it, {@code connect.name} and all)
 * and a native dimstream event with ISO strings: the same typed values and the same record hash.
 * The decoders are the pipeline's ({@link Decoders}) for an entity read from YAML. And an encoding
 * that does not decode is a {@link Decoded.Failed} naming the column, never an exception.
 */
public class SemanticTypesTest {

    private static final String CONFIG = """
            kafka:
              bootstrap-servers: embedded
            postgres:
              url: embedded
              user: postgres
              password: unused
            entities:
              - name: typed
                topic: pg.public.typed
                format: debezium-json
                table: dim_typed
                key: [id]
                tracked: [born, born_text, t_ms, t_us, t_ns, ts_ms, ts_us, ts_ns, ts_us_utc, zts, ztime, price, price_text, qty, amount,
                          doc, uid, c_date, c_time, c_ts, blob]
                columns:
                  id: integer
                  born: date
                  born_text: text
                  t_ms: time
                  t_us: time
                  t_ns: time
                  ts_ms: timestamp
                  ts_us: timestamp
                  ts_ns: timestamp
                  ts_us_utc: timestamptz
                  zts: timestamptz
                  ztime: text
                  price: "numeric(10,2)"
                  price_text: text
                  qty: bigint
                  amount: numeric
                  doc: jsonb
                  uid: uuid
                  c_date: date
                  c_time: time
                  c_ts: timestamp
                  blob: bytea
                encodings:
                  born: io.debezium.time.Date
                  born_text: io.debezium.time.Date
                  t_ms: io.debezium.time.Time
                  t_us: io.debezium.time.MicroTime
                  t_ns: io.debezium.time.NanoTime
                  ts_ms: io.debezium.time.Timestamp
                  ts_us: io.debezium.time.MicroTimestamp
                  ts_ns: io.debezium.time.NanoTimestamp
                  ts_us_utc: io.debezium.time.MicroTimestamp
                  zts: io.debezium.time.ZonedTimestamp
                  ztime: io.debezium.time.ZonedTime
                  price: org.apache.kafka.connect.data.Decimal(scale=2)
                  price_text: org.apache.kafka.connect.data.Decimal(scale=2)
                  qty: org.apache.kafka.connect.data.Decimal(scale=0)
                  amount: io.debezium.data.VariableScaleDecimal
                  doc: io.debezium.data.Json
                  uid: io.debezium.data.Uuid
                  c_date: org.apache.kafka.connect.data.Date
                  c_time: org.apache.kafka.connect.data.Time
                  c_ts: org.apache.kafka.connect.data.Timestamp
                  blob: bytes
            """;

    public static final EntityConfig ENTITY = DimstreamConfig.parse(CONFIG, "test.yml", Map.of()).entity("typed");
    public static final EntitySpec SPEC = ENTITY.toEntitySpec();
    static final Schema AVRO = new Schema.Parser().parse(new String(resource("semantic-types.avsc"), StandardCharsets.UTF_8));

    private static final LocalTime TIME = LocalTime.of(15, 13, 16, 945_104_000);
    private static final LocalDateTime STAMP = LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_000);

    /** The typed values, in column order (bytes as their canonical text, an array being equal by identity only). */
    public static final List<Object> EXPECTED = List.of(1L,
            LocalDate.of(2018, 6, 20), "2018-06-20",
            TIME.withNano(945_000_000), TIME, TIME,
            STAMP.withNano(945_000_000), STAMP, STAMP,
            Instant.parse("2018-06-20T15:13:16.945104Z"), Instant.parse("2018-06-20T13:13:16.945104Z"), "13:13:16.945104Z",
            new BigDecimal("12345.67"), "12345.67", 42L, new BigDecimal("-123.456"),
            "{\"a\":\"x\",\"b\":[1,2.50]}", UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
            LocalDate.of(2018, 6, 20), TIME.withNano(945_000_000), STAMP.withNano(945_000_000),
            "\\x00ff105c");

    /** A validated event's values (bytes as text) and its record hash. */
    private static List<Object> typed(Decoded d) {
        assertThat(d).isInstanceOf(Decoded.Ok.class);
        return typed(((Decoded.Ok) d).event());
    }

    /** The values the validator makes of an event (bytes as text), then its record hash. */
    public static List<Object> typed(Event e) {
        EventValidator.Result r = new EventValidator(SPEC).validate(e);
        assertThat(r.rejection()).isNull();
        TypedEvent t = r.event();
        List<Object> out = new ArrayList<>();
        t.values().forEach(v -> out.add(v instanceof byte[] b ? ColumnType.BYTEA.canonical(b) : v));
        out.add(RecordHash.hex(t.hash()));
        return out;
    }

    private static Decoded json(String resourceName) {
        return Decoders.forEntity(ENTITY).decode(null, resource(resourceName), 0L, "pg.public.typed", 0, 1L);
    }

    private static GenericRecord avroRow() {
        Schema row = AVRO.getField("after").schema().getTypes().get(1);
        GenericRecord r = new GenericData.Record(row);
        r.put("id", 1);
        r.put("born", 17702);
        r.put("born_text", 17702);
        r.put("t_ms", 54_796_945);
        r.put("t_us", 54_796_945_104L);
        r.put("t_ns", 54_796_945_104_321L);
        r.put("ts_ms", 1_529_507_596_945L);
        r.put("ts_us", 1_529_507_596_945_104L);
        r.put("ts_ns", 1_529_507_596_945_104_321L);
        r.put("ts_us_utc", 1_529_507_596_945_104L);
        r.put("zts", "2018-06-20T13:13:16.945104Z");
        r.put("ztime", "13:13:16.945104Z");
        r.put("price", ByteBuffer.wrap(Base64.getDecoder().decode("EtaH")));
        r.put("price_text", ByteBuffer.wrap(Base64.getDecoder().decode("EtaH")));
        r.put("qty", ByteBuffer.wrap(new byte[] {42}));
        GenericRecord amount = new GenericData.Record(row.getField("amount").schema().getTypes().get(1));
        amount.put("scale", 3);
        amount.put("value", ByteBuffer.wrap(Base64.getDecoder().decode("/h3A")));
        r.put("amount", amount);
        r.put("doc", "{\"b\": [1, 2.50], \"a\": \"x\"}");
        r.put("uid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        r.put("c_date", 17702);
        r.put("c_time", 54_796_945);
        r.put("c_ts", 1_529_507_596_945L);
        r.put("blob", ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 0x10, 0x5c}));
        return r;
    }

    private static Decoded avro(GenericRecord after) {
        GenericRecord source = new GenericData.Record(AVRO.getField("source").schema());
        source.put("connector", "postgresql");
        source.put("ts_ms", 1_529_507_597_000L);
        GenericRecord envelope = new GenericData.Record(AVRO);
        envelope.put("after", after);
        envelope.put("source", source);
        envelope.put("op", "c");
        envelope.put("ts_ms", 1_529_507_597_100L);
        DebeziumAvroDecoder d = new DebeziumAvroDecoder(new GenericBinaryDeserializer(AVRO), DebeziumEnvelope.DEFAULTS, Decoders.debeziumValues(ENTITY));
        return d.decode(null, GenericBinaryDeserializer.write(envelope), 0L, "pg.public.typed", 0, 1L);
    }

    @Test
    void everySemanticTypeGivesTheSameTypedValuesAndHashInEveryFormat() {
        List<Object> withSchema = typed(json("semantic-types.json"));
        List<Object> withHints = typed(json("semantic-types.schemaless.json"));
        List<Object> fromAvro = typed(avro(avroRow()));
        List<Object> nativeEvent = typed(new NativeJsonDecoder(ENTITY.key())
                .decode(null, resource("semantic-types.native.json"), 0L, "typed", 0, 1L));

        List<Object> expected = new ArrayList<>(EXPECTED);
        expected.add(withSchema.get(withSchema.size() - 1)); // the hash: the same in all four, and the hash of these values:
        assertThat(withSchema).isEqualTo(expected);
        assertThat(withHints).isEqualTo(expected);
        assertThat(fromAvro).isEqualTo(expected);
        assertThat(nativeEvent).isEqualTo(expected);
        assertThat(withSchema.get(withSchema.size() - 1)).isEqualTo(RecordHash.hex(RecordHash.of(List.of("2018-06-20", "2018-06-20",
                "15:13:16.945000", "15:13:16.945104", "15:13:16.945104", "2018-06-20T15:13:16.945000", "2018-06-20T15:13:16.945104",
                "2018-06-20T15:13:16.945104", "2018-06-20T15:13:16.945104Z", "2018-06-20T13:13:16.945104Z", "13:13:16.945104Z", "12345.67",
                "12345.67", "42", "-123.456", "{\"a\":\"x\",\"b\":[1,2.50]}", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "2018-06-20",
                "15:13:16.945000", "2018-06-20T15:13:16.945000", "\\x00ff105c"))));
    }

    @Test
    void aSchemaInTheRecordWinsOverTheHint() {
        // the schema says MicroTimestamp where the hint says Timestamp (ms): the schema's reading is taken
        String record = new String(resource("semantic-types.json"), StandardCharsets.UTF_8)
                .replace("\"name\": \"io.debezium.time.Timestamp\"", "\"name\": \"io.debezium.time.MicroTimestamp\"")
                .replace("\"ts_ms\": 1529507596945,", "\"ts_ms\": 1529507596945104,");
        Decoded d = Decoders.forEntity(ENTITY).decode(null, record.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.typed", 0, 1L);

        assertThat(typed(d).get(SPEC.dataColumns().indexOf("ts_ms"))).isEqualTo(STAMP);
        assertThat(typed(d).get(SPEC.dataColumns().indexOf("c_ts"))).isEqualTo(STAMP.withNano(945_000_000));
    }

    // ---- encodings that do not decode: a reason for the DLQ ---------------------------------------

    /** A JSON-with-schema record whose after image has the key and one column of the given field schema and value. */
    private static Decoded withSchema(String column, String fieldSchema, String value) {
        String json = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"after\",\"optional\":true,"
                + "\"fields\":[{\"type\":\"int32\",\"field\":\"id\"},{\"field\":\"" + column + "\"," + fieldSchema.substring(1) + "]},"
                + "{\"type\":\"string\",\"field\":\"op\"},{\"type\":\"int64\",\"field\":\"ts_ms\"}]},"
                + "\"payload\":{\"before\":null,\"after\":{\"id\":1,\"" + column + "\":" + value + "},\"op\":\"c\",\"ts_ms\":1529507597100}}";
        return Decoders.forEntity(ENTITY).decode(null, json.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.typed", 0, 1L);
    }

    private static Decoded schemaless(String column, String value) {
        String json = "{\"before\":null,\"after\":{\"id\":1,\"" + column + "\":" + value + "},\"source\":{\"ts_ms\":1529507597000},"
                + "\"op\":\"c\",\"ts_ms\":1529507597100}";
        return Decoders.forEntity(ENTITY).decode(null, json.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.typed", 0, 1L);
    }

    @Test
    void malformedEncodingsAreFailuresNamingTheColumnAndTheEncoding() {
        assertThat(List.of(
                schemaless("price", "\"%%%\""),
                schemaless("born", "3000000"),
                schemaless("born", "\"2018-06-20\""),
                schemaless("t_us", "86400000000"),
                schemaless("ts_us", "9223372036825200000"),
                schemaless("amount", "{\"scale\":2}"),
                schemaless("uid", "\"not-a-uuid\""),
                schemaless("zts", "\"2018-06-20 13:13:16\""),
                schemaless("blob", "\"AP8QXA=\""),
                withSchema("price", "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\"}", "\"EtaH\""),
                withSchema("price", "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"two\"}}",
                        "\"EtaH\""),
                withSchema("price", "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"2\"}}",
                        "\"\""),
                withSchema("blob", "{\"type\":\"bytes\"}", "\"not base64\"")))
                .isEqualTo(List.of(
                        Decoded.error("column 'price': org.apache.kafka.connect.data.Decimal(scale=2) value \"%%%\" is not base64: "
                                + "Illegal base64 character 25"),
                        Decoded.error("column 'born': io.debezium.time.Date value 3000000 (days since 1970-01-01) is outside 0001-01-01 "
                                + "to 9999-12-31"),
                        Decoded.error("column 'born': io.debezium.time.Date value \"2018-06-20\" is not an integer of days since 1970-01-01"),
                        Decoded.error("column 't_us': io.debezium.time.MicroTime value 86400000000 (µs past midnight) is outside a day "
                                + "(0 to 86399999999); a MySQL TIME beyond a day is a duration: leave the column's encoding out and "
                                + "declare it bigint"),
                        Decoded.error("column 'ts_us': io.debezium.time.MicroTimestamp value 9223372036825200000 (µs since "
                                + "1970-01-01T00:00) is outside 0001-01-01T00:00:00.000000 to 9999-12-31T23:59:59.999999"),
                        Decoded.error("column 'amount': io.debezium.data.VariableScaleDecimal value has no value"),
                        Decoded.error("column 'uid': io.debezium.data.Uuid value \"not-a-uuid\" is not a UUID"),
                        Decoded.error("column 'zts': io.debezium.time.ZonedTimestamp value \"2018-06-20 13:13:16\" is not an ISO-8601 "
                                + "timestamp with an offset"),
                        Decoded.error("column 'blob': bytes value \"AP8QXA=\" is not base64: Input byte array has wrong 4-byte ending unit"),
                        Decoded.error("column 'price': org.apache.kafka.connect.data.Decimal without a scale (parameters.scale is missing "
                                + "from the record's schema)"),
                        Decoded.error("column 'price': org.apache.kafka.connect.data.Decimal with scale \"two\" in parameters.scale of "
                                + "the record's schema: not an integer"),
                        Decoded.error("column 'price': org.apache.kafka.connect.data.Decimal(scale=2) value has no bytes (an unscaled "
                                + "value takes at least one)"),
                        Decoded.error("column 'blob': bytes value \"not base64\" is not base64: Illegal base64 character 20")));
    }

    @Test
    void anAvroDecimalWithoutAScaleAndADayOutOfRangeAreFailuresToo() {
        Schema noScale = new Schema.Parser().parse("""
                {"type":"record","name":"Envelope","namespace":"pg.public.bad","fields":[
                  {"name":"after","type":["null",{"type":"record","name":"Value","fields":[
                    {"name":"id","type":"int"},
                    {"name":"price","type":["null",{"type":"bytes","connect.version":1,
                      "connect.name":"org.apache.kafka.connect.data.Decimal"}],"default":null},
                    {"name":"born","type":["null",{"type":"int","connect.version":1,"connect.name":"io.debezium.time.Date"}],
                      "default":null}]}],"default":null},
                  {"name":"op","type":"string"},
                  {"name":"ts_ms","type":"long"}]}""");
        Schema row = noScale.getField("after").schema().getTypes().get(1);
        DebeziumAvroDecoder d = new DebeziumAvroDecoder(new GenericBinaryDeserializer(noScale), DebeziumEnvelope.DEFAULTS, Decoders.debeziumValues(ENTITY));
        List<Decoded> out = new ArrayList<>();
        for (Object[] values : new Object[][] {{ByteBuffer.wrap(new byte[] {1}), null}, {null, -800_000}}) {
            GenericRecord after = new GenericData.Record(row);
            after.put("id", 1);
            after.put("price", values[0]);
            after.put("born", values[1]);
            GenericRecord e = new GenericData.Record(noScale);
            e.put("after", after);
            e.put("op", "c");
            e.put("ts_ms", 1_529_507_597_100L);
            out.add(d.decode(null, GenericBinaryDeserializer.write(e), 0L, "pg.public.bad", 0, 1L));
        }

        assertThat(out).isEqualTo(List.of(
                Decoded.error("column 'price': org.apache.kafka.connect.data.Decimal without a scale (connect.parameters.scale is "
                        + "missing from the record's schema)"),
                Decoded.error("column 'born': io.debezium.time.Date value -800000 (days since 1970-01-01) is outside 0001-01-01 to "
                        + "9999-12-31")));
    }

    @Test
    void debeziumsPlaceholderForAnUnchangedValuePassesUnconvertedAndMeansUnchanged() {
        String placeholder = "__debezium_unavailable_value";
        Decoded asText = schemaless("doc", "\"" + placeholder + "\"");
        Decoded asBytes = schemaless("blob", "\"" + Base64.getEncoder().encodeToString(placeholder.getBytes(StandardCharsets.UTF_8)) + "\"");

        // not decoded as JSON or base64 by DebeziumValues; then Decoders marks it unchanged (resolved by the writer)
        assertThat(((Decoded.Ok) asText).event().data().get("doc")).isEqualTo(io.dimstream.db.event.Unchanged.VALUE);
        assertThat(((Decoded.Ok) asBytes).event().data().get("blob")).isEqualTo(io.dimstream.db.event.Unchanged.VALUE);
    }
}
