package io.dimstream.app.topology;

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
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: the source adds a column (segment) to a table whose entity lists its tracked columns.
 * By default (debezium-json: lenient, so {@code new-columns: type1}) the field goes on to the
 * changes topic as a new type-1 column: no DLQ record, and a change of it alone is no change of the
 * tracked columns (unchanged). With {@code new-columns: ignore} (or a strict native JSON entity) it
 * is dropped and counted in {@code dimstream.fields.ignored}, the records land without it; a field
 * whose name no column may take is dropped likewise. Only {@code undeclared-columns: reject} sends
 * the records to the DLQ. Before the change every record with the field went to the DLQ.
 */
class TopologyNewFieldsTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
    private static final String TOPIC = "pg.public.customers";
    private static final String DLQ = EntityPipeline.dlqTopicOf(TopologyFixtures.APPLICATION_ID, "customer");
    private static final Instant T1 = Instant.ofEpochMilli(1_700_000_000_000L);
    private static final Instant T2 = T1.plusSeconds(60);
    private static final Instant T3 = T1.plusSeconds(120);
    private static final Instant T4 = T1.plusSeconds(180);

    @TempDir
    Path stateDir;

    private static EntityPipeline pipeline(String format, String more) {
        return EntityPipeline.of(TopologyFixtures.APPLICATION_ID, DimstreamConfig.parse("""
                postgres: {url: "jdbc:postgresql://localhost/x", user: u, password: p}
                entities:
                  - name: customer
                    table: dim_customer
                    topic: %s
                    format: %s
                    key: [customer_id]
                    tracked: [email, city]
                    columns: {customer_id: text, email: text, city: text}
                %s""".formatted(TOPIC, format, more.isEmpty() ? "" : "    " + more + "\n"), "test config", Map.of()).entity("customer"));
    }

    private static String debezium(Instant t, String after) {
        return "{\"before\":null,\"after\":" + after + ",\"source\":{\"ts_ms\":" + t.toEpochMilli() + "},\"op\":\"u\",\"ts_ms\":"
                + t.toEpochMilli() + "}";
    }

    /** K1 before the ALTER, K1 with segment set (only it changed), K2 with segment NULL, K1 with a new email. */
    private static void feed(TopologyTestDriver driver, String format) {
        TestInputTopic<byte[], byte[]> in = input(driver, TOPIC);
        List<String[]> rows = List.of(
                new String[] {"K1", T1.toString(), "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\"}"},
                new String[] {"K1", T2.toString(), "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"segment\":\"gold\"}"},
                new String[] {"K2", T3.toString(), "{\"customer_id\":\"K2\",\"email\":\"b@x\",\"city\":\"Rome\",\"segment\":null}"},
                new String[] {"K1", T4.toString(), "{\"customer_id\":\"K1\",\"email\":\"a2@x\",\"city\":\"Oslo\",\"segment\":\"gold\"}"});
        for (String[] r : rows) {
            Instant t = Instant.parse(r[1]);
            String value = format.equals("json") ? "{\"op\":\"upsert\",\"event_time\":\"" + t + "\",\"data\":" + r[2] + "}"
                    : debezium(t, r[2]);
            in.pipeInput(utf8("{\"customer_id\":\"" + r[0] + "\"}"), utf8(value), NOW);
        }
    }

    private static ChangeRecord change(ChangeClass c, Instant t, long offset, Map<String, String> newColumns, String... data) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < data.length; i += 2) {
            m.put(data[i], data[i + 1]);
        }
        return new ChangeRecord("customer", c, Op.UPSERT, t, m, TOPIC, 0, offset, newColumns);
    }

    /** {@code dimstream.fields.ignored} of the entity: field to count. */
    private static Map<String, Double> ignored(MeterRegistry registry) {
        Map<String, Double> m = new TreeMap<>();
        for (Counter c : registry.find(IgnoredFields.NAME).tag("entity", "customer").counters()) {
            m.put(c.getId().getTag("field"), c.count());
        }
        return m;
    }

    @Test
    void aFieldAddedAtTheSourceBecomesAType1ColumnUnderAListOfTrackedColumns() {
        EntityPipeline pipeline = pipeline("debezium-json", "");
        MeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            feed(driver, "debezium-json");

            Map<String, String> segment = Map.of("segment", "text");
            assertThat(changes(output(driver, pipeline.changesTopic()))).isEqualTo(List.of(
                    new Change("[\"K1\"]", change(ChangeClass.NEW, T1, 0, Map.of(), "customer_id", "K1", "email", "a@x", "city", "Oslo")),
                    // only the type-1 column changed: no new version
                    new Change("[\"K1\"]", change(ChangeClass.UNCHANGED, T2, 1, segment, "customer_id", "K1", "email", "a@x", "city",
                            "Oslo", "segment", "gold")),
                    // a NULL without a schema to type it: the column is the task's already, so the value goes with it
                    new Change("[\"K2\"]", change(ChangeClass.NEW, T3, 2, segment, "customer_id", "K2", "email", "b@x", "city", "Rome",
                            "segment", null)),
                    new Change("[\"K1\"]", change(ChangeClass.CHANGED, T4, 3, segment, "customer_id", "K1", "email", "a2@x", "city",
                            "Oslo", "segment", "gold"))));
            assertThat(deadLetters(output(driver, DLQ))).isEmpty();
            assertThat(counts(registry, "customer")).isEqualTo(Map.of("new", 2.0, "unchanged", 1.0, "changed", 1.0));
            assertThat(ignored(registry)).isEmpty();
        }
    }

    @Test
    void newColumnsIgnoreDropsTheFieldCountsItAndTheRecordsLand() {
        for (String[] setting : new String[][] {{"debezium-json", "new-columns: ignore"}, {"json", ""}}) {
            EntityPipeline pipeline = pipeline(setting[0], setting[1]);
            MeterRegistry registry = new SimpleMeterRegistry();
            try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir.resolve(setting[0]))) {
                feed(driver, setting[0]);

                assertThat(changes(output(driver, pipeline.changesTopic()))).as(setting[0]).isEqualTo(List.of(
                        new Change("[\"K1\"]", change(ChangeClass.NEW, T1, 0, Map.of(), "customer_id", "K1", "email", "a@x", "city", "Oslo")),
                        new Change("[\"K1\"]", change(ChangeClass.UNCHANGED, T2, 1, Map.of(), "customer_id", "K1", "email", "a@x", "city",
                                "Oslo")),
                        new Change("[\"K2\"]", change(ChangeClass.NEW, T3, 2, Map.of(), "customer_id", "K2", "email", "b@x", "city",
                                "Rome")),
                        new Change("[\"K1\"]", change(ChangeClass.CHANGED, T4, 3, Map.of(), "customer_id", "K1", "email", "a2@x", "city",
                                "Oslo"))));
                assertThat(deadLetters(output(driver, DLQ))).as(setting[0]).isEmpty();
                assertThat(ignored(registry)).as(setting[0]).isEqualTo(Map.of("segment", 3.0));
                assertThat(counts(registry, "customer")).as(setting[0]).isEqualTo(Map.of("new", 2.0, "unchanged", 1.0, "changed", 1.0));
            }
        }
    }

    @Test
    void aFieldWhoseNameNoColumnMayTakeIsDroppedAndCounted() {
        EntityPipeline pipeline = pipeline("debezium-json", "");
        MeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            input(driver, TOPIC).pipeInput(utf8("{\"customer_id\":\"K1\"}"),
                    utf8(debezium(T1, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"valid_from\":\"x\"}")), NOW);

            assertThat(changes(output(driver, pipeline.changesTopic()))).isEqualTo(List.of(
                    new Change("[\"K1\"]", change(ChangeClass.NEW, T1, 0, Map.of(), "customer_id", "K1", "email", "a@x", "city", "Oslo"))));
            assertThat(deadLetters(output(driver, DLQ))).isEmpty();
            assertThat(ignored(registry)).isEqualTo(Map.of("valid_from", 1.0));
        }
    }

    @Test
    void undeclaredColumnsRejectSendsTheRecordsToTheDlqNamingTheField() {
        EntityPipeline pipeline = pipeline("debezium-json", "undeclared-columns: reject");
        MeterRegistry registry = new SimpleMeterRegistry();
        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            feed(driver, "debezium-json");

            assertThat(changes(output(driver, pipeline.changesTopic()))).isEqualTo(List.of(
                    new Change("[\"K1\"]", change(ChangeClass.NEW, T1, 0, Map.of(), "customer_id", "K1", "email", "a@x", "city", "Oslo"))));
            String reason = "column 'segment' is not declared for entity 'customer'";
            assertThat(deadLetters(output(driver, DLQ))).isEqualTo(List.of(
                    new DeadLetter("{\"customer_id\":\"K1\"}", debezium(T2,
                            "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"segment\":\"gold\"}"),
                            dlqHeaders(reason, "customer", TOPIC, 1)),
                    new DeadLetter("{\"customer_id\":\"K2\"}", debezium(T3,
                            "{\"customer_id\":\"K2\",\"email\":\"b@x\",\"city\":\"Rome\",\"segment\":null}"),
                            dlqHeaders(reason, "customer", TOPIC, 2)),
                    new DeadLetter("{\"customer_id\":\"K1\"}", debezium(T4,
                            "{\"customer_id\":\"K1\",\"email\":\"a2@x\",\"city\":\"Oslo\",\"segment\":\"gold\"}"),
                            dlqHeaders(reason, "customer", TOPIC, 3))));
            assertThat(ignored(registry)).isEmpty();
        }
    }
}
