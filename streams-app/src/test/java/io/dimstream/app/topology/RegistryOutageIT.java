package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.AvroEventDecoder;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.AvroWire;
import io.dimstream.app.testing.OutageRegistry;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.dimstream.schemas.DemoSchemas;
import io.dimstream.schemas.registry.HttpSchemaRegistryClient;
import io.dimstream.schemas.serde.AvroWireDeserializer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * H2 on a real broker and real stream threads: a schema registry that answers 503 for a while. The
 * Avro records produced meanwhile are not dead-lettered: the deserializer retries, then the thread
 * fails and the supervisor replaces it with backoff, counting the failures, until the registry is back
 * and every record lands in the changes topic. Only a record naming a schema id the registry answers
 * 404 for goes to the DLQ.
 */
class RegistryOutageIT {

    private static final String TOPIC = "crm.customers.avro";
    private static final int SCHEMA_ID = 1;
    private static final int UNKNOWN_ID = 99;

    @TempDir
    Path dir;

    @Test
    void avroRecordsProducedWhileTheRegistryIsDownAllLandOnceItIsBackAndOnlyAnUnknownSchemaIdIsDeadLettered() throws Exception {
        Schema change = DemoSchemas.customerChange();
        EntitySpec customer = TopologyFixtures.entity("customer", "dim_customer", List.of("customer_id"),
                List.of("email", "full_name", "country", "city", "loyalty_tier"), List.of("last_login"),
                Map.of("customer_id", ColumnType.TEXT, "email", ColumnType.TEXT, "full_name", ColumnType.TEXT,
                        "country", ColumnType.TEXT, "city", ColumnType.TEXT, "loyalty_tier", ColumnType.TEXT,
                        "last_login", ColumnType.BIGINT));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (OutageRegistry fake = new OutageRegistry(Map.of(SCHEMA_ID, change)); EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)));
            // 1 s of retries per record instead of 20, so the outage below outlasts them and threads die
            AvroWireDeserializer deserializer = new AvroWireDeserializer(new HttpSchemaRegistryClient(fake.url(), null), null,
                    Duration.ofSeconds(1));
            EntityPipeline pipeline = EntityPipeline.builder()
                    .entity(customer)
                    .sourceTopic(TOPIC)
                    .decoder(new AvroEventDecoder(deserializer, customer.key()))
                    .changesTopic("dimstream.customer.changes")
                    .dlqTopic(TOPIC + ".dlq")
                    .build();
            fake.fail(503);
            // a replaced thread's old group member does not leave the group (Kafka Streams' consumers never
            // send LeaveGroup), so each replacement waits for it to time out: 6 s here instead of 45
            Map<String, Object> quickRejoin = Map.of("main.consumer.session.timeout.ms", 6_000,
                    "main.consumer.heartbeat.interval.ms", 1_000);
            try (StreamsHarness harness = StreamsHarness.start(kafka, "registry-outage-it", List.of(pipeline), registry,
                    dir.resolve("state"), quickRejoin)) {
                List<Change> expected = new ArrayList<>();
                byte[] unknown;
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
                    for (int i = 0; i < 20; i++) {
                        String id = "C" + i;
                        Instant t = Instant.parse("2025-08-22T17:00:00Z").plusSeconds(60L * i);
                        producer.send(new ProducerRecord<>(TOPIC, utf8(id), AvroWire.wire(SCHEMA_ID, AvroWire.customerUpsert(change, id, id + "@x", t))));
                        expected.add(new Change("[\"" + id + "\"]", new ChangeRecord("customer", ChangeClass.NEW, Op.UPSERT, t,
                                data(id, id + "@x"), TOPIC, 0, i)));
                    }
                    unknown = AvroWire.wire(UNKNOWN_ID, AvroWire.customerUpsert(change, "X1", "x@x", Instant.parse("2025-08-22T18:00:00Z")));
                    producer.send(new ProducerRecord<>(TOPIC, utf8("X1"), unknown));
                }

                // the outage outlasts a record's retries: threads die of it and are replaced, more than once (Kafka
                // Streams rethrows the cause on the replaced thread to end it: not the test's failure, hence
                // dontCatchUncaughtExceptions)
                await().dontCatchUncaughtExceptions().atMost(Duration.ofMinutes(2)).until(() -> failures(registry) >= 2);
                assertThat(StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes")).isEmpty();
                assertThat(StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.avro.dlq")).isEmpty();
                assertThat(harness.supervisor.health().status()).isEqualTo(StreamThreadSupervisor.Status.RECOVERING);
                fake.recover();

                await().dontCatchUncaughtExceptions().atMost(Duration.ofMinutes(2)).until(() ->
                        StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes").size() == 20
                                && StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.avro.dlq").size() == 1);
                assertThat(StreamsHarness.changes(StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes")))
                        .isEqualTo(expected);
                assertThat(StreamsHarness.deadLetters(StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.avro.dlq")))
                        .isEqualTo(List.of(new DeadLetter("X1", new String(unknown, StandardCharsets.UTF_8),
                                dlqHeaders("not valid Avro: unknown schema id 99", "customer", TOPIC, 20))));
                assertThat(harness.streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
                assertThat(harness.supervisor.fatal()).isEmpty();
                assertThat(registry.find(StreamThreadSupervisor.FAILURES).counters()).singleElement()
                        .satisfies(c -> assertThat(c.getId().getTag("cause"))
                                .isEqualTo("io.dimstream.schemas.registry.SchemaRegistryUnavailableException"));
                assertThat(fake.refused()).isGreaterThanOrEqualTo(4);
            }
        }
    }

    private static double failures(SimpleMeterRegistry registry) {
        return registry.find(StreamThreadSupervisor.FAILURES).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static Map<String, Object> data(String id, String email) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("email", email);
        m.put("full_name", null);
        m.put("country", null);
        m.put("city", null);
        m.put("loyalty_tier", null);
        m.put("last_login", null);
        return m;
    }
}
