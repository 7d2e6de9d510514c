package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.AvroEventDecoder;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.dimstream.schemas.DemoSchemas;
import io.dimstream.schemas.registry.HttpSchemaRegistryClient;
import io.dimstream.schemas.serde.AvroWireDeserializer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
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

    /** A Confluent-compatible registry answering {@code GET /schemas/ids/{id}}: id 1, 404 for others, or 503 while down. */
    static final class FakeRegistry implements AutoCloseable {
        final AtomicBoolean down = new AtomicBoolean();
        final AtomicInteger refused = new AtomicInteger();
        private final HttpServer server;

        FakeRegistry(Schema schema) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            String body = "{\"schema\":" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(schema.toString()) + "}";
            server.createContext("/schemas/ids/", exchange -> {
                String id = exchange.getRequestURI().getPath().substring("/schemas/ids/".length());
                int status;
                String answer;
                if (down.get()) {
                    refused.incrementAndGet();
                    status = 503;
                    answer = "{\"error_code\":50302,\"message\":\"Schema registry is restarting\"}";
                } else if (id.equals(Integer.toString(SCHEMA_ID))) {
                    status = 200;
                    answer = body;
                } else {
                    status = 404;
                    answer = "{\"error_code\":40403,\"message\":\"Schema " + id + " not found\"}";
                }
                byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
                exchange.sendResponseHeaders(status, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    void avroRecordsProducedWhileTheRegistryIsDownAllLandOnceItIsBackAndOnlyAnUnknownSchemaIdIsDeadLettered() throws Exception {
        Schema change = DemoSchemas.customerChange();
        EntitySpec customer = TopologyFixtures.entity("customer", "dim_customer", List.of("customer_id"),
                List.of("email", "full_name", "country", "city", "loyalty_tier"), List.of("last_login"),
                Map.of("customer_id", ColumnType.TEXT, "email", ColumnType.TEXT, "full_name", ColumnType.TEXT,
                        "country", ColumnType.TEXT, "city", ColumnType.TEXT, "loyalty_tier", ColumnType.TEXT,
                        "last_login", ColumnType.BIGINT));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (FakeRegistry fake = new FakeRegistry(change); EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
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
            fake.down.set(true);
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
                        producer.send(new ProducerRecord<>(TOPIC, utf8(id), wire(SCHEMA_ID, event(change, id, id + "@x", t))));
                        expected.add(new Change("[\"" + id + "\"]", new ChangeRecord("customer", ChangeClass.NEW, Op.UPSERT, t,
                                data(id, id + "@x"), TOPIC, 0, i)));
                    }
                    unknown = wire(UNKNOWN_ID, event(change, "X1", "x@x", Instant.parse("2025-08-22T18:00:00Z")));
                    producer.send(new ProducerRecord<>(TOPIC, utf8("X1"), unknown));
                }

                // the outage outlasts a record's retries: threads die of it and are replaced, more than once (Kafka
                // Streams rethrows the cause on the replaced thread to end it: not the test's failure, hence
                // dontCatchUncaughtExceptions)
                await().dontCatchUncaughtExceptions().atMost(Duration.ofMinutes(2)).until(() -> failures(registry) >= 2);
                assertThat(StreamsHarness.readAll(kafka.bootstrapServers(), "dimstream.customer.changes")).isEmpty();
                assertThat(StreamsHarness.readAll(kafka.bootstrapServers(), "crm.customers.avro.dlq")).isEmpty();
                assertThat(harness.supervisor.health().status()).isEqualTo(StreamThreadSupervisor.Status.RECOVERING);
                fake.down.set(false);

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
                assertThat(fake.refused.get()).isGreaterThanOrEqualTo(4);
            }
        }
    }

    private static double failures(SimpleMeterRegistry registry) {
        return registry.find(StreamThreadSupervisor.FAILURES).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static GenericRecord event(Schema change, String id, String email, Instant time) {
        Schema customer = change.getField("data").schema();
        return new GenericRecordBuilder(change)
                .set("op", new GenericData.EnumSymbol(change.getField("op").schema(), "upsert"))
                .set("event_time", time.getEpochSecond() * 1_000_000L + time.getNano() / 1_000)
                .set("data", new GenericRecordBuilder(customer).set("customer_id", id).set("email", email).build())
                .build();
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

    /** The Confluent wire format: magic byte, schema id, Avro binary. */
    private static byte[] wire(int id, GenericRecord record) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
