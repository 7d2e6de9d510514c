package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code undeclared-columns}: a Debezium row image wider than the entity. */
class UndeclaredColumnsTest {

    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");
    private static final Source SRC = Source.kafka("pg.public.customers", 0, 4L);
    /** the source table has a column the entity does not declare: internal_note */
    private static final String ENVELOPE = "{\"before\":null,\"after\":{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"internal_note\":\"vip\"},"
            + "\"source\":{\"ts_ms\":" + T.toEpochMilli() + "},\"op\":\"c\",\"ts_ms\":" + T.toEpochMilli() + "}";

    private static EntityConfig entity(String undeclared) {
        return DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: pg.public.customers, format: debezium-json, table: dim_customer, key: [customer_id],
                     tracked: [city], columns: {customer_id: text, city: text}%s}
                """.formatted(undeclared == null ? "" : ", undeclared-columns: " + undeclared), "test.yml", Map.of()).entity("customer");
    }

    private static Decoded decode(EntityConfig e) {
        return Decoders.forEntity(e).decode("{\"customer_id\":\"C1\"}".getBytes(StandardCharsets.UTF_8),
                ENVELOPE.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.customers", 0, 4L);
    }

    @Test
    void ignoreKeepsOnlyTheDeclaredColumnsAndTheEventIsValid() {
        EntityConfig e = entity("ignore");
        Decoded d = decode(e);

        assertThat(d).isEqualTo(Decoded.ok(Event.upsert(T, Map.of("customer_id", "C1", "city", "Oslo"), 4L, SRC)));
        assertThat(new EventValidator(e.toEntitySpec()).validate(((Decoded.Ok) d).event()).ok()).isTrue();
    }

    @Test
    void rejectIsTheDefaultAndTheValidatorNamesTheColumn() {
        for (EntityConfig e : new EntityConfig[] {entity(null), entity("reject")}) {
            Decoded d = decode(e);

            assertThat(d).isEqualTo(Decoded.ok(Event.upsert(T, Map.of("customer_id", "C1", "city", "Oslo", "internal_note", "vip"), 4L, SRC)));
            assertThat(new EventValidator(e.toEntitySpec()).validate(((Decoded.Ok) d).event()).rejection())
                    .isEqualTo(new Rejection(SRC, "column 'internal_note' is not declared for entity 'customer'"));
        }
    }

    @Test
    void anyOtherValueIsRefusedNamingTheField() {
        try {
            entity("drop");
            throw new AssertionError("accepted undeclared-columns: drop");
        } catch (io.dimstream.config.ConfigException ex) {
            assertThat(ex.getMessage()).isEqualTo("test.yml: entities[0].undeclared-columns: \"drop\" is neither reject nor ignore");
        }
    }
}
