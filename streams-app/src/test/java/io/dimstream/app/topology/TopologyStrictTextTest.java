package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.CUSTOMER;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.text;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.decode.AvroEventDecoder;
import io.dimstream.app.decode.DebeziumAvroDecoder;
import io.dimstream.app.decode.EventDecoder;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.event.Op;
import io.dimstream.schemas.registry.MockSchemaRegistry;
import io.dimstream.schemas.serde.AvroWireDeserializer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text that is not UTF-8 (a bad sequence, a surrogate encoded on its own as CESU-8 writes it) goes
 * to the DLQ with the field and the byte, on every text path of the topology: an Avro string value,
 * an Avro business key, an Avro map key (a column name), a Debezium Avro row image, a record key
 * and the control header; its bytes unchanged; the good records around it land exactly. Before,
 * the Avro paths landed {@code a\uFFFD(b} (the key {@code HZ96\uFFFD}) and the header's kind was
 * read with a U+FFFD.
 */
class TopologyStrictTextTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
    private static final String T = "2025-08-22T17:00:00Z";
    private static final String SCOPE = "topology-strict-text-test";
    private static final String CHANGES = "dimstream.customer.changes";

    private static final Schema ROW = new Schema.Parser().parse("""
            {"type": "record", "name": "Row", "namespace": "t", "fields": [
              {"name": "customer_id", "type": "string"}, {"name": "email", "type": ["null", "string"]},
              {"name": "city", "type": ["null", "string"]}, {"name": "last_login", "type": ["null", "long"]}]}""");
    private static final Schema EVENT = new Schema.Parser().addTypes(Map.of("t.Row", ROW)).parse("""
            {"type": "record", "name": "CustomerEvent", "namespace": "t", "fields": [
              {"name": "op", "type": "string"}, {"name": "event_time", "type": "string"}, {"name": "data", "type": "t.Row"}]}""");
    private static final Schema MAP_EVENT = new Schema.Parser().parse("""
            {"type": "record", "name": "MapEvent", "namespace": "t", "fields": [
              {"name": "op", "type": "string"}, {"name": "event_time", "type": "string"},
              {"name": "data", "type": {"type": "map", "values": ["null", "string", "long"]}}]}""");
    private static final Schema ENVELOPE = new Schema.Parser().addTypes(Map.of("t.Row", ROW)).parse("""
            {"type": "record", "name": "Envelope", "namespace": "t", "fields": [
              {"name": "before", "type": ["null", "t.Row"]}, {"name": "after", "type": ["null", "t.Row"]},
              {"name": "source", "type": {"type": "record", "name": "Source", "fields": [{"name": "ts_ms", "type": "long"}]}},
              {"name": "op", "type": "string"}, {"name": "ts_ms", "type": "long"}]}""");

    @TempDir
    Path stateDir;

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static Utf8 hex(String hex) {
        return new Utf8(HexFormat.of().parseHex(hex));
    }

    private static GenericRecord row(Object id, Object email) {
        GenericRecord r = new GenericData.Record(ROW);
        r.put("customer_id", id);
        r.put("email", email);
        r.put("city", new Utf8("Oslo"));
        r.put("last_login", 7L);
        return r;
    }

    private static GenericRecord event(GenericRecord row) {
        GenericRecord e = new GenericData.Record(EVENT);
        e.put("op", new Utf8("upsert"));
        e.put("event_time", new Utf8(T));
        e.put("data", row);
        return e;
    }

    /**
     * Confluent wire format, the strings' bytes written as they are (no conversions), a map key
     * {@code key~} made {@code 6B 65 79 C0}: Avro's writer turns map keys into Strings first.
     */
    private static byte[] wire(GenericRecord record) {
        int id = MockSchemaRegistry.forScope(SCOPE).register("t-value", record.getSchema());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.writeBytes(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<GenericRecord>(record.getSchema(), new GenericData()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String h = HexFormat.of().formatHex(out.toByteArray());
        int at = h.indexOf("6b65797e");
        return HexFormat.of().parseHex(at < 0 || at % 2 != 0 ? h : h.substring(0, at) + "6b6579c0" + h.substring(at + 8));
    }

    private static Change customer(String id, String email, String topic, long offset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("email", email);
        data.put("city", "Oslo");
        data.put("last_login", BigInteger.valueOf(7));
        return new Change("[\"" + id + "\"]", new ChangeRecord("customer", ChangeClass.NEW, Op.UPSERT, Instant.parse(T), data, topic, 0, offset));
    }

    private static EntityPipeline pipeline(String topic, EventDecoder decoder) {
        return EntityPipeline.builder().entity(CUSTOMER).sourceTopic(topic).decoder(decoder).changesTopic(CHANGES).dlqTopic(topic + ".dlq").build();
    }

    private static AvroWireDeserializer deserializer() {
        return new AvroWireDeserializer(MockSchemaRegistry.forScope(SCOPE));
    }

    /** The DLQ compared whole: each record as text (key, value, headers), and each value's bytes exactly as they came. */
    private static void assertDlq(List<TestRecord<byte[], byte[]>> dlq, List<DeadLetter> expected, List<byte[]> values) {
        assertThat(deadLetters(dlq)).isEqualTo(expected);
        assertThat(dlq.stream().map(TestRecord::value).toList()).containsExactlyElementsOf(values);
    }

    @Test
    void anAvroStringOrKeyFieldThatIsNotUtf8IsDeadLetteredWithItsFieldAndByte() {
        String topic = "crm.customers.avro";
        byte[] badEmail = wire(event(row(new Utf8("C9"), hex("61c32862"))));
        byte[] badKey = wire(event(row(hex("485a3936eda080"), new Utf8("k@x")))); // HZ96 and U+D800 as CESU-8 writes it
        byte[] badTombstoneKey = HexFormat.of().parseHex("43ff");
        try (TopologyTestDriver d = driver(List.of(pipeline(topic, new AvroEventDecoder(deserializer(), CUSTOMER.key()))),
                new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, topic);
            in.pipeInput(utf8("C1"), wire(event(row(new Utf8("C1"), new Utf8("a@x")))), NOW);
            in.pipeInput(utf8("C9"), badEmail, NOW);
            in.pipeInput(utf8("C9"), badKey, NOW);
            in.pipeInput(utf8("C2"), wire(event(row(new Utf8("C2"), new Utf8("é@x")))), NOW);
            in.pipeInput(badTombstoneKey, null, NOW);
            in.pipeInput(utf8("C3"), wire(event(row(new Utf8("C3"), new Utf8("c@x")))), NOW);

            assertThat(changes(output(d, CHANGES))).isEqualTo(List.of(
                    customer("C1", "a@x", topic, 0), customer("C2", "é@x", topic, 3), customer("C3", "c@x", topic, 5)));
            assertDlq(output(d, topic + ".dlq").readRecordsToList(), List.of(
                    new DeadLetter("C9", text(badEmail), dlqHeaders("CustomerEvent.data.email: not valid UTF-8: malformed byte sequence at byte 1",
                            "customer", topic, 1)),
                    new DeadLetter("C9", text(badKey), dlqHeaders("CustomerEvent.data.customer_id: not valid UTF-8: malformed byte sequence "
                            + "at byte 4", "customer", topic, 2)),
                    new DeadLetter(text(badTombstoneKey), null, dlqHeaders("tombstone key is not valid UTF-8: malformed byte sequence at byte 1",
                            "customer", topic, 4))),
                    Arrays.asList(badEmail, badKey, null));
        }
    }

    @Test
    void anAvroMapKeyThatIsNotUtf8IsDeadLetteredWithItsField() {
        String topic = "crm.customers.avro-map";
        try (TopologyTestDriver d = driver(List.of(pipeline(topic, new AvroEventDecoder(deserializer(), CUSTOMER.key()))),
                new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, topic);
            in.pipeInput(utf8("C1"), mapEvent("C1", "a@x", "email"), NOW);
            byte[] bad = mapEvent("C9", "x@x", "key~");
            in.pipeInput(utf8("C9"), bad, NOW);
            in.pipeInput(utf8("C2"), mapEvent("C2", "b@x", "email"), NOW);

            assertThat(changes(output(d, CHANGES))).isEqualTo(List.of(customer("C1", "a@x", topic, 0), customer("C2", "b@x", topic, 2)));
            assertDlq(output(d, topic + ".dlq").readRecordsToList(), List.of(new DeadLetter("C9", text(bad),
                    dlqHeaders("MapEvent.data (a map key): not valid UTF-8: malformed byte sequence at byte 3", "customer", topic, 1))),
                    List.of(bad));
        }
    }

    private static byte[] mapEvent(String id, String email, String emailKey) {
        Map<Utf8, Object> data = new LinkedHashMap<>();
        data.put(new Utf8("customer_id"), new Utf8(id));
        data.put(new Utf8(emailKey), new Utf8(email));
        data.put(new Utf8("city"), new Utf8("Oslo"));
        data.put(new Utf8("last_login"), 7L);
        GenericRecord e = new GenericData.Record(MAP_EVENT);
        e.put("op", new Utf8("upsert"));
        e.put("event_time", new Utf8(T));
        e.put("data", data);
        return wire(e);
    }

    @Test
    void aDebeziumAvroImageThatIsNotUtf8IsDeadLetteredWithItsFieldAndByte() {
        String topic = "pg.customers.avro";
        byte[] bad = debezium(row(new Utf8("C9"), hex("78eda080")));
        try (TopologyTestDriver d = driver(List.of(pipeline(topic, new DebeziumAvroDecoder(deserializer()))), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, topic);
            in.pipeInput(utf8("k"), debezium(row(new Utf8("C1"), new Utf8("a@x"))), NOW);
            in.pipeInput(utf8("k"), bad, NOW);
            in.pipeInput(utf8("k"), debezium(row(new Utf8("C2"), new Utf8("b@x"))), NOW);

            assertThat(changes(output(d, CHANGES))).isEqualTo(List.of(customer("C1", "a@x", topic, 0), customer("C2", "b@x", topic, 2)));
            assertDlq(output(d, topic + ".dlq").readRecordsToList(), List.of(new DeadLetter("k", text(bad),
                    dlqHeaders("Envelope.after.email: not valid UTF-8: malformed byte sequence at byte 1", "customer", topic, 1))),
                    List.of(bad));
        }
    }

    private static byte[] debezium(GenericRecord after) {
        GenericRecord e = new GenericData.Record(ENVELOPE);
        e.put("after", after);
        GenericRecord source = new GenericData.Record(ENVELOPE.getField("source").schema());
        source.put("ts_ms", Instant.parse(T).toEpochMilli());
        e.put("source", source);
        e.put("op", new Utf8("c"));
        e.put("ts_ms", Instant.parse(T).toEpochMilli() + 900);
        return wire(e);
    }

    @Test
    void aControlHeaderThatIsNotUtf8IsDeadLetteredAndTheSliceGoesOn() {
        String t1 = "2025-08-01T00:00:00Z";
        String marker = TopologySnapshotTest.marker("customer", t1, 0, 1);
        byte[] badKind = HexFormat.of().parseHex("656e642dc0af");
        try (TopologyTestDriver d = driver(List.of(TopologySnapshotTest.SNAPSHOT_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, TopologySnapshotTest.SNAPSHOTS);
            TopologySnapshotTest.pipeRow(in, "C1", TopologySnapshotTest.slice(t1, "C1", "a@x", "Oslo", 1)); // 0
            RecordHeaders h = new RecordHeaders();
            h.add(SliceMarker.HEADER, badKind);
            in.pipeInput(new TestRecord<>(null, utf8(marker), h, NOW));                                       // 1
            TopologySnapshotTest.pipeControl(in, marker);                                                       // 2

            assertThat(TopologySnapshotTest.read(output(d, TopologySnapshotTest.CHANGES))).isEqualTo(List.of(
                    TopologySnapshotTest.change(ChangeClass.NEW, t1, "C1", "a@x", "Oslo", 1, 0), TopologySnapshotTest.endOfSlice(t1)));
            List<String> headers = new ArrayList<>(List.of(SliceMarker.HEADER + "=" + text(badKind)));
            headers.addAll(dlqHeaders("header dimstream.control is not valid UTF-8: malformed byte sequence at byte 4", "customer",
                    TopologySnapshotTest.SNAPSHOTS, 1));
            List<TestRecord<byte[], byte[]>> dlq = output(d, TopologySnapshotTest.DLQ).readRecordsToList();
            assertDlq(dlq, List.of(new DeadLetter(null, marker, headers)), List.of(utf8(marker)));
            assertThat(dlq.get(0).headers().lastHeader(SliceMarker.HEADER).value()).isEqualTo(badKind);
        }
    }

    @Test
    void aJsonRecordKeyThatIsNotUtf8IsDeadLettered() {
        String topic = "crm.customers";
        byte[] badKey = HexFormat.of().parseHex("7b22637573746f6d65725f6964223a2243ed" + "a080227d"); // {"customer_id":"C + ED A0 80 + "}
        try (TopologyTestDriver d = driver(List.of(pipeline(topic, new NativeJsonDecoder(CUSTOMER.key()))), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, topic);
            in.pipeInput(utf8("C1"), utf8("{\"op\":\"upsert\",\"event_time\":\"" + T + "\",\"data\":{\"customer_id\":\"C1\",\"email\":\"a@x\","
                    + "\"city\":\"Oslo\",\"last_login\":7}}"), NOW);
            in.pipeInput(badKey, null, NOW);

            assertThat(changes(output(d, CHANGES))).isEqualTo(List.of(customer("C1", "a@x", topic, 0)));
            assertDlq(output(d, topic + ".dlq").readRecordsToList(), List.of(new DeadLetter(text(badKey), null,
                    dlqHeaders("tombstone key is not valid UTF-8: malformed byte sequence at byte 17", "customer", topic, 1))),
                    Arrays.asList((byte[]) null));
        }
    }
}
