package io.dimstream.app.service;

import io.dimstream.app.testing.FeedFixtures;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium feed from a PostgreSQL source without {@code REPLICA IDENTITY FULL} through the running
 * service: unchanged TOAST columns arrive as Debezium's placeholder and a partial update's NULL under
 * {@code ignore-null-updates}; each takes the value of the key's event before, in order, late (in
 * the middle of history) and within one source transaction; none is stored or makes a version.
 * Then the source drops a column ({@code schema-evolution: lenient}, the Debezium default): its
 * value is carried on, with no spurious version.
 */
class DebeziumUnchangedValuesIT {

    private static final String TOPIC = "pg.public.customers";
    private static final String P = "\"__debezium_unavailable_value\"";
    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");

    @Test
    void placeholdersAndPartialUpdatesTakeThePreviousValues(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)));
            String table = "dim_customer_unchanged_it";
            DimstreamConfig config = DimstreamConfig.parse("""
                    kafka:
                      bootstrap-servers: %s
                    postgres:
                      url: %s
                    entities:
                      - name: customer
                        topic: %s
                        format: debezium-json
                        table: %s
                        key: [customer_id]
                        tracked: [email, bio]
                        type1: [city]
                        ignore-null-updates: [city]
                        columns: {customer_id: text, email: text, bio: text, city: text}
                    """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), TOPIC, table), "test config", Map.of());
            EntitySpec customer = config.entity("customer").toEntitySpec();

            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-unchanged-it", 2, Duration.ofHours(1));
            try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
                FeedFixtures.produceText(kafka.bootstrapServers(), TOPIC, List.of(
                        change("K1", "c", 1, "{\"customer_id\":\"K1\",\"email\":\"a@x\",\"bio\":\"long bio\",\"city\":\"Oslo\"}"),
                        change("K2", "c", 1, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"bio\":" + P + ",\"city\":\"Rome\"}"),
                        change("K1", "u", 3, "{\"customer_id\":\"K1\",\"email\":\"b@x\",\"bio\":" + P + ",\"city\":null}"),
                        // late: lands between hours 1 and 3, takes its bio from hour 1
                        change("K1", "u", 2, "{\"customer_id\":\"K1\",\"email\":\"a2@x\",\"bio\":" + P + ",\"city\":\"Bern\"}"),
                        // one source transaction: insert then update at the same commit time
                        change("K3", "c", 5, "{\"customer_id\":\"K3\",\"email\":\"e@x\",\"bio\":\"B\",\"city\":\"Nice\"}"),
                        change("K3", "u", 5, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"bio\":" + P + ",\"city\":null}"),
                        // only the TOAST column and a NULL city: nothing changed, no new version
                        change("K2", "u", 6, "{\"customer_id\":\"K2\",\"email\":\"x@x\",\"bio\":" + P + ",\"city\":null}"),
                        // the source drops the bio column: rows come without it; its value is carried, no version for it
                        change("K3", "u", 7, "{\"customer_id\":\"K3\",\"email\":\"e2@x\",\"city\":\"Lyon\"}"),
                        change("K1", "u", 8, "{\"customer_id\":\"K1\",\"email\":\"c@x\",\"city\":\"Oslo\"}")));

                List<ExpectedRow> expected = List.of(
                        row("K1", "a@x", "long bio", "Oslo", 1, 2),
                        row("K1", "a2@x", "long bio", "Bern", 2, 3),
                        row("K1", "b@x", "long bio", "Oslo", 3, 8),
                        row("K1", "c@x", "long bio", "Oslo", 8, null),
                        row("K2", "x@x", null, "Rome", 1, null),
                        row("K3", "e2@x", "B", "Lyon", 5, null));
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(EntityTableReader.rows(TestPostgres.dataSource(), customer)).isEqualTo(expected));
            }
        }
    }

    private static ExpectedRow row(String id, String email, String bio, String city, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("email", email);
        attrs.put("bio", bio);
        attrs.put("city", city);
        return new ExpectedRow(Map.of("customer_id", id), attrs, hour(fromHour), toHour == null ? null : hour(toHour), toHour == null,
                false, RecordHash.hex(RecordHash.of(Arrays.asList(email, bio))));
    }

    private static Instant hour(int h) {
        return T0.plus(Duration.ofHours(h));
    }

    /** A Debezium envelope as JsonConverter writes it with schemas.enable=false; both times equal. */
    private static FeedFixtures.TextRecord change(String id, String op, int hour, String after) {
        long ms = hour(hour).toEpochMilli();
        return new FeedFixtures.TextRecord("{\"customer_id\":\"" + id + "\"}", "{\"before\":null,\"after\":" + after + ",\"source\":{\"connector\":\"postgresql\","
                + "\"ts_ms\":" + ms + ",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"customers\"},\"op\":\"" + op + "\",\"ts_ms\":" + ms + "}");
    }

}
