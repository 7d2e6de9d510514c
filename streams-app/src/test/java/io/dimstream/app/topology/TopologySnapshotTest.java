package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.CUSTOMER;
import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.text;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.decode.SnapshotRowDecoder;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot entity's way through the topology (TopologyTestDriver: one partition per topic):
 * slice rows become upserts at the slice's instant, classified like any event; an end-of-slice
 * marker passes to the changes topic after the slice's records once every source partition's
 * marker has arrived; bad markers and rows go to the DLQ.
 */
class TopologySnapshotTest {

    static final String SNAPSHOTS = "crm.customer_snapshots";
    static final String CHANGES = "dimstream.customer.changes";
    static final String DLQ = "crm.customer_snapshots.dlq";
    static final EntityPipeline SNAPSHOT_PIPELINE = EntityPipeline.builder()
            .entity(CUSTOMER)
            .sourceTopic(SNAPSHOTS)
            .decoder(new SnapshotRowDecoder("snapshot_time"))
            .changesTopic(CHANGES)
            .dlqTopic(DLQ)
            .snapshot(true)
            .build();

    static final String T1 = "2025-08-01T00:00:00Z";
    static final String T2 = "2025-08-02T00:00:00Z";

    @TempDir
    Path stateDir;

    /** One record of the changes topic: its key, its control header (null for a change) and its decoded value. */
    record Out(String key, String control, Object value) {
    }

