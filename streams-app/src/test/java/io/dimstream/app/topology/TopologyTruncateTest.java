package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.text;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium feed's truncates and messages through the topology (TopologyTestDriver: one partition
 * per topic), from the config's {@code on-truncate} on: with {@code delete-all} a truncate reaches
 * the changes topic as a {@link TruncateMarker} between the changes before and after it (for the
 * task's own changes partition behind the repartition step, for every partition without it); with
 * {@code ignore} it is counted and nothing passes; a message event is counted and nothing passes;
 * none of them is a dead letter.
 */
class TopologyTruncateTest {

    static final String TOPIC = "pg.public.customers";
    static final String CHANGES = ChangeTopics.name(TopologyFixtures.APPLICATION_ID, "customer");
    static final String DLQ = EntityPipeline.dlqTopicOf(TopologyFixtures.APPLICATION_ID, "customer");
    static final Instant COMMIT = Instant.parse("2025-08-22T17:00:00Z");

    @TempDir
    Path stateDir;

    static EntityPipeline pipeline(String options) {
        return EntityPipeline.of(TopologyFixtures.APPLICATION_ID, DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: %s, format: debezium-json, table: dim_customer, key: [customer_id], tracked: [city],
                     columns: {customer_id: text, city: text}%s}
                """.formatted(TOPIC, options), "test.yml", Map.of()).entity("customer"));
    }

    /** A Debezium JSON value (no schema wrapper) committed {@code ms} after COMMIT. */
    static String debezium(String op, String id, String city, long ms) {
        String row = id == null ? "null" : "{\"customer_id\":\"" + id + "\",\"city\":\"" + city + "\"}";
        return "{\"before\":" + (op.equals("d") ? row : "null") + ",\"after\":" + (op.equals("d") ? "null" : row)
                + ",\"source\":{\"connector\":\"postgresql\",\"ts_ms\":" + (COMMIT.toEpochMilli() + ms) + "},\"op\":\"" + op
                + "\",\"ts_ms\":" + (COMMIT.toEpochMilli() + ms + 900) + (op.equals("m") ? ",\"message\":{\"prefix\":\"audit\",\"content\":\"eA==\"}" : "")
                + "}";
    }

    static void pipe(TestInputTopic<byte[], byte[]> in, String key, String value) {
        in.pipeInput(utf8(key), utf8(value), Instant.parse("2026-01-05T10:00:00Z"));
    }

    /** One record of the changes topic: key, control kind (null for a change), decoded value. */
    record Out(String key, String control, Object value) {
    }

    static List<Out> read(TopologyTestDriver d) {
        List<Out> out = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : output(d, CHANGES).readRecordsToList()) {
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
                out.add(new Out(text(r.key()), control, TruncateMarker.fromBytes(r.value())));
            }
        }
        return out;
    }

    static Out change(ChangeClass cls, String id, String city, long ms, long offset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("city", city);
        return new Out("[\"" + id + "\"]", null, new ChangeRecord("customer", cls, Op.UPSERT, COMMIT.plusMillis(ms), data, TOPIC, 0, offset));
    }

    static Out truncate(long ms, long offset, OptionalInt partition) {
        return new Out("truncate", TruncateMarker.KIND,
                new TruncateMarker("customer", COMMIT.plusMillis(ms), Source.kafka(TOPIC, 0, offset), partition));
    }

    private void feed(TestInputTopic<byte[], byte[]> in) {
        pipe(in, "{\"customer_id\":\"C1\"}", debezium("c", "C1", "Oslo", 0));       // 0
        pipe(in, "{\"customer_id\":\"C2\"}", debezium("c", "C2", "Rome", 0));       // 1
        pipe(in, null, debezium("t", null, null, 5));                               // 2 TRUNCATE customers
        pipe(in, "{\"customer_id\":\"C1\"}", debezium("c", "C1", "Oslo", 5));       // 3 inserted again in the truncate's transaction
        pipe(in, "{\"prefix\":\"audit\"}", debezium("m", null, null, 6));           // 4 pg_logical_emit_message
        pipe(in, "{\"customer_id\":\"C2\"}", null);                                 // 5 a tombstone (skipped)
    }

    @Test
    void withDeleteAllATruncateReachesTheChangesPartitionBetweenTheChangesBeforeAndAfterIt() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver d = driver(List.of(pipeline(", on-truncate: delete-all")), registry, stateDir)) {
            feed(TopologyFixtures.input(d, TOPIC));

            assertThat(read(d)).containsExactly(
                    change(ChangeClass.NEW, "C1", "Oslo", 0, 0),
                    change(ChangeClass.NEW, "C2", "Rome", 0, 1),
                    // behind the repartition step: for the task's own changes partition
                    truncate(5, 2, OptionalInt.of(0)),
                    // the classifier does not know of the sink's deletes: same content, so UNCHANGED (the sink places it anyway)
                    change(ChangeClass.UNCHANGED, "C1", "Oslo", 5, 3));
            assertThat(output(d, DLQ).readRecordsToList()).isEmpty();
            assertThat(counts(registry, "customer"))
                    .isEqualTo(Map.of("new", 2.0, "unchanged", 1.0, "truncate", 1.0, "message", 1.0, "skipped", 1.0));
        }
    }

    @Test
    void withoutTheRepartitionStepTheMarkerIsForEveryChangesPartition() {
        try (TopologyTestDriver d = driver(List.of(pipeline(", on-truncate: delete-all, partitioned-by-key: true")),
                new SimpleMeterRegistry(), stateDir)) {
            feed(TopologyFixtures.input(d, TOPIC));

            assertThat(read(d)).containsExactly(
                    change(ChangeClass.NEW, "C1", "Oslo", 0, 0),
                    change(ChangeClass.NEW, "C2", "Rome", 0, 1),
                    truncate(5, 2, OptionalInt.empty()),
                    change(ChangeClass.UNCHANGED, "C1", "Oslo", 5, 3));
        }
    }

    @Test
    void ignoredTruncatesAndMessagesAreCountedAndPassNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        for (String options : List.of("", ", on-truncate: ignore")) {
            try (TopologyTestDriver d = driver(List.of(pipeline(options)), registry, stateDir.resolve("x" + options.length()))) {
                feed(TopologyFixtures.input(d, TOPIC));

                assertThat(read(d)).containsExactly(
                        change(ChangeClass.NEW, "C1", "Oslo", 0, 0),
                        change(ChangeClass.NEW, "C2", "Rome", 0, 1),
                        change(ChangeClass.UNCHANGED, "C1", "Oslo", 5, 3));
                assertThat(output(d, DLQ).readRecordsToList()).isEmpty();
            }
        }
        assertThat(counts(registry, "customer"))
                .isEqualTo(Map.of("new", 4.0, "unchanged", 2.0, "truncate", 2.0, "message", 2.0, "skipped", 2.0));
    }
}
