package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * {@code event-time} of every format, from the config through {@link Decoders#forEntity} to the
 * decoded event (compared whole): Debezium's {@code source.ts_ms} (the default), {@code ts_ms} and
 * {@code field NAME}; the native formats' {@code event_time} and {@code field NAME}; seed-json's
 * {@code field NAME} as its {@code time-field}. Every record below carries three different times, so
 * the one taken is plain to see.
 */
class EventTimeOptionsTest {

    /** source.ts_ms: the commit in the source database. */
    private static final Instant COMMIT = Instant.parse("2025-08-22T17:00:00Z");
    /** ts_ms: when the connector processed it, 1.5 s later. */
    private static final Instant CONNECTOR = COMMIT.plusMillis(1500);
    /** the row's own updated_at column. */
    private static final Instant UPDATED = Instant.parse("2025-08-22T16:59:58.250Z");
    /** the native event's event_time. */
    private static final Instant EVENT_TIME = Instant.parse("2025-08-22T16:00:00Z");
    private static final String TOPIC = "pg.public.customers";
    private static final Source SRC = Source.kafka(TOPIC, 2, 7L);

    private static EntityConfig entity(String format, String columns, String options) {
        return DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: %s, format: %s, table: dim_customer, key: [customer_id], tracked: [city],
                     columns: {customer_id: text, city: text%s}%s%s}
                """.formatted(TOPIC, format, columns, columns.contains("updated_at") ? ", type1: [updated_at]" : "", options),
                "test.yml", Map.of()).entity("customer");
    }

    private static Decoded decode(EntityConfig e, byte[] value) {
        return Decoders.forEntity(e).decode(null, value, 0L, TOPIC, 2, 7L);
    }

    private static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- debezium-json

    private static final String AFTER = "{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"updated_at\":\"2025-08-22T16:59:58.250Z\"}";
    /** Debezium's before image of a delete with REPLICA IDENTITY FULL; the time as epoch milliseconds here. */
    private static final String BEFORE = "{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"updated_at\":" + UPDATED.toEpochMilli() + "}";

    private static byte[] debeziumJson(String op, String before, String after, boolean source, boolean tsMs) {
        return utf8("{\"schema\":{\"type\":\"struct\"},\"payload\":{\"before\":" + before + ",\"after\":" + after
                + (source ? ",\"source\":{\"connector\":\"postgresql\",\"ts_ms\":" + COMMIT.toEpochMilli() + ",\"txId\":556}" : "")
                + ",\"op\":\"" + op + "\"" + (tsMs ? ",\"ts_ms\":" + CONNECTOR.toEpochMilli() : "") + "}}");
    }

    @Test
    void debeziumJsonTakesTheCommitTimeByDefaultAndWhenNamed() {
        for (String options : List.of("", ", event-time: source.ts_ms")) {
            EntityConfig e = entity("debezium-json", ", updated_at: timestamptz", options);

            assertThat(List.of(decode(e, debeziumJson("c", "null", AFTER, true, true)),
                    decode(e, debeziumJson("u", BEFORE, AFTER, true, true)),
                    decode(e, debeziumJson("r", "null", AFTER, true, false)),
                    decode(e, debeziumJson("d", BEFORE, "null", true, true))))
                    .isEqualTo(List.of(
                            Decoded.ok(Event.upsert(COMMIT, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                            Decoded.ok(Event.upsert(COMMIT, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                            Decoded.ok(Event.upsert(COMMIT, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                            Decoded.ok(Event.delete(COMMIT, row("customer_id", "C1", "city", "Oslo",
                                    "updated_at", BigInteger.valueOf(UPDATED.toEpochMilli())), 7L, SRC))));
        }
    }

    @Test
    void debeziumJsonTsMsTakesTheConnectorsTime() {
        EntityConfig e = entity("debezium-json", "", ", event-time: ts_ms, undeclared-columns: ignore");

        assertThat(List.of(decode(e, debeziumJson("u", BEFORE, AFTER, true, true)), decode(e, debeziumJson("d", BEFORE, "null", false, true))))
                .isEqualTo(List.of(new Decoded.Ok(Event.upsert(CONNECTOR, row("customer_id", "C1", "city", "Oslo"), 7L, SRC), Map.of(),
                                Set.of("updated_at")),
                        new Decoded.Ok(Event.delete(CONNECTOR, row("customer_id", "C1", "city", "Oslo"), 7L, SRC), Map.of(),
                                Set.of("updated_at"))));
    }

    @Test
    void debeziumJsonFieldReadsTheAfterImageOrABeforeImageAndKeepsTheFieldOnlyWhenItIsAColumn() {
        EntityConfig declared = entity("debezium-json", ", updated_at: timestamptz", ", event-time: field updated_at");
        EntityConfig undeclared = entity("debezium-json", "", ", event-time: field updated_at");

        assertThat(List.of(decode(declared, debeziumJson("u", BEFORE, AFTER, true, true)),
                decode(declared, debeziumJson("d", BEFORE, "null", true, true)),
                decode(undeclared, debeziumJson("c", "null", AFTER, true, true)),
                decode(undeclared, debeziumJson("d", BEFORE, "null", false, false))))
                .isEqualTo(List.of(
                        Decoded.ok(Event.upsert(UPDATED, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                        Decoded.ok(Event.delete(UPDATED, row("customer_id", "C1", "city", "Oslo",
                                "updated_at", BigInteger.valueOf(UPDATED.toEpochMilli())), 7L, SRC)),
                        Decoded.ok(Event.upsert(UPDATED, row("customer_id", "C1", "city", "Oslo"), 7L, SRC)),
                        Decoded.ok(Event.delete(UPDATED, row("customer_id", "C1", "city", "Oslo"), 7L, SRC))));
    }

    @Test
    void aMissingTimeIsARefusalNamingItNeverAnotherClock() {
        EntityConfig byDefault = entity("debezium-json", ", updated_at: timestamptz", "");
        EntityConfig tsMs = entity("debezium-json", ", updated_at: timestamptz", ", event-time: ts_ms");
        EntityConfig field = entity("debezium-json", ", updated_at: timestamptz", ", event-time: field updated_at");

        assertThat(List.of(
                // ts_ms is there, but the default does not fall back to it
                decode(byDefault, debeziumJson("c", "null", AFTER, false, true)),
                decode(byDefault, utf8("{\"after\":" + AFTER + ",\"source\":{\"ts_ms\":null},\"op\":\"c\",\"ts_ms\":1}")),
                decode(tsMs, debeziumJson("c", "null", AFTER, true, false)),
                decode(field, debeziumJson("c", "null", "{\"customer_id\":\"C1\",\"city\":\"Oslo\"}", true, true)),
                // REPLICA IDENTITY DEFAULT: the before image holds the key only
                decode(field, debeziumJson("d", "{\"customer_id\":\"C1\"}", "null", true, true)),
                decode(field, debeziumJson("c", "null", "{\"customer_id\":\"C1\",\"updated_at\":\"yesterday\"}", true, true)),
                decode(field, debeziumJson("c", "null", "{\"customer_id\":\"C1\",\"updated_at\":true}", true, true)),
                decode(field, debeziumJson("c", "null", "{\"customer_id\":\"C1\",\"updated_at\":\"+300000-01-01T00:00:00Z\"}", true, true))))
                .isEqualTo(List.of(
                        Decoded.error("source.ts_ms missing (event-time: source.ts_ms, the default; event-time: ts_ms takes the "
                                + "connector's processing time instead)"),
                        Decoded.error("source.ts_ms missing (event-time: source.ts_ms, the default; event-time: ts_ms takes the "
                                + "connector's processing time instead)"),
                        Decoded.error("ts_ms missing (event-time: ts_ms; source.ts_ms, the default, is the commit time)"),
                        Decoded.error("after.updated_at missing"),
                        Decoded.error("before.updated_at missing (event-time: field updated_at; a delete's before image carries every "
                                + "column only with REPLICA IDENTITY FULL on the source table)"),
                        Decoded.error("after.updated_at is not an ISO-8601 instant with offset: \"yesterday\""),
                        Decoded.error("after.updated_at is not epoch milliseconds: true"),
                        Decoded.error("after.updated_at \"+300000-01-01T00:00:00Z\" is outside the supported range "
                                + "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z")));
    }

    // ---- debezium-avro

    static final Schema ROW = new Schema.Parser().parse("""
            {"type":"record","name":"Value","namespace":"pg.public.customers","fields":[
              {"name":"customer_id","type":"string"},
              {"name":"city","type":["null","string"],"default":null},
              {"name":"updated_at","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}""");
    static final Schema ENVELOPE = new Schema.Parser().addTypes(Map.of(ROW.getFullName(), ROW)).parse("""
            {"type":"record","name":"Envelope","namespace":"pg.public.customers","fields":[
              {"name":"before","type":["null","pg.public.customers.Value"],"default":null},
              {"name":"after","type":["null","pg.public.customers.Value"],"default":null},
              {"name":"source","type":{"type":"record","name":"Source","namespace":"io.debezium.connector.postgresql","fields":[
                {"name":"connector","type":"string"},{"name":"ts_ms","type":"long"},{"name":"txId","type":["null","long"],"default":null}]}},
              {"name":"op","type":"string"},
              {"name":"ts_ms","type":["null","long"],"default":null}]}""");

    private static EntityConfig avroEntity(String format, Schema schema, String columns, String options) {
        return entity(format, columns, ", value-deserializer: " + GenericBinaryDeserializer.class.getName()
                + ", deserializer-config: {" + GenericBinaryDeserializer.SCHEMA_CONFIG + ": '" + schema + "'}" + options);
    }

    static GenericRecord avroRow(Instant updated) {
        GenericRecord r = new GenericData.Record(ROW);
        r.put("customer_id", "C1");
        r.put("city", "Oslo");
        r.put("updated_at", updated == null ? null : updated.toEpochMilli());
        return r;
    }

    static byte[] debeziumAvro(String op, GenericRecord before, GenericRecord after, boolean tsMs) {
        GenericRecord e = new GenericData.Record(ENVELOPE);
        e.put("before", before);
        e.put("after", after);
        GenericRecord source = new GenericData.Record(ENVELOPE.getField("source").schema());
        source.put("connector", "postgresql");
        source.put("ts_ms", COMMIT.toEpochMilli());
        source.put("txId", 556L);
        e.put("source", source);
        e.put("op", op);
        e.put("ts_ms", tsMs ? CONNECTOR.toEpochMilli() : null);
        return GenericBinaryDeserializer.write(e);
    }

    @Test
    void debeziumAvroTakesTheCommitTimeTheConnectorsTimeOrAField() {
        EntityConfig byDefault = avroEntity("debezium-avro", ENVELOPE, ", updated_at: timestamptz", "");
        EntityConfig tsMs = avroEntity("debezium-avro", ENVELOPE, ", updated_at: timestamptz", ", event-time: ts_ms");
        EntityConfig field = avroEntity("debezium-avro", ENVELOPE, ", updated_at: timestamptz", ", event-time: field updated_at");
        // Avro's timestamp-millis, as Debezium writes a timestamp column: a local date-time (DebeziumValues), read as UTC
        Map<String, Object> image = row("customer_id", "C1", "city", "Oslo", "updated_at",
                java.time.LocalDateTime.ofInstant(UPDATED, java.time.ZoneOffset.UTC));

        assertThat(List.of(
                decode(byDefault, debeziumAvro("u", avroRow(null), avroRow(UPDATED), true)),
                decode(byDefault, debeziumAvro("d", avroRow(UPDATED), null, false)),
                decode(tsMs, debeziumAvro("c", null, avroRow(UPDATED), true)),
                decode(tsMs, debeziumAvro("c", null, avroRow(UPDATED), false)),
                decode(field, debeziumAvro("u", avroRow(null), avroRow(UPDATED), true)),
                decode(field, debeziumAvro("d", avroRow(UPDATED), null, true)),
                decode(field, debeziumAvro("d", avroRow(null), null, true))))
                .isEqualTo(List.of(
                        avroOk(Event.upsert(COMMIT, image, 7L, SRC)),
                        avroOk(Event.delete(COMMIT, image, 7L, SRC)),
                        avroOk(Event.upsert(CONNECTOR, image, 7L, SRC)),
                        Decoded.error("ts_ms missing (event-time: ts_ms; source.ts_ms, the default, is the commit time)"),
                        avroOk(Event.upsert(UPDATED, image, 7L, SRC)),
                        avroOk(Event.delete(UPDATED, image, 7L, SRC)),
                        Decoded.error("before.updated_at missing (event-time: field updated_at; a delete's before image carries every "
                                + "column only with REPLICA IDENTITY FULL on the source table)")));
    }

    // ---- json (native)

    private static byte[] nativeJson(String op, String data, boolean eventTime) {
        return utf8("{\"op\":\"" + op + "\"" + (eventTime ? ",\"event_time\":\"" + EVENT_TIME + "\"" : "") + ",\"data\":" + data + "}");
    }

    @Test
    void nativeJsonTakesItsEventTimeOrAFieldOfData() {
        EntityConfig byDefault = entity("json", ", updated_at: timestamptz", "");
        EntityConfig declared = entity("json", ", updated_at: timestamptz", ", event-time: field updated_at");
        EntityConfig undeclared = entity("json", "", ", event-time: field updated_at");
        String data = "{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"updated_at\":\"2025-08-22T16:59:58.250Z\"}";

        assertThat(List.of(
                decode(byDefault, nativeJson("upsert", data, true)),
                decode(declared, nativeJson("upsert", data, true)),
                decode(declared, nativeJson("delete", "{\"customer_id\":\"C1\",\"updated_at\":" + UPDATED.toEpochMilli() + "}", false)),
                decode(undeclared, nativeJson("upsert", data, false)),
                decode(declared, nativeJson("upsert", "{\"customer_id\":\"C1\",\"city\":\"Oslo\"}", true)),
                decode(declared, nativeJson("upsert", "{\"customer_id\":\"C1\",\"updated_at\":\"22.08.2025\"}", true))))
                .isEqualTo(List.of(
                        Decoded.ok(Event.upsert(EVENT_TIME, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                        Decoded.ok(Event.upsert(UPDATED, row("customer_id", "C1", "city", "Oslo", "updated_at", "2025-08-22T16:59:58.250Z"), 7L, SRC)),
                        Decoded.ok(Event.delete(UPDATED, row("customer_id", "C1", "updated_at", BigInteger.valueOf(UPDATED.toEpochMilli())), 7L, SRC)),
                        Decoded.ok(Event.upsert(UPDATED, row("customer_id", "C1", "city", "Oslo"), 7L, SRC)),
                        Decoded.error("data.updated_at missing"),
                        Decoded.error("data.updated_at is not an ISO-8601 instant with offset: \"22.08.2025\"")));
    }

    // ---- avro (native)

    static final Schema NATIVE = new Schema.Parser().addTypes(Map.of(ROW.getFullName(), ROW)).parse("""
            {"type":"record","name":"CustomerEvent","namespace":"test","fields":[
              {"name":"op","type":"string"},
              {"name":"event_time","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
              {"name":"data","type":"pg.public.customers.Value"}]}""");

    static byte[] nativeAvro(String op, Instant eventTime, GenericRecord data) {
        GenericRecord e = new GenericData.Record(NATIVE);
        e.put("op", op);
        e.put("event_time", eventTime == null ? null : eventTime.toEpochMilli());
        e.put("data", data);
        return GenericBinaryDeserializer.write(e);
    }

    @Test
    void nativeAvroTakesItsEventTimeOrAFieldOfData() {
        EntityConfig byDefault = avroEntity("avro", NATIVE, ", updated_at: timestamptz", "");
        EntityConfig declared = avroEntity("avro", NATIVE, ", updated_at: timestamptz", ", event-time: field updated_at");
        EntityConfig undeclared = avroEntity("avro", NATIVE, "", ", event-time: field updated_at");

        assertThat(List.of(
                decode(byDefault, nativeAvro("upsert", EVENT_TIME, avroRow(UPDATED))),
                decode(declared, nativeAvro("upsert", EVENT_TIME, avroRow(UPDATED))),
                decode(undeclared, nativeAvro("delete", null, avroRow(UPDATED))),
                decode(declared, nativeAvro("upsert", EVENT_TIME, avroRow(null)))))
                .isEqualTo(List.of(
                        avroOk(new Event(Op.UPSERT, EVENT_TIME, row("customer_id", "C1", "city", "Oslo", "updated_at", UPDATED), 7L, SRC, null)),
                        avroOk(new Event(Op.UPSERT, UPDATED, row("customer_id", "C1", "city", "Oslo", "updated_at", UPDATED), 7L, SRC, null)),
                        avroOk(new Event(Op.DELETE, UPDATED, row("customer_id", "C1", "city", "Oslo"), 7L, SRC, null)),
                        Decoded.error("data.updated_at missing")));
    }

    /** An Avro record's event: its row schema's types come with it (ColumnInference.fromAvroRow). */
    private static Decoded avroOk(Event e) {
        return new Decoded.Ok(e, Map.of("customer_id", io.dimstream.db.entity.ColumnType.TEXT, "city", io.dimstream.db.entity.ColumnType.TEXT,
                "updated_at", io.dimstream.db.entity.ColumnType.TIMESTAMPTZ));
    }

    // ---- seed-json

    @Test
    void seedJsonFieldIsItsTimeField() {
        EntityConfig field = entity("seed-json", "", ", event-time: field changed_at");
        EntityConfig timeField = entity("seed-json", "", ", time-field: changed_at");
        EntityConfig byDefault = entity("seed-json", "", "");
        byte[] update = utf8("{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"operation\":\"UPDATE\",\"changed_at\":\"2025-08-22T16:59:58.250Z\","
                + "\"change_time\":\"" + EVENT_TIME + "\"}");
        byte[] delete = utf8("{\"customer_id\":\"C1\",\"operation\":\"DELETE\",\"changed_at\":" + UPDATED.toEpochMilli() + "}");

        // seed-json is strict: a field that is no column (the other time field) is dropped, and named
        Decoded upsertAtField = new Decoded.Ok(Event.upsert(UPDATED, row("customer_id", "C1", "city", "Oslo"), 7L, SRC), Map.of(),
                Set.of("change_time"));
        Decoded deleteAtField = Decoded.ok(Event.delete(UPDATED, row("customer_id", "C1"), 7L, SRC));
        assertThat(List.of(decode(field, update), decode(field, delete), decode(timeField, update), decode(timeField, delete),
                decode(byDefault, update), decode(byDefault, delete)))
                .isEqualTo(List.of(upsertAtField, deleteAtField, upsertAtField, deleteAtField,
                        new Decoded.Ok(Event.upsert(EVENT_TIME, row("customer_id", "C1", "city", "Oslo"), 7L, SRC), Map.of(),
                                Set.of("changed_at")),
                        Decoded.error("field 'change_time' missing")));
    }
}