    static List<Out> read(TestOutputTopic<byte[], byte[]> topic) {
        List<Out> out = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : topic.readRecordsToList()) {
            String control = SliceMarker.controlKind(r.headers());
            List<String> names = new ArrayList<>();
            for (Header h : r.headers()) {
                names.add(h.key());
            }
            if (control == null) {
                assertThat(names).as("headers of a change record").isEmpty();
                out.add(new Out(text(r.key()), null, ChangeCodec.decode(r.value())));
            } else {
                assertThat(names).as("headers of a control record").containsExactly(SliceMarker.HEADER);
                out.add(new Out(text(r.key()), control, SliceMarker.fromBytes(r.value())));
            }
        }
        return out;
    }

    static String slice(String time, String id, String email, String city, long lastLogin) {
        return "{\"customer_id\":\"" + id + "\",\"email\":\"" + email + "\",\"city\":\"" + city + "\",\"last_login\":" + lastLogin
                + ",\"snapshot_time\":\"" + time + "\"}";
    }

    static String marker(String entity, String time, int partition, int partitions) {
        return "{\"entity\":\"" + entity + "\",\"slice\":\"" + time + "\",\"partition\":" + partition + ",\"partitions\":" + partitions + "}";
    }

    static void pipeRow(TestInputTopic<byte[], byte[]> in, String id, String value) {
        in.pipeInput(utf8("[\"" + id + "\"]"), utf8(value), Instant.parse("2026-01-05T10:00:00Z"));
    }

    static void pipeControl(TestInputTopic<byte[], byte[]> in, String value) {
        RecordHeaders h = new RecordHeaders();
        SliceMarker.mark(h);
        in.pipeInput(new TestRecord<>(null, utf8(value), h, Instant.parse("2026-01-05T10:00:00Z")));
    }

    static Out change(ChangeClass cls, String time, String id, String email, String city, long lastLogin, long offset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("email", email);
        data.put("city", city);
        data.put("last_login", BigInteger.valueOf(lastLogin));
        return new Out("[\"" + id + "\"]", null,
                new ChangeRecord("customer", cls, Op.UPSERT, Instant.parse(time), data, SNAPSHOTS, 0, offset));
    }

    static Out endOfSlice(String time) {
        return new Out(io.dimstream.db.entity.ColumnType.CANONICAL_TIMESTAMP.format(Instant.parse(time)), SliceMarker.END_OF_SLICE,
                new SliceMarker("customer", Instant.parse(time), 0, 1));
    }

    @Test
    void sliceRowsAreUpsertsAtTheSliceInstantAndTheMarkerFollowsThemToTheChangesTopic() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver d = driver(List.of(SNAPSHOT_PIPELINE), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = TopologyFixtures.input(d, SNAPSHOTS);
            pipeRow(in, "C1", slice(T1, "C1", "a@x", "Oslo", 1));     // 0
            pipeRow(in, "C2", slice(T1, "C2", "b@x", "Rome", 1));     // 1
            pipeControl(in, marker("customer", T1, 0, 1));            // 2
            pipeRow(in, "C1", slice(T2, "C1", "a@x", "Bergen", 1));   // 3 changed
            pipeRow(in, "C2", slice(T2, "C2", "b@x", "Rome", 1));     // 4 re-asserted
            // slice T2 has no marker (yet): nothing on the changes topic says it is complete

            assertThat(read(output(d, CHANGES))).containsExactly(
                    change(ChangeClass.NEW, T1, "C1", "a@x", "Oslo", 1, 0),
                    change(ChangeClass.NEW, T1, "C2", "b@x", "Rome", 1, 1),
                    endOfSlice(T1),
                    change(ChangeClass.CHANGED, T2, "C1", "a@x", "Bergen", 1, 3),
                    change(ChangeClass.UNCHANGED, T2, "C2", "b@x", "Rome", 1, 4));
            assertThat(output(d, DLQ).readRecordsToList()).isEmpty();
            assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "changed", 1.0, "unchanged", 1.0, "control", 1.0));
        }
    }

    @Test
    void aMarkerWaitsUntilEverySourcePartitionHasDeliveredItsOwn() {
        try (TopologyTestDriver d = driver(List.of(SNAPSHOT_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = TopologyFixtures.input(d, SNAPSHOTS);
            pipeRow(in, "C1", slice(T1, "C1", "a@x", "Oslo", 1));
            // the slice went to 2 partitions; partition 1's marker has not come: no end of slice yet
            pipeControl(in, marker("customer", T1, 0, 2));
            // the same slice published again on 1 partition: the count starts over and completes
            pipeControl(in, marker("customer", T1, 0, 1));
            // and a re-delivered marker of a completed slice completes it again (the sink finds nothing to do twice)
            pipeControl(in, marker("customer", T1, 0, 1));

            assertThat(read(output(d, CHANGES))).containsExactly(
                    change(ChangeClass.NEW, T1, "C1", "a@x", "Oslo", 1, 0),
                    endOfSlice(T1),
                    endOfSlice(T1));
        }
    }

    @Test
    void badMarkersAndRowsGoToTheDeadLetterTopicWithTheirReason() {
        try (TopologyTestDriver d = driver(List.of(SNAPSHOT_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = TopologyFixtures.input(d, SNAPSHOTS);
            pipeControl(in, "{\"entity\":\"customer\",\"slice\":\"yesterday\",\"partition\":0,\"partitions\":1}"); // 0
            pipeControl(in, marker("product", T1, 0, 1));                                                           // 1
            pipeControl(in, marker("customer", T1, 1, 2));                                                          // 2
            pipeControl(in, "{\"entity\":\"customer\",\"slice\":\"" + T1 + "\",\"partition\":0}");                 // 3
            pipeRow(in, "C1", "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"last_login\":1}");       // 4
            in.pipeInput(utf8("[\"C1\"]"), null, Instant.parse("2026-01-05T10:00:00Z"));                            // 5

            assertThat(read(output(d, CHANGES))).isEmpty();
            List<DeadLetter> dlq = deadLetters(output(d, DLQ));
            String h = SliceMarker.HEADER + "=" + SliceMarker.END_OF_SLICE;
            assertThat(dlq).containsExactly(
                    new DeadLetter(null, "{\"entity\":\"customer\",\"slice\":\"yesterday\",\"partition\":0,\"partitions\":1}",
                            withFirst(h, dlqHeaders("end-of-slice marker: field 'slice' is not an ISO-8601 instant with offset: \"yesterday\"",
                                    "customer", SNAPSHOTS, 0))),
                    new DeadLetter(null, marker("product", T1, 0, 1), withFirst(h, dlqHeaders(
                            "end-of-slice marker of entity 'product' on the topic of entity 'customer'", "customer", SNAPSHOTS, 1))),
                    new DeadLetter(null, marker("customer", T1, 1, 2), withFirst(h, dlqHeaders(
                            "end-of-slice marker says partition 1 but is on partition 0", "customer", SNAPSHOTS, 2))),
                    new DeadLetter(null, "{\"entity\":\"customer\",\"slice\":\"" + T1 + "\",\"partition\":0}", withFirst(h, dlqHeaders(
                            "end-of-slice marker: field 'partitions' missing or not an integer", "customer", SNAPSHOTS, 3))),
                    new DeadLetter("[\"C1\"]", "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"last_login\":1}",
                            dlqHeaders("field 'snapshot_time' missing", "customer", SNAPSHOTS, 4)),
                    new DeadLetter("[\"C1\"]", null, dlqHeaders(
                            "null value (tombstone): a snapshot feed deletes a key by leaving it out of a slice", "customer", SNAPSHOTS, 5)));
        }
    }

    @Test
    void aControlRecordOnAChangesModeTopicIsADeadLetter() {
        EntityPipeline changesMode = EntityPipeline.builder()
                .entity(CUSTOMER)
                .sourceTopic("crm.customers")
                .decoder(new NativeJsonDecoder(CUSTOMER.key()))
                .changesTopic(CHANGES)
                .dlqTopic("crm.customers.dlq")
                .build();
        try (TopologyTestDriver d = driver(List.of(changesMode), new SimpleMeterRegistry(), stateDir)) {
            pipeControl(TopologyFixtures.input(d, "crm.customers"), marker("customer", T1, 0, 1));

            assertThat(read(output(d, CHANGES))).isEmpty();
            assertThat(deadLetters(output(d, "crm.customers.dlq"))).containsExactly(new DeadLetter(null, marker("customer", T1, 0, 1),
                    withFirst(SliceMarker.HEADER + "=" + SliceMarker.END_OF_SLICE, dlqHeaders(
                            "control record (dimstream.control=end-of-slice) on the topic of entity customer, which is not mode: snapshot",
                            "customer", "crm.customers", 0))));
        }
    }

    private static List<String> withFirst(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
