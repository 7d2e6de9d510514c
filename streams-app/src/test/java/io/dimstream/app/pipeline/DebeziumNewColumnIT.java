package io.dimstream.app.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium source (JsonConverter with schemas) adds two columns mid-stream to a table whose entity
 * tracks {@code "*"} ({@code new-columns: tracked}, the default there): the running service adds them
 * to the table with the types of the record's schema, records them in the catalog, and keeps history
 * exact: a key whose new columns stay NULL gets no version, a key with a value gets one at that event.
 * A field listed in {@code except:} is never added. After a restart the service goes on with the
 * columns (from the catalog) and still makes no spurious version.
 */
class DebeziumNewColumnIT {

    private static final String TOPIC = "pg.public.evolving_customers";
    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    private static final List<String[]> BEFORE = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"});
    private static final List<String[]> AFTER = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"}, new String[] {"nickname", "string"}, new String[] {"score", "int32"},
            new String[] {"internal", "string"});

    @Test
    void aColumnTheSourceAddsBecomesATrackedColumnWithoutSpuriousVersions(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
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

            PipelineOptions options = new PipelineOptions(dir.resolve("data"), "debezium-new-column-it", 1, Duration.ofHours(1));
            List<ExpectedRow> expected = List.of(
                    row("K1", "a@x", "Oslo", null, null, 1, 2),
                    row("K1", "a@x", "Oslo", "Al", null, 2, null),
                    row("K2", "x@x", "Rome", null, null, 1, null),
                    row("K3", "e@x", "Nice", null, null, 1, 4),
                    row("K3", "e2@x", "Nice", null, 7L, 4, null));
            try (Pipeline pipeline = Pipeline.start(config, options, new SimpleMeterRegistry())) {
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
            try (Pipeline pipeline = Pipeline.start(config, options, new SimpleMeterRegistry())) {
                FeedFixtures.produceText(kafka.bootstrapServers(), TOPIC, List.of(
                        change(AFTER, "K1", "u", 6, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"nickname\":\"Al\","
                                + "\"score\":null,\"internal\":\"x\"}"),
                        change(AFTER, "K2", "u", 7, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\",\"nickname\":null,"
                                + "\"score\":3,\"internal\":\"y\"}"),
                        // the source drops the new columns again: K1 keeps its nickname, carried as unchanged
                        change(BEFORE, "K1", "u", 8, "{\"customer_id\":\"K1\",\"email\":\"b@x\",\"city\":\"Oslo\"}")));
                List<ExpectedRow> after = new ArrayList<>(expected);
                after.set(2, row("K2", "x@x", "Rome", null, null, 1, 7));
                after.add(3, row("K2", "x@x", "Rome", null, 3L, 7, null));
                after.set(1, row("K1", "a@x", "Oslo", "Al", null, 2, 8));
                after.add(2, row("K1", "b@x", "Oslo", "Al", null, 8, null));
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), evolved(configured))).isEqualTo(after));
            }
        }
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

    private static Instant hour(int h) {
        return T0.plus(Duration.ofHours(h));
    }

    /** A Debezium envelope as JsonConverter writes it with schemas.enable=true; both times equal. */
    private static FeedFixtures.TextRecord change(List<String[]> columns, String id, String op, int hour, String after) {
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
