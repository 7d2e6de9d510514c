package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMERS;
import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.customerChange;
import static io.dimstream.app.topology.TopologyClassificationTest.row;
import static io.dimstream.app.topology.TopologyClassificationTest.upsert;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.DebeziumAvroDecoder;
import io.dimstream.app.decode.DebeziumJsonDecoder;
import io.dimstream.app.decode.GenericBinaryDeserializer;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad input goes to the DLQ with its original bytes and reason, and the good records around it pass. */
class TopologyDeadLetterTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    @TempDir
    Path stateDir;

    @Test
    void badNativeRecordsGoToTheDlqWithTheirOriginalBytesAndHeadersWhileGoodOnesPass() {
        String badJson = "{oops";
        String nullKey = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"customer_id\":null,\"email\":\"x\"}}";
        String missingKey = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"email\":\"x\"}}";
        String badTime = "{\"op\":\"upsert\",\"event_time\":\"2025-13-01T00:00:00Z\",\"data\":{\"customer_id\":\"C9\"}}";
        String wrongType = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"customer_id\":\"C9\",\"last_login\":\"yesterday\"}}";
        String unknownOp = "{\"op\":\"merge\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"customer_id\":\"C9\"}}";
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, CUSTOMERS);
            in.pipeInput(utf8("C1"), utf8(upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1)), NOW);
            in.pipeInput(new TestRecord<>(utf8("k1"), utf8(badJson),
                    new RecordHeaders(List.of(new RecordHeader("trace", utf8("t-1")))), NOW));
            for (String bad : List.of(nullKey, missingKey, badTime, wrongType, unknownOp)) {
                in.pipeInput(utf8("k9"), utf8(bad), NOW);
            }
            in.pipeInput(utf8("C2"), utf8(upsert("2025-08-22T17:30:00Z", "C2", "b@x", "Rome", 1)), NOW);

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
                    customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C2", "b@x", "Rome", 1), 7)));
            assertThat(deadLetters(output(driver, "crm.customers.dlq"))).isEqualTo(List.of(
                    new DeadLetter("k1", badJson, withFirst("trace=t-1", dlqHeaders(
                            "not valid JSON: Unexpected character ('o' (code 111)): was expecting double-quote to start field name",
                            "customer", CUSTOMERS, 1))),
                    new DeadLetter("k9", nullKey, dlqHeaders("key column 'customer_id' is NULL", "customer", CUSTOMERS, 2)),
                    new DeadLetter("k9", missingKey, dlqHeaders("key column 'customer_id' is missing", "customer", CUSTOMERS, 3)),
                    new DeadLetter("k9", badTime, dlqHeaders("event_time is not an ISO-8601 instant with offset: \"2025-13-01T00:00:00Z\"",
                            "customer", CUSTOMERS, 4)),
                    new DeadLetter("k9", wrongType, dlqHeaders("column 'last_login': expected bigint, got string \"yesterday\"",
                            "customer", CUSTOMERS, 5)),
                    new DeadLetter("k9", unknownOp, dlqHeaders("field 'op' has unknown value \"merge\" (expected \"upsert\" or \"delete\")",
                            "customer", CUSTOMERS, 6))));
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "dlq", 6.0));
    }

    private static List<String> withFirst(String header, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(header);
        all.addAll(rest);
        return all;
    }

    static final EntitySpec ACCOUNT = TopologyFixtures.entity("account", "dim_account", List.of("account_id"), List.of("status"),
            List.of(), Map.of("account_id", ColumnType.TEXT, "status", ColumnType.TEXT));

    @Test
    void debeziumTombstoneTruncateAndMessageAreSkippedNotDeadLetteredAndAnUnknownOpIs() {
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(ACCOUNT)
                .sourceTopic("pg.accounts")
                .decoder(new DebeziumJsonDecoder())
                .changesTopic("dimstream.account.changes")
                .dlqTopic("pg.accounts.dlq")
                .build();
        String create = "{\"before\":null,\"after\":{\"account_id\":\"A1\",\"status\":\"open\"},\"source\":{\"ts_ms\":1755882000000},"
                + "\"op\":\"c\",\"ts_ms\":1755882000900}";
        String delete = "{\"before\":{\"account_id\":\"A1\",\"status\":\"open\"},\"after\":null,\"source\":{\"ts_ms\":1755885600000},"
                + "\"op\":\"d\",\"ts_ms\":1755885600900}";
        String truncate = "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":1755889200000},\"op\":\"t\",\"ts_ms\":1755889200900}";
        String message = "{\"source\":{\"ts_ms\":1755889200000},\"op\":\"m\",\"message\":{\"prefix\":\"p\",\"content\":\"eA==\"}}";
        String unknown = "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":1755889200000},\"op\":\"x\",\"ts_ms\":1755889200900}";
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, "pg.accounts");
            in.pipeInput(utf8("{\"account_id\":\"A1\"}"), utf8(create), NOW);
            in.pipeInput(utf8("{\"account_id\":\"A1\"}"), utf8(delete), NOW);
            in.pipeInput(utf8("{\"account_id\":\"A1\"}"), null, NOW);
            in.pipeInput(null, utf8(truncate), NOW);
            in.pipeInput(utf8("{\"prefix\":\"p\"}"), utf8(message), NOW);
            in.pipeInput(utf8("{\"account_id\":\"A1\"}"), utf8(unknown), NOW);

            assertThat(changes(output(driver, "dimstream.account.changes"))).isEqualTo(List.of(
                    account(ChangeClass.NEW, Op.UPSERT, "2025-08-22T17:00:00Z", Map.of("account_id", "A1", "status", "open"), "pg.accounts", 0),
                    account(ChangeClass.DELETED, Op.DELETE, "2025-08-22T18:00:00Z", Map.of("account_id", "A1"), "pg.accounts", 1)));
            assertThat(deadLetters(output(driver, "pg.accounts.dlq"))).isEqualTo(List.of(
                    new DeadLetter("{\"account_id\":\"A1\"}", unknown,
                            dlqHeaders("Debezium op \"x\" unknown (expected c, u, r, d, t or m)", "account", "pg.accounts", 5))));
        }
        assertThat(counts(registry, "account")).isEqualTo(Map.of("new", 1.0, "deleted", 1.0, "skipped", 1.0, "truncate", 1.0,
                "message", 1.0, "dlq", 1.0));
    }

    @Test
    void badAvroBytesGoToTheDlqAndTheGoodAvroRecordsAroundThemPass() {
        Schema row = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Account\",\"namespace\":\"pg\",\"fields\":["
                + "{\"name\":\"account_id\",\"type\":\"string\"},{\"name\":\"status\",\"type\":[\"null\",\"string\"]}]}");
        Schema envelope = new Schema.Parser().addTypes(Map.of("pg.Account", row)).parse("{\"type\":\"record\",\"name\":\"Envelope\","
                + "\"namespace\":\"pg\",\"fields\":[{\"name\":\"before\",\"type\":[\"null\",\"pg.Account\"]},"
                + "{\"name\":\"after\",\"type\":[\"null\",\"pg.Account\"]},"
                + "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\",\"fields\":[{\"name\":\"ts_ms\",\"type\":\"long\"}]}},"
                + "{\"name\":\"op\",\"type\":\"string\"},{\"name\":\"ts_ms\",\"type\":\"long\"}]}");
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(ACCOUNT)
                .sourceTopic("pg.accounts.avro")
                .decoder(new DebeziumAvroDecoder(new GenericBinaryDeserializer(envelope)))
                .changesTopic("dimstream.account.changes")
                .dlqTopic("pg.accounts.avro.dlq")
                .build();
        byte[] garbage = {(byte) 0x7f, 0x00, 0x01};

        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, "pg.accounts.avro");
            in.pipeInput(utf8("A1"), avroChange(envelope, row, "A1", "open", 1755882000000L), NOW);
            in.pipeInput(utf8("A1"), garbage, NOW);
            in.pipeInput(utf8("A2"), avroChange(envelope, row, "A2", "closed", 1755885600000L), NOW);

            assertThat(changes(output(driver, "dimstream.account.changes"))).isEqualTo(List.of(
                    account(ChangeClass.NEW, Op.UPSERT, "2025-08-22T17:00:00Z", Map.of("account_id", "A1", "status", "open"), "pg.accounts.avro", 0),
                    account(ChangeClass.NEW, Op.UPSERT, "2025-08-22T18:00:00Z", Map.of("account_id", "A2", "status", "closed"), "pg.accounts.avro", 2)));
            List<TestRecord<byte[], byte[]>> dlq = output(driver, "pg.accounts.avro.dlq").readRecordsToList();
            assertThat(dlq).hasSize(1);
            assertThat(dlq.get(0).value()).isEqualTo(garbage);
            assertThat(deadLetters(List.of(dlq.get(0)))).isEqualTo(List.of(new DeadLetter("A1", TopologyFixtures.text(garbage),
                    dlqHeaders("not valid Avro: cannot read Avro binary of pg.Envelope from pg.accounts.avro", "account", "pg.accounts.avro", 1))));
        }
    }

    /** A create committed at {@code commitMs} (source.ts_ms), processed 900 ms later (ts_ms). */
    private static byte[] avroChange(Schema envelope, Schema row, String id, String status, long commitMs) {
        GenericRecord after = new GenericData.Record(row);
        after.put("account_id", id);
        after.put("status", status);
        GenericRecord e = new GenericData.Record(envelope);
        e.put("after", after);
        GenericRecord source = new GenericData.Record(envelope.getField("source").schema());
        source.put("ts_ms", commitMs);
        e.put("source", source);
        e.put("op", "c");
        e.put("ts_ms", commitMs + 900);
        return GenericBinaryDeserializer.write(e);
    }

    private static Change account(ChangeClass cls, Op op, String time, Map<String, Object> data, String topic, long offset) {
        return new Change("[\"" + data.get("account_id") + "\"]",
                new ChangeRecord("account", cls, op, Instant.parse(time), new LinkedHashMap<>(data), topic, 0, offset));
    }
}
