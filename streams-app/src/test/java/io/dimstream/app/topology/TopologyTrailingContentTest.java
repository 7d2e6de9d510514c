package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.CUSTOMER;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static io.dimstream.app.topology.TopologySnapshotTest.SNAPSHOT_PIPELINE;
import static io.dimstream.app.topology.TopologySnapshotTest.marker;
import static io.dimstream.app.topology.TopologySnapshotTest.pipeControl;
import static io.dimstream.app.topology.TopologySnapshotTest.pipeRow;
import static io.dimstream.app.topology.TopologySnapshotTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.DebeziumJsonDecoder;
import io.dimstream.app.decode.EventDecoder;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.decode.SeedJsonDecoder;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record with content after its JSON value ({@code {...upsert...}{"op":"delete",...}}) goes to the
 * DLQ whole, with the byte where the content starts, on every JSON path of the topology: native
 * JSON, debezium-json, seed-json, a snapshot row and an end-of-slice marker; whitespace after the
 * value is no content; the good records around land exactly. Before, the first value landed and the
 * rest vanished without a word.
 */
class TopologyTrailingContentTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
    private static final String T = "2025-08-22T17:00:00Z";

    @TempDir
    Path stateDir;

    private static String upsert(String id, String email) {
        return "{\"op\":\"upsert\",\"event_time\":\"" + T + "\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\"" + email
                + "\",\"city\":\"Oslo\",\"last_login\":7}}";
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
        return EntityPipeline.builder().entity(CUSTOMER).sourceTopic(topic).decoder(decoder)
                .changesTopic("dimstream.customer.changes").dlqTopic(topic + ".dlq").build();
    }

    @Test
    void nativeJsonWithContentAfterItsObjectIsDeadLetteredWhole() {
        String twoEvents = upsert("C9", "x@x") + "{\"op\":\"delete\",\"event_time\":\"" + T + "\",\"data\":{\"customer_id\":\"C9\"}}";
        String stray = upsert("C8", "é@x") + " ,";
        try (TopologyTestDriver d = driver(List.of(pipeline("crm.customers", new NativeJsonDecoder(CUSTOMER.key()))),
                new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, "crm.customers");
            in.pipeInput(utf8("C1"), utf8(upsert("C1", "a@x")), NOW);
            in.pipeInput(utf8("C9"), utf8(twoEvents), NOW);
            in.pipeInput(utf8("C2"), utf8(upsert("C2", "b@x") + " \r\n\t "), NOW); // whitespace after the value: no content
            in.pipeInput(utf8("C8"), utf8(stray), NOW);
            in.pipeInput(utf8("C3"), utf8(upsert("C3", "c@x")), NOW);

            assertThat(changes(output(d, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customer("C1", "a@x", "crm.customers", 0), customer("C2", "b@x", "crm.customers", 2),
                    customer("C3", "c@x", "crm.customers", 4)));
            int first = upsert("C9", "x@x").length();
            int second = utf8(upsert("C8", "é@x")).length + 1; // the é is two bytes; the comma after one space
            assertThat(deadLetters(output(d, "crm.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("C9", twoEvents, dlqHeaders("trailing content after the JSON value at byte " + first,
                            "customer", "crm.customers", 1)),
                    new DeadLetter("C8", stray, dlqHeaders("trailing content after the JSON value at byte " + second,
                            "customer", "crm.customers", 3))));
        }
    }

    @Test
    void debeziumJsonWithContentAfterItsObjectIsDeadLetteredWhole() {
        String create = "{\"after\":{\"customer_id\":\"C1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"last_login\":7},\"op\":\"c\","
                + "\"source\":{\"ts_ms\":1755882000000}}";
        String withDelete = create.replace("C1", "C9") + "{\"before\":{\"customer_id\":\"C9\"},\"op\":\"d\",\"source\":{\"ts_ms\":1755882000001}}";
        try (TopologyTestDriver d = driver(List.of(pipeline("pg.customers", new DebeziumJsonDecoder())), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, "pg.customers");
            in.pipeInput(utf8("k"), utf8(create), NOW);
            in.pipeInput(utf8("k"), utf8(withDelete), NOW);
            in.pipeInput(utf8("k"), utf8(create.replace("C1", "C2").replace("a@x", "b@x")), NOW);

            assertThat(changes(output(d, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customer("C1", "a@x", "pg.customers", 0), customer("C2", "b@x", "pg.customers", 2)));
            assertThat(deadLetters(output(d, "pg.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("k", withDelete, dlqHeaders("trailing content after the JSON value at byte " + create.length(),
                            "customer", "pg.customers", 1))));
        }
    }

    @Test
    void seedJsonWithContentAfterItsObjectIsDeadLetteredWhole() {
        String row = "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"last_login\":7,\"operation\":\"CREATE\","
                + "\"change_time\":\"" + T + "\"}";
        String withMore = row.replace("C1", "C9") + "\n{\"customer_id\":\"C9\",\"operation\":\"DELETE\",\"change_time\":\"" + T + "\"}";
        try (TopologyTestDriver d = driver(List.of(pipeline("seed.customers", new SeedJsonDecoder(SeedJsonOptions.DEFAULTS))),
                new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, "seed.customers");
            in.pipeInput(utf8("k"), utf8(row), NOW);
            in.pipeInput(utf8("k"), utf8(withMore), NOW);
            in.pipeInput(utf8("k"), utf8(row.replace("C1", "C2").replace("a@x", "b@x")), NOW);

            assertThat(changes(output(d, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customer("C1", "a@x", "seed.customers", 0), customer("C2", "b@x", "seed.customers", 2)));
            assertThat(deadLetters(output(d, "seed.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("k", withMore, dlqHeaders("trailing content after the JSON value at byte " + (row.length() + 1),
                            "customer", "seed.customers", 1))));
        }
    }

    @Test
    void aSnapshotRowOrMarkerWithContentAfterItsObjectIsDeadLetteredWhole() {
        String t1 = "2025-08-01T00:00:00Z";
        String goodMarker = marker("customer", t1, 0, 1);
        String badRow = slice(t1, "C9", "x@x", "Rome", 1) + "{}";
        String badMarker = goodMarker + "[]";
        try (TopologyTestDriver d = driver(List.of(SNAPSHOT_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(d, TopologySnapshotTest.SNAPSHOTS);
            pipeRow(in, "C1", slice(t1, "C1", "a@x", "Oslo", 1)); // 0
            pipeRow(in, "C9", badRow);                              // 1
            pipeControl(in, badMarker);                             // 2
            pipeControl(in, goodMarker);                            // 3

            assertThat(TopologySnapshotTest.read(output(d, TopologySnapshotTest.CHANGES))).isEqualTo(List.of(
                    TopologySnapshotTest.change(ChangeClass.NEW, t1, "C1", "a@x", "Oslo", 1, 0), TopologySnapshotTest.endOfSlice(t1)));
            List<String> markerHeaders = new ArrayList<>(List.of("dimstream.control=end-of-slice"));
            markerHeaders.addAll(dlqHeaders("end-of-slice marker has trailing content after the JSON value at byte " + goodMarker.length(),
                    "customer", TopologySnapshotTest.SNAPSHOTS, 2));
            assertThat(deadLetters(output(d, TopologySnapshotTest.DLQ))).isEqualTo(List.of(
                    new DeadLetter("[\"C9\"]", badRow, dlqHeaders("trailing content after the JSON value at byte "
                            + (badRow.length() - 2), "customer", TopologySnapshotTest.SNAPSHOTS, 1)),
                    new DeadLetter(null, badMarker, markerHeaders)));
        }
    }
}
