package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** Entities, drivers and readable views of the output topics for the topology tests. */
final class TopologyFixtures {

    private TopologyFixtures() {
    }

    /** customer: key customer_id; tracked email, city; type-1 last_login. */
    static final EntitySpec CUSTOMER = entity("customer", "dim_customer", List.of("customer_id"), List.of("email", "city"),
            List.of("last_login"), Map.of("customer_id", ColumnType.TEXT, "email", ColumnType.TEXT, "city", ColumnType.TEXT,
                    "last_login", ColumnType.BIGINT));

    /** order_line: composite key (order_id, line_no); tracked sku, qty. */
    static final EntitySpec ORDER_LINE = entity("order_line", "dim_order_line", List.of("order_id", "line_no"),
            List.of("sku", "qty"), List.of(), Map.of("order_id", ColumnType.TEXT, "line_no", ColumnType.INTEGER,
                    "sku", ColumnType.TEXT, "qty", ColumnType.INTEGER));

    static EntitySpec entity(String name, String table, List<String> key, List<String> tracked, List<String> type1,
                             Map<String, ColumnType> types) {
        Map<String, ColumnType> columns = new LinkedHashMap<>();
        key.forEach(c -> columns.put(c, types.get(c)));
        tracked.forEach(c -> columns.put(c, types.get(c)));
        type1.forEach(c -> columns.put(c, types.get(c)));
        return EntitySpec.builder()
                .name(name)
                .table(table)
                .key(key)
                .tracked(tracked)
                .type1(type1)
                .columns(columns)
                .latenessHorizon(Optional.of(Duration.ofDays(30)))
                .build();
    }

    static TopologyTestDriver driver(List<EntityPipeline> pipelines, MeterRegistry registry, Path stateDir) {
        return driver(pipelines, registry, stateDir, Map.of());
    }

    /** @param overrides Streams settings, e.g. a smaller {@code producer.max.request.size} for the size checks */
    static TopologyTestDriver driver(List<EntityPipeline> pipelines, MeterRegistry registry, Path stateDir, Map<String, ?> overrides) {
        return new TopologyTestDriver(DimstreamTopology.build(pipelines, registry),
                StreamsConfigFactory.create(APPLICATION_ID, "unused:9092", stateDir, pipelines, registry, overrides));
    }

    static final String APPLICATION_ID = "dimstream-test";

    static TestInputTopic<byte[], byte[]> input(TopologyTestDriver driver, String topic) {
        return driver.createInputTopic(topic, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static TestOutputTopic<byte[], byte[]> output(TopologyTestDriver driver, String topic) {
        return driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** A record of a changes topic: the key as text and the decoded change. */
    record Change(String key, ChangeRecord change) {
    }

    static List<Change> changes(TestOutputTopic<byte[], byte[]> topic) {
        List<Change> out = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : topic.readRecordsToList()) {
            if (r.headers().toArray().length != 0) {
                throw new AssertionError("a change record carries headers: " + r.headers());
            }
            out.add(new Change(text(r.key()), ChangeCodec.decode(r.value())));
        }
        return out;
    }

    /** A record of a DLQ topic: key and value as text, headers as {@code name=value} in order. */
    record DeadLetter(String key, String value, List<String> headers) {
    }

    static List<DeadLetter> deadLetters(TestOutputTopic<byte[], byte[]> topic) {
        return deadLetters(topic.readRecordsToList());
    }

    static List<DeadLetter> deadLetters(List<TestRecord<byte[], byte[]>> records) {
        List<DeadLetter> out = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : records) {
            List<String> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                headers.add(h.key() + "=" + text(h.value()));
            }
            out.add(new DeadLetter(text(r.key()), text(r.value()), headers));
        }
        return out;
    }

    /** The dimstream headers of a dead letter, after any headers the record had. */
    static List<String> dlqHeaders(String reason, String entity, String topic, long offset) {
        return List.of("dimstream.error=" + reason, "dimstream.entity=" + entity, "dimstream.source.topic=" + topic,
                "dimstream.source.partition=0", "dimstream.source.offset=" + offset);
    }

    /** {@code dimstream.events} of one entity: class to count. */
    static Map<String, Double> counts(MeterRegistry registry, String entity) {
        Map<String, Double> m = new TreeMap<>();
        for (Counter c : registry.find("dimstream.events").tag("entity", entity).counters()) {
            m.put(c.getId().getTag("class"), c.count());
        }
        return m;
    }
}
