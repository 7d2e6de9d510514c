package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMERS;
import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.customerChange;
import static io.dimstream.app.topology.TopologyClassificationTest.row;
import static io.dimstream.app.topology.TopologyClassificationTest.upsert;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * H4 on a real broker, with Kafka's default size limits everywhere: records near 1 MB among good
 * events. The ones whose copies fit go through; the ones that do not (a record that is not JSON and
 * whose DLQ copy no longer fits once the reason headers are added; a valid upsert whose change record
 * would be over 1 MiB) go to the DLQ cut to fit, saying so; the Streams client stays RUNNING and no
 * stream thread dies.
 */
class OversizeRecordsIT {

    @TempDir
    Path dir;

    @Test
    void recordsNearOneMegabyteNeverStopTheThreadAndTheOnesThatDoNotFitAreDeadLetteredCutToFit() {
        String bigValid = upsert("2025-08-22T17:10:00Z", "B1", "e".repeat(1_040_000), "Oslo", 1);
        String notJson = "n".repeat(1_048_000);
        // valid, and within the source topic's limit, but its change record (the JSON plus entity, class and lineage) is not
        String tooBigChange = upsert("2025-08-22T17:20:00Z", "B2", "f".repeat(1_048_330), "Oslo", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            // the source topic is the user's, with Kafka's default max.message.bytes
            kafka.createTopics(List.of(new NewTopic(CUSTOMERS, 1, (short) 1)));
            try (StreamsHarness harness = StreamsHarness.start(kafka, "oversize-it", List.of(CUSTOMER_PIPELINE), registry,
                    dir.resolve("state"), Map.of())) {
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
                    for (String[] r : List.of(
                            new String[] {"C1", upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1)},
                            new String[] {"B1", bigValid},
                            new String[] {"C2", upsert("2025-08-22T17:05:00Z", "C2", "b@x", "Rome", 1)},
                            new String[] {"k3", notJson},
                            new String[] {"B2", tooBigChange},
                            new String[] {"C3", upsert("2025-08-22T17:30:00Z", "C3", "c@x", "Pisa", 1)})) {
                        producer.send(new ProducerRecord<>(CUSTOMERS, utf8(r[0]), utf8(r[1])));
                    }
                    producer.flush();
                }

                await().atMost(Duration.ofMinutes(2)).until(() ->
                        StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes").size() == 4
                                && StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.dlq").size() == 2);

                assertThat(StreamsHarness.changes(StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes")))
                        .isEqualTo(List.of(
                                customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
                                customerChange(ChangeClass.NEW, "2025-08-22T17:10:00Z", row("B1", "e".repeat(1_040_000), "Oslo", 1), 1),
                                customerChange(ChangeClass.NEW, "2025-08-22T17:05:00Z", row("C2", "b@x", "Rome", 1), 2),
                                customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C3", "c@x", "Pisa", 1), 5)));
                List<ConsumerRecord<byte[], byte[]>> dlqRecords = StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.dlq");
                List<DeadLetter> dlq = StreamsHarness.deadLetters(dlqRecords);
                String notJsonReason = dlq.get(0).headers().get(0).substring("dimstream.error=".length());
                assertThat(notJsonReason).startsWith("not valid JSON: Unrecognized token 'nnnn");
                String tooLarge = "too large: its change record would take 1048751 bytes and its repartition record 1048783 bytes, "
                        + "over the limit of 1048576 bytes (the Streams producer's max.request.size and the topics' max.message.bytes)";
                assertThat(dlq).isEqualTo(List.of(
                        new DeadLetter("k3", notJson.substring(0, dlq.get(0).value().length()),
                                truncated(dlqHeaders(notJsonReason, "customer", CUSTOMERS, 3), 1_048_000)),
                        new DeadLetter("B2", tooBigChange.substring(0, dlq.get(1).value().length()),
                                truncated(dlqHeaders(tooLarge, "customer", CUSTOMERS, 4), tooBigChange.length()))));
                // cut to the limit, not below it by more than the varints' slack
                for (ConsumerRecord<byte[], byte[]> r : dlqRecords) {
                    assertThat(RecordLimits.upperBound(r.key(), r.value(), r.headers().toArray())).isBetween(1_048_576 - 8, 1_048_576);
                }

                assertThat(harness.streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
                assertThat(harness.supervisor.health().failures()).isZero();
                assertThat(registry.find(StreamThreadSupervisor.FAILURES).counters()).isEmpty();
            }
        }
    }

    private static List<String> truncated(List<String> headers, int originalSize) {
        List<String> all = new ArrayList<>(headers);
        all.add("dimstream.truncated=value");
        all.add("dimstream.original.value.size=" + originalSize);
        return all;
    }

    @Test
    void aDlqTopicWithASmallerLimitThanAssumedStopsTheClientLoudlyInsteadOfLooping() {
        // the case the decode step's check cannot see: a DLQ topic made by hand with max.message.bytes 2000.
        // The broker refuses the DLQ copy; with exactly-once that dooms the transaction, so the production
        // handler's smaller copy cannot save it: the thread fails, and the supervisor stops the client
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(CUSTOMERS, 1, (short) 1),
                    new NewTopic("crm.customers.dlq", 1, (short) 1).configs(Map.of("max.message.bytes", "2000"))));
            try (StreamsHarness harness = StreamsHarness.start(kafka, "oversize-dlq-it", List.of(CUSTOMER_PIPELINE), registry,
                    dir.resolve("state"), Map.of())) {
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
                    producer.send(new ProducerRecord<>(CUSTOMERS, utf8("k"), utf8("n".repeat(3_000))));
                    producer.flush();
                }
                await().atMost(Duration.ofMinutes(1)).until(() -> harness.streams.state() == KafkaStreams.State.ERROR);
                assertThat(harness.supervisor.health().status()).isEqualTo(StreamThreadSupervisor.Status.FAILED);
                assertThat(harness.supervisor.health().lastCause()).hasValueSatisfying(c ->
                        assertThat(c).startsWith("org.apache.kafka.common.errors.RecordTooLargeException"));
                assertThat(harness.supervisor.health().failures()).isEqualTo(1);
            }
        }
    }
}
