package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMERS;
import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.customerChange;
import static io.dimstream.app.topology.TopologyClassificationTest.row;
import static io.dimstream.app.topology.TopologyClassificationTest.upsert;
import static io.dimstream.app.topology.TopologyFixtures.CUSTOMER;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.decode.Decoded;
import io.dimstream.app.decode.EventDecoder;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No record stops a stream thread: a step that throws for a record (or could not build its change)
 * dead-letters that record and the records around it pass; a record too big for the internal topics
 * goes to the DLQ with the sizes, cut to fit the DLQ; a transient failure is not dead-lettered but fails
 * the thread, for the record to be read again.
 */
class TopologyFailureTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    @TempDir
    Path stateDir;

    @Test
    void anEventTimeBeyondTheMicrosecondRangeIsDeadLetteredAndTheRecordsAroundItPass() {
        // C1: the change's epoch microseconds would overflow a long; this used to kill the thread for good.
        // The validation refuses it now, before the change is built (the guard in the decode step
        // stays for whatever else could throw while building a change)
        String farFuture = upsert("+300000-01-01T00:00:00Z", "P1", "a@x", "Oslo", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            in.pipeInput(utf8("C1"), utf8(upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1)), NOW);
            in.pipeInput(utf8("P1"), utf8(farFuture), NOW);
            in.pipeInput(utf8("C2"), utf8(upsert("2025-08-22T17:30:00Z", "C2", "b@x", "Rome", 1)), NOW);

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
                    customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C2", "b@x", "Rome", 1), 2)));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("P1", farFuture, dlqHeaders(
                            "event_time \"+300000-01-01T00:00:00Z\" is outside the supported range 0001-01-01T00:00:00Z to"
                                    + " 9999-12-31T23:59:59.999999Z", "customer", CUSTOMERS, 1))));
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "dlq", 1.0));
    }

    @Test
    void aClassifyStepFailureDeadLettersTheRepartitionRecordNamingTheRepartitionTopic() {
        // a record on the repartition topic that is not a pending change (left by another writer, or corrupt):
        // ClassifyProcessor throws, the processing exception handler sends it to the entity's DLQ and resumes
        String repartition = DimstreamTopology.repartitionTopic(TopologyFixtures.APPLICATION_ID, "customer");
        byte[] corrupt = {9, 1, 2, 3};
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            in.pipeInput(utf8("C1"), utf8(upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1)), NOW);
            input(driver, repartition).pipeInput(utf8("[\"C9\"]"), corrupt, NOW);
            in.pipeInput(utf8("C2"), utf8(upsert("2025-08-22T17:30:00Z", "C2", "b@x", "Rome", 1)), NOW);

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
                    customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C2", "b@x", "Rome", 1), 1)));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("[\"C9\"]", TopologyFixtures.text(corrupt), List.of(
                            "dimstream.error=java.lang.IllegalStateException: pending change of unknown format version 9",
                            "dimstream.entity=customer",
                            "dimstream.source.topic=" + repartition,
                            "dimstream.source.partition=0",
                            "dimstream.source.offset=1"))));
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "dlq", 1.0));
    }

    @Test
    void aDecoderFailureThatEscapesTheDecodeStepIsDeadLetteredByTheHandler() {
        // the decode step turns a decoder's RuntimeException into a reason itself; anything else a
        // step throws (here a checked exception thrown sneakily) reaches the processing exception handler
        EventDecoder json = new NativeJsonDecoder(CUSTOMER.key());
        EventDecoder throwing = (key, value, ts, topic, partition, offset) -> {
            if (new String(value, java.nio.charset.StandardCharsets.UTF_8).contains("boom")) {
                throw TopologyFailureTest.<RuntimeException>sneaky(new java.io.IOException("boom in the decoder"));
            }
            return json.decode(key, value, ts, topic, partition, offset);
        };
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(CUSTOMER)
                .sourceTopic(CUSTOMERS)
                .decoder(throwing)
                .changesTopic("dimstream.customer.changes")
                .dlqTopic("crm.customers.dlq")
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            in.pipeInput(utf8("C1"), utf8(upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1)), NOW);
            in.pipeInput(utf8("k"), utf8("boom"), NOW);
            in.pipeInput(utf8("C2"), utf8(upsert("2025-08-22T17:30:00Z", "C2", "b@x", "Rome", 1)), NOW);

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
                    customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C2", "b@x", "Rome", 1), 2)));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("k", "boom", dlqHeaders("java.io.IOException: boom in the decoder", "customer", CUSTOMERS, 1))));
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "dlq", 1.0));
    }

    @Test
    void anUnavailableRegistryFailsTheThreadInsteadOfDeadLetteringAndTheRecordPassesWhenReadAgain() {
        AtomicBoolean registryDown = new AtomicBoolean(true);
        EventDecoder json = new NativeJsonDecoder(CUSTOMER.key());
        EventDecoder needsRegistry = (key, value, ts, topic, partition, offset) -> {
            if (registryDown.get()) {
                throw new SchemaRegistryUnavailableException("cannot fetch schema id 1 (registry http://registry:8081: 503 down)");
            }
            return json.decode(key, value, ts, topic, partition, offset);
        };
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(CUSTOMER)
                .sourceTopic(CUSTOMERS)
                .decoder(needsRegistry)
                .changesTopic("dimstream.customer.changes")
                .dlqTopic("crm.customers.dlq")
                .build();
        String c1 = upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1);

        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            assertThatThrownBy(() -> in.pipeInput(utf8("C1"), utf8(c1), NOW))
                    .satisfies(e -> assertThat(TransientFailures.transientCause(e)).get()
                            .isInstanceOf(SchemaRegistryUnavailableException.class));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEmpty();
            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEmpty();

            // the replaced thread reads the record again (piped again here, at its next offset)
            registryDown.set(false);
            in.pipeInput(utf8("C1"), utf8(c1), NOW);
            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 1)));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEmpty();
        }
    }

    @Test
    void aRecordWhoseChangeIsOverTheSizeLimitGoesToTheDlqWithTheSizesCutToFit() {
        // a 4 KiB limit instead of 1 MiB, so the records stay small; the arithmetic is the same
        Map<String, Object> limit = Map.of("producer.max.request.size", 4096);
        String fits = upsert("2025-08-22T17:00:00Z", "C1", "x".repeat(3_000), "Oslo", 1);
        String big = upsert("2025-08-22T17:10:00Z", "C2", "y".repeat(4_000), "Oslo", 1);
        String notJson = "z".repeat(4_090);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE), registry, stateDir, limit)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            in.pipeInput(utf8("C1"), utf8(fits), NOW);
            in.pipeInput(utf8("C2"), utf8(big), NOW);
            in.pipeInput(utf8("k3"), utf8(notJson), NOW);
            in.pipeInput(utf8("C4"), utf8(upsert("2025-08-22T17:30:00Z", "C4", "b@x", "Rome", 1)), NOW);

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "x".repeat(3_000), "Oslo", 1), 0),
                    customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C4", "b@x", "Rome", 1), 3)));
            List<org.apache.kafka.streams.test.TestRecord<byte[], byte[]>> records = output(driver, "crm.customers.dlq").readRecordsToList();
            List<DeadLetter> dlq = deadLetters(records);
            // 4329 = 61 + 21 + 5 + 6 (key) + 5 + 5 + 4206 (the change JSON) + 20 ("class":"UNCHANGED",); the
            // repartition record has the pending change's 52-byte binary header instead of the class field
            String tooLarge = "too large: its change record would take 4421 bytes and its repartition record 4453 bytes, "
                    + "over the limit of 4096 bytes (the Streams producer's max.request.size and the topics' max.message.bytes)";
            String notJsonReason = dlq.get(1).headers().get(0).substring("dimstream.error=".length());
            assertThat(notJsonReason).startsWith("not valid JSON: Unrecognized token 'zzzz");
            assertThat(dlq).isEqualTo(List.of(
                    new DeadLetter("C2", big.substring(0, 3_551), withTruncation(dlqHeaders(tooLarge, "customer", CUSTOMERS, 1),
                            "value", big.length())),
                    new DeadLetter("k3", notJson.substring(0, dlq.get(1).value().length()),
                            withTruncation(dlqHeaders(notJsonReason, "customer", CUSTOMERS, 2), "value", 4_090))));
            // each DLQ copy is as big as the limit allows, no bigger (to within the varints' slack)
            for (var r : records) {
                assertThat(RecordLimits.upperBound(r.key(), r.value(), r.headers().toArray())).isBetween(4096 - 8, 4096);
            }
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "dlq", 2.0));
    }

    private static List<String> withTruncation(List<String> headers, String cut, int originalSize) {
        List<String> all = new ArrayList<>(headers);
        all.add("dimstream.truncated=" + cut);
        all.add("dimstream.original.value.size=" + originalSize);
        return all;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable e) throws E {
        throw (E) e;
    }
}
