package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.CUSTOMER;
import static io.dimstream.app.topology.TopologyFixtures.ORDER_LINE;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyClassificationTest {

    static final String CUSTOMERS = "crm.customers";
    static final String ORDER_LINES = "shop.order_lines";

    static final EntityPipeline CUSTOMER_PIPELINE = EntityPipeline.builder()
            .entity(CUSTOMER)
            .sourceTopic(CUSTOMERS)
            .decoder(new NativeJsonDecoder(CUSTOMER.key()))
            .changesTopic("dimstream.customer.changes")
            .dlqTopic("crm.customers.dlq")
            .build();
    static final EntityPipeline ORDER_LINE_PIPELINE = EntityPipeline.builder()
            .entity(ORDER_LINE)
            .sourceTopic(ORDER_LINES)
            .decoder(new NativeJsonDecoder(ORDER_LINE.key()))
            .changesTopic("dimstream.order_line.changes")
            .dlqTopic("shop.order_lines.dlq")
            .build();

    @TempDir
    Path stateDir;

    static String upsert(String time, String id, String email, String city, long lastLogin) {
        return "{\"op\":\"upsert\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\""
                + email + "\",\"city\":\"" + city + "\",\"last_login\":" + lastLogin + "}}";
    }

    static String delete(String time, String id) {
        return "{\"op\":\"delete\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\"}}";
    }

    static Map<String, Object> row(String id, String email, String city, long lastLogin) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("email", email);
        m.put("city", city);
        m.put("last_login", BigInteger.valueOf(lastLogin));
        return m;
    }

    static Change customerChange(ChangeClass cls, String time, Map<String, Object> data, long offset) {
        Op op = data.size() == 1 ? Op.DELETE : Op.UPSERT;
        return new Change("[\"" + data.get("customer_id") + "\"]",
                new ChangeRecord("customer", cls, op, Instant.parse(time), data, CUSTOMERS, 0, offset));
    }

    static void pipe(TestInputTopic<byte[], byte[]> in, String key, String value) {
        in.pipeInput(utf8(key), utf8(value), Instant.parse("2026-01-05T10:00:00Z"));
    }

    /** The per-key sequence of the brief: every class, duplicates dropped, two keys interleaved. */
    static void pipeCustomerSequence(TestInputTopic<byte[], byte[]> in) {
        pipe(in, "C1", upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1));   // 0 NEW
        pipe(in, "C2", upsert("2025-08-22T17:30:00Z", "C2", "b@x", "Rome", 1));   // 1 NEW (C2)
        pipe(in, "C1", upsert("2025-08-22T18:00:00Z", "C1", "a@x", "Bergen", 2)); // 2 CHANGED
        pipe(in, "C1", upsert("2025-08-22T19:00:00Z", "C1", "a@x", "Bergen", 3)); // 3 UNCHANGED: re-assertion, type-1 differs
        pipe(in, "C1", upsert("2025-08-22T19:00:00Z", "C1", "a@x", "Bergen", 3)); // 4 exact duplicate of 3: dropped
        pipe(in, "C2", delete("2025-08-22T18:00:00Z", "C2"));                     // 5 DELETED (C2)
        pipe(in, "C1", delete("2025-08-22T20:00:00Z", "C1"));                     // 6 DELETED
        pipe(in, "C1", delete("2025-08-22T20:30:00Z", "C1"));                     // 7 UNCHANGED: deleted again
        pipe(in, "C1", upsert("2025-08-22T21:00:00Z", "C1", "a@x", "Bergen", 4)); // 8 CHANGED: resurrection
        pipe(in, "C1", upsert("2025-08-22T17:30:00Z", "C1", "a@x", "Tromso", 1)); // 9 LATE
        pipe(in, "C2", upsert("2025-08-22T18:00:00Z", "C2", "b@x", "Rome", 2));   // 10 CHANGED (C2): same time as its delete, later arrival
        pipe(in, "C1", upsert("2025-08-22T17:30:00Z", "C1", "a@x", "Tromso", 1)); // 11 exact duplicate of the late 9: dropped
    }

    static final List<Change> CUSTOMER_SEQUENCE_CHANGES = List.of(
            customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0),
            customerChange(ChangeClass.NEW, "2025-08-22T17:30:00Z", row("C2", "b@x", "Rome", 1), 1),
            customerChange(ChangeClass.CHANGED, "2025-08-22T18:00:00Z", row("C1", "a@x", "Bergen", 2), 2),
            customerChange(ChangeClass.UNCHANGED, "2025-08-22T19:00:00Z", row("C1", "a@x", "Bergen", 3), 3),
            customerChange(ChangeClass.DELETED, "2025-08-22T18:00:00Z", Map.of("customer_id", "C2"), 5),
            customerChange(ChangeClass.DELETED, "2025-08-22T20:00:00Z", Map.of("customer_id", "C1"), 6),
            customerChange(ChangeClass.UNCHANGED, "2025-08-22T20:30:00Z", Map.of("customer_id", "C1"), 7),
            customerChange(ChangeClass.CHANGED, "2025-08-22T21:00:00Z", row("C1", "a@x", "Bergen", 4), 8),
            customerChange(ChangeClass.LATE, "2025-08-22T17:30:00Z", row("C1", "a@x", "Tromso", 1), 9),
            customerChange(ChangeClass.CHANGED, "2025-08-22T18:00:00Z", row("C2", "b@x", "Rome", 2), 10));

    @Test
    void eachEventOfAKeyIsClassifiedAgainstItsNewestStateAndExactDuplicatesAreDropped() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE), registry, stateDir)) {
            pipeCustomerSequence(input(driver, CUSTOMERS));

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(CUSTOMER_SEQUENCE_CHANGES);
            assertThat(TopologyFixtures.deadLetters(output(driver, "crm.customers.dlq"))).isEmpty();
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "changed", 3.0, "unchanged", 2.0,
                "deleted", 2.0, "late", 1.0, "duplicate", 2.0));
    }

    @Test
    void partitionedByKeySkipsTheRepartitionStepAndClassifiesExactlyAlike() {
        EntityPipeline partitioned = EntityPipeline.builder()
                .entity(CUSTOMER)
                .sourceTopic(CUSTOMERS)
                .decoder(new NativeJsonDecoder(CUSTOMER.key()))
                .changesTopic("dimstream.customer.changes")
                .dlqTopic("crm.customers.dlq")
                .partitionedByKey(true)
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver driver = driver(List.of(partitioned), registry, stateDir)) {
            pipeCustomerSequence(input(driver, CUSTOMERS));

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(CUSTOMER_SEQUENCE_CHANGES);
            assertThat(TopologyFixtures.deadLetters(output(driver, "crm.customers.dlq"))).isEmpty();
            assertThat(driver.producedTopicNames()).containsExactlyInAnyOrder("dimstream.customer.changes",
                    "dimstream-test-customer-key-state-changelog");
        }
        assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "changed", 3.0, "unchanged", 2.0,
                "deleted", 2.0, "late", 1.0, "duplicate", 2.0));
    }

    @Test
    void compositeKeysAreKeyedByEveryPartAndATombstoneDeletesTheKeyInTheRecordKey() {
        try (TopologyTestDriver driver = driver(List.of(ORDER_LINE_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, ORDER_LINES);
            pipe(in, "O1", "{\"op\":\"upsert\",\"event_time\":\"2025-09-01T08:00:00Z\",\"data\":{\"order_id\":\"O1\",\"line_no\":2,\"sku\":\"A\",\"qty\":1}}");
            pipe(in, "O1", "{\"op\":\"upsert\",\"event_time\":\"2025-09-01T08:00:00Z\",\"data\":{\"order_id\":\"O1\",\"line_no\":3,\"sku\":\"B\",\"qty\":1}}");
            pipe(in, "O1", "{\"op\":\"upsert\",\"event_time\":\"2025-09-01T09:00:00Z\",\"data\":{\"order_id\":\"O1\",\"line_no\":\"2\",\"sku\":\"A\",\"qty\":2}}");
            in.pipeInput(utf8("{\"order_id\":\"O1\",\"line_no\":3}"), null, Instant.parse("2025-09-01T10:00:00Z"));

            assertThat(changes(output(driver, "dimstream.order_line.changes"))).isEqualTo(List.of(
                    orderLine("[\"O1\",\"2\"]", ChangeClass.NEW, Op.UPSERT, "2025-09-01T08:00:00Z", line("O1", 2, "A", 1), 0),
                    orderLine("[\"O1\",\"3\"]", ChangeClass.NEW, Op.UPSERT, "2025-09-01T08:00:00Z", line("O1", 3, "B", 1), 1),
                    orderLine("[\"O1\",\"2\"]", ChangeClass.CHANGED, Op.UPSERT, "2025-09-01T09:00:00Z", line("O1", 2, "A", 2), 2),
                    orderLine("[\"O1\",\"3\"]", ChangeClass.DELETED, Op.DELETE, "2025-09-01T10:00:00Z",
                            Map.of("order_id", "O1", "line_no", BigInteger.valueOf(3)), 3)));
        }
    }

    @Test
    void severalEntitiesRunSideBySideEachToItsOwnChangesTopic() {
        try (TopologyTestDriver driver = driver(List.of(CUSTOMER_PIPELINE, ORDER_LINE_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            pipe(input(driver, CUSTOMERS), "C1", upsert("2025-08-22T17:00:00Z", "C1", "a@x", "Oslo", 1));
            pipe(input(driver, ORDER_LINES), "O1", "{\"op\":\"upsert\",\"event_time\":\"2025-09-01T08:00:00Z\","
                    + "\"data\":{\"order_id\":\"O1\",\"line_no\":2,\"sku\":\"A\",\"qty\":1}}");

            assertThat(changes(output(driver, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.NEW, "2025-08-22T17:00:00Z", row("C1", "a@x", "Oslo", 1), 0)));
            assertThat(changes(output(driver, "dimstream.order_line.changes"))).isEqualTo(List.of(
                    orderLine("[\"O1\",\"2\"]", ChangeClass.NEW, Op.UPSERT, "2025-09-01T08:00:00Z", line("O1", 2, "A", 1), 0)));
        }
    }

    private static Map<String, Object> line(String order, long lineNo, String sku, long qty) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("order_id", order);
        m.put("line_no", BigInteger.valueOf(lineNo));
        m.put("sku", sku);
        m.put("qty", BigInteger.valueOf(qty));
        return m;
    }

    private static Change orderLine(String key, ChangeClass cls, Op op, String time, Map<String, Object> data, long offset) {
        return new Change(key, new ChangeRecord("order_line", cls, op, Instant.parse(time), data, ORDER_LINES, 0, offset));
    }
}
