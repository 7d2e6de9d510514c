package io.dimstream.app.service;

import static io.dimstream.app.service.DebeziumNewColumnIT.change;
import static io.dimstream.app.service.DebeziumNewColumnIT.hour;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: the source adds two columns ({@code ALTER TABLE ... ADD segment text, ADD score int}) to a
 * table whose debezium-json entity lists its tracked columns ({@code tracked: [email, city]}), at the
 * defaults. Before, every record after the change went to the DLQ ("column 'segment' is not declared
 * for entity ..."), and the history stopped. Now, through the real broker and PostgreSQL:
 * <ul>
 *   <li>by default the new columns become type-1 columns of the table (catalogued as such): no DLQ
 *       record, no version for a change of them alone nor for their NULLs, each version carries the
 *       values of its run's last event; when the source drops them again, their values are carried
 *       on as unchanged;</li>
 *   <li>with {@code new-columns: ignore} they are dropped, counted per field in
 *       {@code dimstream.fields.ignored}, and the history goes on exactly as without them.</li>
 * </ul>
 * Each case compares the whole history table.
 */
class DebeziumListedNewColumnIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final List<String[]> BEFORE = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"});
    private static final List<String[]> AFTER = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"city", "string"}, new String[] {"segment", "string"}, new String[] {"score", "int32"});

    /**
     * Three keys created, then the columns added: changes of them alone (K1, K2), with a tracked change
     * (K3, K2); then the columns dropped again: no change (K3), a tracked change (K1).
     */
    private static final List<FeedFixtures.TextRecord> FEED = List.of(
            change(BEFORE, "K1", "c", 1, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\"}"),
            change(BEFORE, "K2", "c", 1, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\"}"),
            change(BEFORE, "K3", "c", 1, "{\"customer_id\":\"K3\",\"email\":\"e@x\",\"city\":\"Nice\"}"),
            // ALTER TABLE customers ADD segment text, ADD score int at the source
            change(AFTER, "K1", "u", 2, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"segment\":\"gold\",\"score\":null}"),
            change(AFTER, "K2", "u", 3, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"city\":\"Rome\",\"segment\":null,\"score\":null}"),
            change(AFTER, "K3", "u", 4, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Nice\",\"segment\":\"silver\",\"score\":7}"),
            change(AFTER, "K1", "u", 5, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"segment\":\"platinum\",\"score\":3}"),
            change(AFTER, "K2", "u", 6, "{\"customer_id\":\"K2\",\"email\":\"x2@x\",\"city\":\"Rome\",\"segment\":\"bronze\",\"score\":null}"),
            // ALTER TABLE customers DROP segment, DROP score: their values are carried on as unchanged
            change(BEFORE, "K3", "u", 7, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Nice\"}"),
            change(BEFORE, "K1", "u", 8, "{\"customer_id\":\"K1\",\"email\":\"a3@x\",\"city\":\"Oslo\"}"));

    private static DimstreamConfig config(EmbeddedKafka kafka, String name, String topic, String more) {
        return DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: %s
                    topic: %s
                    format: debezium-json
                    table: dim_%s
                    key: [customer_id]
                    tracked: [email, city]
                    columns: {customer_id: text, email: text, city: text}
                %s""".formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), name, topic, name,
                more.isEmpty() ? "" : "    " + more + "\n"), "test config", Map.of());
    }

    @Test
    void addedColumnsBecomeType1ColumnsWithoutADlqRecordOrASpuriousVersion(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String topic = "pg.public.listed_customers";
        String entity = "listed_customer";
        kafka.createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
        DimstreamConfig config = config(kafka, entity, topic, "");
        EntitySpec configured = config.entity(entity).toEntitySpec();
        MeterRegistry registry = new SimpleMeterRegistry();

        List<ExpectedRow> expected = List.of(
                row("K1", "a@x", "Oslo", "platinum", 3L, 1, 8),
                row("K1", "a3@x", "Oslo", "platinum", 3L, 8, null),
                row("K2", "x@x", "Rome", null, null, 1, 6),
                row("K2", "x2@x", "Rome", "bronze", null, 6, null),
                row("K3", "e@x", "Nice", null, null, 1, 4),
                row("K3", "e2@x", "Nice", "silver", 7L, 4, null));
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-listed-new-column-it", 1, Duration.ofHours(1));
        try (DimstreamService service = DimstreamService.start(config, options, registry)) {
            FeedFixtures.produceText(kafka.bootstrapServers(), topic, FEED);

            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), EvolvedColumns.withCatalog(TestPostgres.dataSource(),
                            configured))).isEqualTo(expected));
            // the topology's classes, every record once: none went to the DLQ, no field was dropped
            assertThat(counters(registry, "dimstream.events", entity, "class"))
                    .isEqualTo(Map.of("new", 3.0, "unchanged", 4.0, "changed", 3.0));
            assertThat(counters(registry, "dimstream.fields.ignored", entity, "field")).isEmpty();
        }
        assertThat(EvolvedColumns.list(TestPostgres.dataSource(), entity).stream()
                .map(c -> List.of(c.column(), c.type().sqlName(), c.role(), c.firstSource())).toList())
                .isEqualTo(List.of(
                        List.of("score", "integer", "type1", topic + "-0@3"),
                        List.of("segment", "text", "type1", topic + "-0@3")));
    }

    @Test
    void newColumnsIgnoreDropsThemCountsThemAndTheHistoryGoesOn(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String topic = "pg.public.ignoring_customers";
        String entity = "ignoring_customer";
        kafka.createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
        DimstreamConfig config = config(kafka, entity, topic, "new-columns: ignore");
        EntitySpec configured = config.entity(entity).toEntitySpec();
        MeterRegistry registry = new SimpleMeterRegistry();

        List<ExpectedRow> expected = List.of(
                plainRow("K1", "a@x", "Oslo", 1, 8),
                plainRow("K1", "a3@x", "Oslo", 8, null),
                plainRow("K2", "x@x", "Rome", 1, 6),
                plainRow("K2", "x2@x", "Rome", 6, null),
                plainRow("K3", "e@x", "Nice", 1, 4),
                plainRow("K3", "e2@x", "Nice", 4, null));
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-ignored-new-column-it", 1, Duration.ofHours(1));
        try (DimstreamService service = DimstreamService.start(config, options, registry)) {
            FeedFixtures.produceText(kafka.bootstrapServers(), topic, FEED);

            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), EvolvedColumns.withCatalog(TestPostgres.dataSource(),
                            configured))).isEqualTo(expected));
            assertThat(counters(registry, "dimstream.events", entity, "class"))
                    .isEqualTo(Map.of("new", 3.0, "unchanged", 4.0, "changed", 3.0));
            // the five records after the ALTER each carried both fields
            assertThat(counters(registry, "dimstream.fields.ignored", entity, "field")).isEqualTo(Map.of("segment", 5.0, "score", 5.0));
        }
        assertThat(EvolvedColumns.list(TestPostgres.dataSource(), entity)).isEmpty();
    }

    /** A counter of the entity: the value of {@code tag} to its count. */
    private static Map<String, Double> counters(MeterRegistry registry, String name, String entity, String tag) {
        Map<String, Double> m = new TreeMap<>();
        for (Counter c : registry.find(name).tag("entity", entity).counters()) {
            m.put(c.getId().getTag(tag), c.count());
        }
        return m;
    }

    /** A version with the type-1 columns segment and score: the hash covers email and city only. */
    private static ExpectedRow row(String id, String email, String city, String segment, Long score, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("email", email);
        attrs.put("city", city);
        attrs.put("segment", segment);
        attrs.put("score", score);
        return version(id, email, city, attrs, fromHour, toHour);
    }

    private static ExpectedRow plainRow(String id, String email, String city, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("email", email);
        attrs.put("city", city);
        return version(id, email, city, attrs, fromHour, toHour);
    }

    private static ExpectedRow version(String id, String email, String city, Map<String, Object> attrs, int fromHour, Integer toHour) {
        String hash = RecordHash.hex(RecordHash.of(List.of(email, city)));
        return new ExpectedRow(Map.of("customer_id", id), attrs, hour(fromHour), toHour == null ? null : hour(toHour), toHour == null,
                false, hash);
    }
}
