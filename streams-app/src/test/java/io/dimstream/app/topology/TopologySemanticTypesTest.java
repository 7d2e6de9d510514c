package io.dimstream.app.topology;

import static io.dimstream.app.decode.DebeziumDocumentationEventsTest.resource;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.decode.SemanticTypesTest;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debezium's semantic types through the topology, as the pipeline builds it for an entity of the
 * config: a record carrying every one reaches the changes topic with its values as canonical texts
 * (numbers as JSON numbers), which the sink's validator reads back to the same typed values and
 * record hash, and the writer puts into PostgreSQL, whence the read side reads them back; a record
 * whose encoding does not decode goes to the DLQ with its reason.
 */
class TopologySemanticTypesTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    @TempDir
    Path stateDir;

    @Test
    void typedValuesCrossTheChangesTopicAndAMalformedEncodingIsDeadLettered() {
        EntityPipeline pipeline = EntityPipeline.of(TopologyFixtures.APPLICATION_ID, SemanticTypesTest.ENTITY);
        String bad = "{\"before\":null,\"after\":{\"id\":2,\"born\":3000000},\"op\":\"c\",\"ts_ms\":1529507597100}";

        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, "pg.public.typed");
            in.pipeInput(utf8("{\"id\":1}"), resource("semantic-types.json"), NOW);
            in.pipeInput(utf8("{\"id\":2}"), utf8(bad), NOW);

            List<Change> changes = changes(output(driver, pipeline.changesTopic()));
            assertThat(changes.stream().map(c -> List.of(c.key(), c.change().changeClass(), c.change().op(), c.change().data())).toList())
                    .isEqualTo(List.of(List.of("[\"1\"]", ChangeClass.NEW, Op.UPSERT, changeData())));
            // the sink's reading of the change: the same typed values and hash as the decoders gave
            List<Object> sinkTyped = SemanticTypesTest.typed(changes.get(0).change().toEvent(0));
            List<Object> expected = new ArrayList<>(SemanticTypesTest.EXPECTED);
            expected.add(sinkTyped.get(sinkTyped.size() - 1));
            assertThat(sinkTyped).isEqualTo(expected);
            assertThat(sinkTyped.get(sinkTyped.size() - 1)).isEqualTo(SemanticTypesTest.typed(
                    ((io.dimstream.app.decode.Decoded.Ok) pipeline.decoder().decode(null, resource("semantic-types.json"), 0L,
                            "pg.public.typed", 0, 0L)).event()).get(sinkTyped.size() - 1));

            assertThat(deadLetters(output(driver, pipeline.dlqTopic()))).isEqualTo(List.of(new DeadLetter("{\"id\":2}", bad,
                    dlqHeaders("column 'born': io.debezium.time.Date value 3000000 (days since 1970-01-01) is outside 0001-01-01 to "
                            + "9999-12-31", "typed", "pg.public.typed", 1))));
        }
    }

    @Test
    void theSinksReadingOfTheChangeLandsInPostgresAndReadsBackAsTheSameTypedValues() throws Exception {
        EntityPipeline pipeline = EntityPipeline.of(TopologyFixtures.APPLICATION_ID, SemanticTypesTest.ENTITY);
        io.dimstream.app.change.ChangeRecord change;
        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            input(driver, "pg.public.typed").pipeInput(utf8("{\"id\":1}"), resource("semantic-types.json"), NOW);
            change = changes(output(driver, pipeline.changesTopic())).get(0).change();
        }
        io.dimstream.db.entity.EntitySpec spec = SemanticTypesTest.SPEC.withTable("dim_typed_round_trip");
        javax.sql.DataSource ds = io.dimstream.db.testing.TestPostgres.dataSource();
        io.dimstream.db.schema.EntityTables.ensure(ds, spec);
        io.dimstream.db.write.ApplyResult applied = new io.dimstream.db.write.Scd2Writer(ds).apply(spec, List.of(change.toEvent(0)));
        assertThat(List.of(applied.newKeys(), applied.rejected())).isEqualTo(List.of(1, List.of()));

        // read back as the admin UI and the CLI read it: the typed values the decoders gave, the same hash
        List<io.dimstream.db.read.VersionRow> history = new io.dimstream.db.read.HistoryQueries(ds).history(spec, List.of(1L));
        assertThat(history).hasSize(1);
        List<Object> read = new ArrayList<>(history.get(0).key().values());
        read.addAll(history.get(0).attributes().values());
        read.replaceAll(v -> v instanceof byte[] b ? io.dimstream.db.entity.ColumnType.BYTEA.canonical(b) : v);
        read.add(history.get(0).recordHash());
        List<Object> expected = new ArrayList<>(SemanticTypesTest.EXPECTED);
        expected.add(SemanticTypesTest.typed(change.toEvent(0)).get(expected.size()));
        assertThat(read).isEqualTo(expected);
    }

    /** The change record's data as the changes topic carries it: canonical texts, numbers as numbers. */
    private static Map<String, Object> changeData() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", BigInteger.ONE);
        m.put("born", "2018-06-20");
        m.put("born_text", "2018-06-20");
        m.put("t_ms", "15:13:16.945000");
        m.put("t_us", "15:13:16.945104");
        m.put("t_ns", "15:13:16.945104");
        m.put("ts_ms", "2018-06-20T15:13:16.945000");
        m.put("ts_us", "2018-06-20T15:13:16.945104");
        m.put("ts_ns", "2018-06-20T15:13:16.945104");
        m.put("ts_us_utc", "2018-06-20T15:13:16.945104Z");
        m.put("zts", "2018-06-20T13:13:16.945104Z");
        m.put("ztime", "13:13:16.945104Z");
        m.put("price", new BigDecimal("12345.67"));
        m.put("price_text", "12345.67");
        m.put("qty", BigInteger.valueOf(42));
        m.put("amount", new BigDecimal("-123.456"));
        m.put("doc", "{\"a\":\"x\",\"b\":[1,2.50]}");
        m.put("uid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        m.put("c_date", "2018-06-20");
        m.put("c_time", "15:13:16.945000");
        m.put("c_ts", "2018-06-20T15:13:16.945000");
        m.put("blob", "\\x00ff105c");
        return m;
    }
}
