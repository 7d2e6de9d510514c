package io.dimstream.app.service;

import io.dimstream.app.testing.FeedFixtures;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium source (JsonConverter with schemas) adds two columns mid-stream to a table whose entity
 * tracks {@code "*"} ({@code new-columns: tracked}, the default there): the running service adds them
 * to the table with the types of the record's schema, records them in the catalog, and keeps history
 * exact: a key whose new columns stay NULL gets no version, a key with a value gets one at that event.
 * A field listed in {@code except:} is never added. After a restart the service goes on with the
 * columns (from the catalog) and still makes no spurious version, and a value beyond the integer
 * the source's schema widened to bigint widens the column (no version for the same value re-sent).
 */
class DebeziumNewColumnIT {

    /** The test JVM's shared broker: topics, groups and application ids here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String TOPIC = "pg.public.evolving_customers";
    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    private static final List<String[]> BEFORE = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"});
    private static final List<String[]> AFTER = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"}, new String[] {"nickname", "string"}, new String[] {"score", "int32"},
            new String[] {"internal", "string"});
    private static final List<String[]> WIDER = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"}, new String[] {"nickname", "string"}, new String[] {"score", "int64"},
            new String[] {"internal", "string"});

    @Test
    void aColumnTheSourceAddsBecomesATrackedColumnWithoutSpuriousVersions(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        kafka.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)));
        String table = "dim_customer_new_column_it";
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: evolving_customer
                    topic: %s
                    format: debezium-json
                    table: %s
                    key: [customer_id]
                    tracked: "*"
                    except: [internal]
                    columns: {customer_id: text, email: text, city: text}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), TOPIC, table), "test config", Map.of());
        EntitySpec configured = config.entity("evolving_customer").toEntitySpec();

        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-new-column-it", 1, Duration.ofHours(1));
        List<ExpectedRow> expected = List.of(
                row("K1", "a@x", "Oslo", null, null, 1, 2),
                row("K1", "a@x", "Oslo", "Al", null, 2, null),
                row("K2", "x@x", "Rome", null, null, 1, null),
                row("K3", "e@x", "Nice", null, null, 1, 4),
                row("K3", "e2@x", "Nice", null, 7L, 4, null));
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            FeedFixtures.produceText(kafka.bootstrapServers(), TOPIC, List.of(
                    change(BEFORE, "K1", "c", 1, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\"}"),
                    change(BEFORE, "K2", "c", 1, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\"}"),
                    change(BEFORE, "K3", "c", 1, "{\"customer_id\":\"K3\",\"email\":\"e@x\",\"city\":\"Nice\"}"),
                    // ALTER TABLE customers ADD nickname text, ADD score int, ADD internal text at the source
                    change(AFTER, "K1", "u", 2, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"nickname\":\"Al\","
                            + "\"score\":null,\"internal\":\"x\"}"),
                    change(AFTER, "K2", "u", 3, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\",\"nickname\":null,"
                            + "\"score\":null,\"internal\":\"y\"}"),
                    change(AFTER, "K3", "u", 4, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Nice\",\"nickname\":null,"
                            + "\"score\":7,\"internal\":null}"),
                    change(AFTER, "K2", "u", 5, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\",\"nickname\":null,"
                            + "\"score\":null,\"internal\":\"z\"}")));

            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), evolved(configured))).isEqualTo(expected));
        }
        List<EvolvedColumns.Column> catalog = EvolvedColumns.list(TestPostgres.dataSource(), "evolving_customer");
        assertThat(catalog.stream().map(c -> List.of(c.entity(), c.column(), c.type().sqlName(), c.role(), c.firstSource())).toList())
                .isEqualTo(List.of(
                        List.of("evolving_customer", "nickname", "text", "tracked", TOPIC + "-0@3"),
                        List.of("evolving_customer", "score", "integer", "tracked", TOPIC + "-0@3")));

        // a restart: the spec comes from config and catalog; the same values again make nothing new,
        // a new value makes its version
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            FeedFixtures.produceText(kafka.bootstrapServers(), TOPIC, List.of(
                    change(AFTER, "K1", "u", 6, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"nickname\":\"Al\","
                            + "\"score\":null,\"internal\":\"x\"}"),
                    change(AFTER, "K2", "u", 7, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\",\"nickname\":null,"
                            + "\"score\":3,\"internal\":\"y\"}"),
                    // the source drops the new columns again: K1 keeps its nickname, carried as unchanged
                    change(BEFORE, "K1", "u", 8, "{\"customer_id\":\"K1\",\"email\":\"b@x\",\"city\":\"Oslo\"}"),
                    // ALTER TABLE customers ALTER score TYPE bigint at the source: 7 re-sent is no change,
                    // a value beyond integer widens the column to bigint
                    change(WIDER, "K3", "u", 9, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Nice\",\"nickname\":null,"
                            + "\"score\":7,\"internal\":null}"),
                    change(WIDER, "K3", "u", 10, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Nice\",\"nickname\":null,"
                            + "\"score\":3000000000,\"internal\":null}")));
            List<ExpectedRow> after = List.of(
                    row("K1", "a@x", "Oslo", null, null, 1, 2),
                    row("K1", "a@x", "Oslo", "Al", null, 2, 8),
                    row("K1", "b@x", "Oslo", "Al", null, 8, null),
                    row("K2", "x@x", "Rome", null, null, 1, 7),
                    row("K2", "x@x", "Rome", null, 3L, 7, null),
                    row("K3", "e@x", "Nice", null, null, 1, 4),
                    row("K3", "e2@x", "Nice", null, 7L, 4, 10),
                    row("K3", "e2@x", "Nice", null, 3_000_000_000L, 10, null));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), evolved(configured))).isEqualTo(after));
        }
        assertThat(EvolvedColumns.list(TestPostgres.dataSource(), "evolving_customer").stream()
                .map(c -> List.of(c.column(), c.def().sql(), c.role(), c.origin().sqlName(), c.widenedFrom().orElse("-"))).toList())
                .isEqualTo(List.of(
                        List.of("nickname", "text", "tracked", "evolution", "-"),
                        List.of("score", "bigint", "tracked", "evolution", "integer")));
    }

    /**
     * The source retypes a configured integer column as a string: no safe widening, so the sink stops
     * the partition (readiness says why) and writes nothing of it, until someone changes the column by
     * hand, as the message says; then it goes on without a restart, and a value whose text is the
     * same makes no version. A restart with the config still saying integer is refused, naming the
     * column; with the config saying text it goes on.
     */
    @Test
    void anUnsafeTypeChangeStopsThePartitionUntilTheColumnIsChangedByHand(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String topic = "pg.public.retyped_customers";
        kafka.createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
        String table = "dim_customer_retyped_it";
        String yaml = """
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                sink:
                  stuck-after: PT2S
                entities:
                  - name: retyped_customer
                    topic: %s
                    format: debezium-json
                    table: %s
                    key: [customer_id]
                    tracked: [email, visits]
                    columns: {customer_id: text, email: text, visits: %s}
                """;
        DimstreamConfig config = DimstreamConfig.parse(yaml.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), topic, table,
                "integer"), "test config", Map.of());
        List<String[]> ints = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
                new String[] {"visits", "int32"});
        List<String[]> strings = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
                new String[] {"visits", "string"});
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-retyped-it", 1, Duration.ofHours(1));
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            FeedFixtures.produceText(kafka.bootstrapServers(), topic, List.of(
                    change(ints, "K1", "c", 1, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"visits\":1}"),
                    change(ints, "K2", "c", 1, "{\"customer_id\":\"K2\",\"email\":\"b@x\",\"visits\":2}")));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(visits(table)).isEqualTo(List.of("K1 1 open", "K2 2 open")));

            // ALTER TABLE customers ALTER visits TYPE text at the source
            FeedFixtures.produceText(kafka.bootstrapServers(), topic, List.of(
                    change(strings, "K1", "u", 2, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"visits\":\"many\"}"),
                    change(strings, "K2", "u", 3, "{\"customer_id\":\"K2\",\"email\":\"b@x\",\"visits\":\"2\"}")));
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                io.dimstream.app.health.HealthReport ready = pipeline.health().ready();
                assertThat(ready.up()).isFalse();
                assertThat(ready.checks().get("sink").detail()).contains("entity retyped_customer: column visits is integer, and the "
                        + "change at " + topic + "-0@2 says the source now types it text, which is no safe widening");
            });
            assertThat(visits(table)).isEqualTo(List.of("K1 1 open", "K2 2 open"));

            try (java.sql.Connection c = TestPostgres.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
                st.execute("DROP VIEW " + table + "_current");
                st.execute("ALTER TABLE " + table + " ALTER COLUMN visits TYPE text USING visits::text");
            }
            // K2's "2" is the text its 2 was: no version
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(visits(table)).isEqualTo(List.of("K1 1 closed", "K1 many open", "K2 2 open"));
                assertThat(pipeline.health().ready().up()).isTrue();
            });
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DimstreamService.start(config, options, new SimpleMeterRegistry()).close())
                .hasMessageContaining("column visits has type text, expected integer");
        DimstreamConfig declared = DimstreamConfig.parse(yaml.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), topic, table,
                "text"), "test config", Map.of());
        try (DimstreamService pipeline = DimstreamService.start(declared, options, new SimpleMeterRegistry())) {
            FeedFixtures.produceText(kafka.bootstrapServers(), topic, List.of(
                    change(strings, "K2", "u", 4, "{\"customer_id\":\"K2\",\"email\":\"b@x\",\"visits\":\"lots\"}")));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(visits(table)).isEqualTo(List.of("K1 1 closed", "K1 many open", "K2 2 closed", "K2 lots open")));
        }
    }

    /** Each version as "key visits open|closed", in key and time order. */
    private static List<String> visits(String table) throws Exception {
        List<String> out = new ArrayList<>();
        try (java.sql.Connection c = TestPostgres.dataSource().getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT customer_id, visits::text, valid_to IS NULL FROM " + table
                     + " ORDER BY customer_id, valid_from")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getString(2) + " " + (rs.getBoolean(3) ? "open" : "closed"));
            }
        }
        return out;
    }

    private static EntitySpec evolved(EntitySpec configured) throws Exception {
        return EvolvedColumns.withCatalog(TestPostgres.dataSource(), configured);
    }

    private static ExpectedRow row(String id, String email, String city, String nickname, Long score, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("email", email);
        attrs.put("city", city);
        attrs.put("nickname", nickname);
        attrs.put("score", score);
        // RecordHash's rule: the config's tracked columns as ever, then each evolved one with a value
        String hash = RecordHash.hex(RecordHash.of(Arrays.asList(email, city, nickname, score == null ? null : score.toString()),
                List.of("nickname", "score")));
        return new ExpectedRow(Map.of("customer_id", id), attrs, hour(fromHour), toHour == null ? null : hour(toHour), toHour == null,
                false, hash);
    }

    static Instant hour(int h) {
        return T0.plus(Duration.ofHours(h));
    }

    /** A Debezium envelope as JsonConverter writes it with schemas.enable=true; both times equal. */
    static FeedFixtures.TextRecord change(List<String[]> columns, String id, String op, int hour, String after) {
        long ms = hour(hour).toEpochMilli();
        StringBuilder row = new StringBuilder("{\"type\":\"struct\",\"optional\":true,\"name\":\"pg.public.evolving_customers.Value\",\"fields\":[");
        for (int i = 0; i < columns.size(); i++) {
            row.append(i == 0 ? "" : ",").append("{\"type\":\"").append(columns.get(i)[1]).append("\",\"optional\":")
                    .append(i > 0).append(",\"field\":\"").append(columns.get(i)[0]).append("\"}");
        }
        row.append("]");
        String schema = "{\"type\":\"struct\",\"optional\":false,\"name\":\"pg.public.evolving_customers.Envelope\",\"fields\":["
                + row + ",\"field\":\"before\"}," + row + ",\"field\":\"after\"},"
                + "{\"type\":\"struct\",\"optional\":false,\"field\":\"source\",\"fields\":[{\"type\":\"int64\",\"optional\":false,"
                + "\"field\":\"ts_ms\"}]},{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
                + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
        String payload = "{\"before\":null,\"after\":" + after + ",\"source\":{\"connector\":\"postgresql\",\"ts_ms\":" + ms
                + ",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"evolving_customers\"},\"op\":\"" + op + "\",\"ts_ms\":" + ms + "}";
        return new FeedFixtures.TextRecord("{\"customer_id\":\"" + id + "\"}", "{\"schema\":" + schema + ",\"payload\":" + payload + "}");
    }

}
