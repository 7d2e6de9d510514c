package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.config.DimstreamConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code schema-evolution: lenient}: a value its column refuses, which a safe widening takes, widens
 * the column in the task, and every later change holding a value of it names the widening for the
 * sink; a column the record's own schema retypes unsafely is named with the schema's type (for the
 * sink to stop on); a value no widening takes, without a schema, and every such value of a
 * {@code strict} entity, goes to the DLQ as before.
 */
class TopologyWideningTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    @TempDir
    Path stateDir;

    private static final String DLQ = EntityPipeline.dlqTopicOf(TopologyFixtures.APPLICATION_ID, "widened");

    private static EntityPipeline pipeline(String evolution) {
        return EntityPipeline.of(TopologyFixtures.APPLICATION_ID, DimstreamConfig.parse("""
                postgres: {url: "jdbc:postgresql://localhost/x", user: u, password: p}
                entities:
                  - name: widened
                    table: dim_widened
                    topic: pg.public.widened
                    format: debezium-json
                    key: [id]
                    tracked: [name, visits]
                    columns: {id: text, name: varchar(4), visits: integer}
                    schema-evolution: %s
                """.formatted(evolution), "test config", Map.of()).entity("widened"));
    }

    private static String change(String id, String name, String visits) {
        return "{\"before\":null,\"after\":{\"id\":\"" + id + "\",\"name\":" + name + ",\"visits\":" + visits
                + "},\"source\":{\"ts_ms\":1529507597100},\"op\":\"u\",\"ts_ms\":1529507597100}";
    }

    /** Integers cross the changes topic as BigInteger (NativeEventJson). */
    private static java.math.BigInteger n(long v) {
        return java.math.BigInteger.valueOf(v);
    }

    @Test
    void aValueItsColumnRefusesWidensTheColumnAndLaterChangesNameIt() {
        EntityPipeline pipeline = pipeline("lenient");
        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, "pg.public.widened");
            in.pipeInput(utf8("{\"id\":\"a\"}"), utf8(change("a", "\"Al\"", "1")), NOW);
            in.pipeInput(utf8("{\"id\":\"b\"}"), utf8(change("b", "\"Bo\"", "3000000000")), NOW);
            in.pipeInput(utf8("{\"id\":\"c\"}"), utf8(change("c", "\"Carolina\"", "2")), NOW);
            in.pipeInput(utf8("{\"id\":\"a\"}"), utf8(change("a", "\"Al\"", "5")), NOW);
            in.pipeInput(utf8("{\"id\":\"d\"}"), utf8(change("d", "\"Di\"", "\"many\"")), NOW);

            assertThat(changes(output(driver, pipeline.changesTopic())).stream()
                    .map(c -> List.of(c.key(), c.change().data(), c.change().widened())).toList())
                    .isEqualTo(List.of(
                            List.of("[\"a\"]", Map.of("id", "a", "name", "Al", "visits", n(1)), Map.of()),
                            List.of("[\"b\"]", Map.of("id", "b", "name", "Bo", "visits", n(3000000000L)), Map.of("visits", "bigint")),
                            List.of("[\"c\"]", Map.of("id", "c", "name", "Carolina", "visits", n(2)),
                                    Map.of("visits", "bigint", "name", "character varying(8)")),
                            List.of("[\"a\"]", Map.of("id", "a", "name", "Al", "visits", n(5)),
                                    Map.of("visits", "bigint", "name", "character varying(8)"))));
            // no schema in the record: a string in an integer column is a bad value, not a retype
            assertThat(deadLetters(output(driver, DLQ))).isEqualTo(List.of(new DeadLetter("{\"id\":\"d\"}",
                    change("d", "\"Di\"", "\"many\""), dlqHeaders("column 'visits': expected bigint, got string \"many\"", "widened",
                    "pg.public.widened", 4))));
        }
    }

    @Test
    void aStrictEntityDeadLettersWhatItsColumnsRefuse() {
        EntityPipeline pipeline = pipeline("strict");
        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            input(driver, "pg.public.widened").pipeInput(utf8("{\"id\":\"b\"}"), utf8(change("b", "\"Bo\"", "3000000000")), NOW);

            assertThat(changes(output(driver, pipeline.changesTopic()))).isEmpty();
            assertThat(deadLetters(output(driver, DLQ))).isEqualTo(List.of(new DeadLetter("{\"id\":\"b\"}",
                    change("b", "\"Bo\"", "3000000000"), dlqHeaders("column 'visits': value 3000000000 is out of range for integer",
                    "widened", "pg.public.widened", 0))));
        }
    }

    @Test
    void aColumnTheRecordsSchemaRetypesUnsafelyIsNamedWithTheSchemasType() {
        EntityPipeline pipeline = pipeline("lenient");
        String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":["
                + "{\"type\":\"string\",\"field\":\"id\"},{\"type\":\"string\",\"field\":\"name\"},{\"type\":\"string\",\"field\":\"visits\"}]},"
                + "{\"type\":\"struct\",\"field\":\"source\",\"fields\":[{\"type\":\"int64\",\"field\":\"ts_ms\"}]},"
                + "{\"type\":\"string\",\"field\":\"op\"},{\"type\":\"int64\",\"field\":\"ts_ms\"}]}";
        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            input(driver, "pg.public.widened").pipeInput(utf8("{\"id\":\"d\"}"),
                    utf8("{\"schema\":" + schema + ",\"payload\":" + change("d", "\"Di\"", "\"many\"") + "}"), NOW);

            assertThat(changes(output(driver, pipeline.changesTopic())).stream()
                    .map(c -> List.of(c.key(), c.change().data(), c.change().widened())).toList())
                    .isEqualTo(List.of(List.of("[\"d\"]", Map.of("id", "d", "name", "Di", "visits", "many"), Map.of("visits", "text"))));
        }
    }
}
