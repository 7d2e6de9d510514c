package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.apply.Step;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Unchanged;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A replay reads a record as the live path's decode step does: with {@code schema-evolution:
 * lenient} a column added while running that the record does not carry keeps its value
 * ({@link Unchanged}), as a configured column does. Before, a repair read it as NULL and rewrote the
 * key's later versions without it (found by trying a repair after a column was added).
 */
class ReplayPollFieldsTest {

    private static final String CONFIG = """
            kafka:
              bootstrap-servers: 127.0.0.1:9092
            postgres:
              url: jdbc:postgresql://127.0.0.1:5432/x
            entities:
              - name: customer
                topic: crm.customers
                table: dim_customer
                key: [customer_id]
                tracked: [email, city]
                lateness-horizon: unlimited
                schema-evolution: lenient
                new-columns: tracked
                columns: {customer_id: text, email: text, city: text}
            """;

    @Test
    void aColumnAddedWhileRunningThatARecordDoesNotCarryIsUnchangedAsAConfiguredOneIs() {
        DimstreamConfig cfg = DimstreamConfig.parse(CONFIG, "test", Map.of());
        EntitySpec withSegment = cfg.entity("customer").toEntitySpec().withEvolvedColumn("segment", ColumnType.TEXT, true);
        EntityPipeline pipeline = EntityPipeline.of("app", cfg.entity("customer")).withEntity(withSegment);
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(0, "{\"op\":\"upsert\",\"event_time\":\"2025-08-01T00:00:00Z\",\"data\":{\"customer_id\":\"C1\",\"email\":\"a@x\",\"city\":\"Oslo\",\"segment\":\"gold\"}}"),
                record(1, "{\"op\":\"upsert\",\"event_time\":\"2025-08-02T00:00:00Z\",\"data\":{\"customer_id\":\"C1\",\"email\":\"b@x\"}}"));

        ReplayPoll poll = ReplayPoll.of(pipeline, records, Map.of(), null, Set.of(), null);

        List<Event> events = poll.steps().stream().filter(s -> s instanceof Step.Events).flatMap(s -> ((Step.Events) s).events().stream())
                .toList();
        assertThat(events).extracting(Event::data).containsExactly(
                data("C1", "a@x", "Oslo", "gold"),
                data("C1", "b@x", Unchanged.VALUE, Unchanged.VALUE));
        assertThat(events).extracting(Event::eventTime).containsExactly(
                Instant.parse("2025-08-01T00:00:00Z"), Instant.parse("2025-08-02T00:00:00Z"));
    }

    private static Map<String, Object> data(String id, String email, Object city, Object segment) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", id);
        m.put("email", email);
        m.put("city", city);
        m.put("segment", segment);
        return m;
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String json) {
        return new ConsumerRecord<>("crm.customers", 0, offset, "C1".getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8));
    }
}
