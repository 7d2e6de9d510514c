package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A source record with a field the entity does not declare (a column added at the source, or a row
 * image wider than the entity), under a list of tracked columns: what the decoder makes of it, whole,
 * for each setting of {@code new-columns} and {@code undeclared-columns}. Only the explicit
 * {@code undeclared-columns: reject} lets the validator refuse the record.
 */
class UndeclaredColumnsTest {

    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");
    private static final Source SRC = Source.kafka("pg.public.customers", 0, 4L);
    /** the source table has a column the entity does not declare: segment */
    private static final String ENVELOPE = "{\"before\":null,\"after\":{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"segment\":\"vip\"},"
            + "\"source\":{\"ts_ms\":" + T.toEpochMilli() + "},\"op\":\"c\",\"ts_ms\":" + T.toEpochMilli() + "}";
    private static final String NATIVE = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"customer_id\":\"C1\","
            + "\"city\":\"Oslo\",\"segment\":\"vip\"}}";
    private static final Event DECLARED_ONLY = Event.upsert(T, Map.of("customer_id", "C1", "city", "Oslo"), 4L, SRC);
    private static final Event WITH_SEGMENT = Event.upsert(T, Map.of("customer_id", "C1", "city", "Oslo", "segment", "vip"), 4L, SRC);

    private static EntityConfig entity(String format, String more) {
        return DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: pg.public.customers, format: %s, table: dim_customer, key: [customer_id],
                     tracked: [city], columns: {customer_id: text, city: text}%s}
                """.formatted(format, more.isEmpty() ? "" : ", " + more), "test.yml", Map.of()).entity("customer");
    }

    private static Decoded decode(EntityConfig e, String value) {
        return Decoders.forEntity(e).decode("{\"customer_id\":\"C1\"}".getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.customers", 0, 4L);
    }

    private static EventValidator.Result validate(EntityConfig e, Decoded d) {
        return new EventValidator(e.toEntitySpec()).validate(((Decoded.Ok) d).event());
    }

    /**
     * Issue 31: a lenient entity with a list of tracked columns passes the field on, for the topology to
     * make it a type-1 column (before: the field stayed, and the validator sent every such record to
     * the DLQ, "column 'segment' is not declared for entity 'customer'").
     */
    @Test
    void aListOfTrackedColumnsPassesTheFieldOnToBeAdded() {
        EntityConfig e = entity("debezium-json", "");

        assertThat(Decoders.dropsUndeclaredFields(e)).isFalse();
        assertThat(decode(e, ENVELOPE)).isEqualTo(new Decoded.Ok(WITH_SEGMENT, Map.of(), Set.of()));
    }

    /** {@code new-columns: ignore} and {@code undeclared-columns: ignore}: the field is dropped and named as ignored; the event is valid. */
    @Test
    void ignoreDropsTheFieldAndNamesIt() {
        for (EntityConfig e : new EntityConfig[] {entity("debezium-json", "new-columns: ignore"),
                entity("debezium-json", "undeclared-columns: ignore")}) {
            Decoded d = decode(e, ENVELOPE);

            assertThat(d).isEqualTo(new Decoded.Ok(DECLARED_ONLY, Map.of(), Set.of("segment")));
            assertThat(validate(e, d).rejection()).isNull();
        }
    }

    /** A strict entity (native JSON's default) adds nothing: the field is dropped and named, the record lands (before: the DLQ). */
    @Test
    void aStrictEntityDropsTheFieldByDefault() {
        EntityConfig e = entity("json", "");
        Decoded d = decode(e, NATIVE);

        assertThat(d).isEqualTo(new Decoded.Ok(Event.upsert(T, Map.of("customer_id", "C1", "city", "Oslo"), 4L, SRC), Map.of(),
                Set.of("segment")));
        assertThat(validate(e, d).rejection()).isNull();
    }

    /** The schema's types of a record whose field was dropped stay with it. */
    @Test
    void theRecordsSchemaTypesStayWithTheIgnoredFields() {
        EntityConfig e = entity("debezium-json", "new-columns: ignore");
        String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":["
                + "{\"type\":\"string\",\"field\":\"customer_id\"},{\"type\":\"string\",\"field\":\"city\"},"
                + "{\"type\":\"int32\",\"field\":\"segment\"}]}]}";
        String envelope = ENVELOPE.replace("\"segment\":\"vip\"", "\"segment\":7");

        assertThat(decode(e, "{\"schema\":" + schema + ",\"payload\":" + envelope + "}")).isEqualTo(new Decoded.Ok(DECLARED_ONLY,
                Map.of("customer_id", ColumnType.TEXT, "city", ColumnType.TEXT, "segment", ColumnType.INTEGER), Set.of("segment")));
    }

    /** {@code undeclared-columns: reject}, the explicit opt-in: the field stays and the validator refuses the record naming it. */
    @Test
    void rejectKeepsTheFieldForTheValidatorToRefuse() {
        for (EntityConfig e : new EntityConfig[] {entity("debezium-json", "undeclared-columns: reject"),
                entity("json", "undeclared-columns: reject")}) {
            Decoded d = decode(e, e.format().configName().equals("json") ? NATIVE : ENVELOPE);

            assertThat(d).isEqualTo(new Decoded.Ok(WITH_SEGMENT, Map.of(), Set.of()));
            assertThat(validate(e, d)).isEqualTo(new EventValidator.Result(null,
                    new Rejection(SRC, "column 'segment' is not declared for entity 'customer'")));
        }
    }

    @Test
    void anyOtherValueIsRefusedNamingTheField() {
        try {
            entity("debezium-json", "undeclared-columns: drop");
            throw new AssertionError("accepted undeclared-columns: drop");
        } catch (io.dimstream.config.ConfigException ex) {
            assertThat(ex.getMessage()).isEqualTo("test.yml: entities[0].undeclared-columns: \"drop\" is neither ignore nor reject");
        }
    }
}
