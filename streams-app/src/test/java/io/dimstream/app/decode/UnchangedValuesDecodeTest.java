package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.Unchanged;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Values that mean "unchanged" become {@link Unchanged#VALUE} at decode: Debezium's placeholder for
 * an unchanged TOAST column (as text, and as base64 of its bytes for a binary column), and under
 * {@code ignore-null-updates} a NULL or missing attribute of an upsert.
 */
class UnchangedValuesDecodeTest {

    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");
    private static final Source SRC = Source.kafka("pg.public.customers", 0, 4L);
    private static final Object U = Unchanged.VALUE;
    /** base64 of the placeholder's UTF-8 bytes: how JsonConverter writes it for a bytea column */
    private static final String PLACEHOLDER_BYTES = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==";

    private static EntityConfig entity(String options) {
        return DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: pg.public.customers, format: debezium-json, table: dim_customer, key: [customer_id],
                     tracked: [email, bio, photo], type1: [city], columns: {customer_id: text, email: text, bio: text, photo: text, city: text}%s}
                """.formatted(options), "test.yml", Map.of()).entity("customer");
    }

    private static Decoded decode(EntityConfig e, String op, String image) {
        String envelope = "{\"before\":null,\"after\":" + image + ",\"source\":{\"ts_ms\":" + T.toEpochMilli() + "},\"op\":\"" + op
                + "\",\"ts_ms\":" + T.toEpochMilli() + "}";
        return Decoders.forEntity(e).decode(null, envelope.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.customers", 0, 4L);
    }

    private static Map<String, Object> row(Object email, Object bio, Object photo, Object city) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("customer_id", "C1");
        m.put("email", email);
        m.put("bio", bio);
        m.put("photo", photo);
        m.put("city", city);
        return m;
    }

    @Test
    void debeziumsPlaceholderMeansUnchangedAsTextAndAsBytes() {
        Decoded d = decode(entity(""), "u", "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"bio\":\"__debezium_unavailable_value\","
                + "\"photo\":\"" + PLACEHOLDER_BYTES + "\",\"city\":null}");

        assertThat(d).isEqualTo(Decoded.ok(Event.upsert(T, row("a@x", U, U, null), 4L, SRC)));
    }

    @Test
    void thePlaceholderInAFieldTheConfigDoesNotDeclareIsUnchangedToo() {
        // memo: a column added while running (or about to be); note: a bytea one, as base64 of the placeholder's bytes
        Decoded d = decode(entity(", schema-evolution: lenient, new-columns: tracked"), "u", "{\"customer_id\":\"C1\",\"email\":\"a@x\","
                + "\"bio\":\"b\",\"photo\":null,\"city\":null,\"memo\":\"__debezium_unavailable_value\",\"note\":\"" + PLACEHOLDER_BYTES
                + "\",\"tier\":\"gold\"}");

        Map<String, Object> want = row("a@x", "b", null, null);
        want.put("memo", U);
        want.put("note", U);
        want.put("tier", "gold");
        assertThat(d).isEqualTo(Decoded.ok(Event.upsert(T, want, 4L, SRC)));
    }

    @Test
    void aConfiguredPlaceholderReplacesDebeziumsAndNoneKeepsTheTextAsAValue() {
        String image = "{\"customer_id\":\"C1\",\"email\":\"??\",\"bio\":\"__debezium_unavailable_value\",\"photo\":null,\"city\":null}";

        assertThat(decode(entity(", unavailable-value: \"??\""), "u", image))
                .isEqualTo(Decoded.ok(Event.upsert(T, row(U, "__debezium_unavailable_value", null, null), 4L, SRC)));
        assertThat(decode(entity(", unavailable-value: none"), "u", image))
                .isEqualTo(Decoded.ok(Event.upsert(T, row("??", "__debezium_unavailable_value", null, null), 4L, SRC)));
    }

    @Test
    void ignoreNullUpdatesTurnsNullAndMissingAttributesOfTheListedColumnsIntoUnchanged() {
        Decoded listed = decode(entity(", ignore-null-updates: [email, city]"), "u",
                "{\"customer_id\":\"C1\",\"email\":null,\"bio\":null,\"photo\":\"p\"}");
        Decoded all = decode(entity(", ignore-null-updates: all"), "u", "{\"customer_id\":\"C1\",\"email\":null,\"bio\":\"b\"}");

        assertThat(listed).isEqualTo(Decoded.ok(Event.upsert(T, row(U, null, "p", U), 4L, SRC)));
        assertThat(all).isEqualTo(Decoded.ok(Event.upsert(T, row(U, "b", U, U), 4L, SRC)));
    }

    @Test
    void aFieldTheSourceNoLongerSendsIsUnchangedWhenLenientAndNullWhenStrict() {
        String image = "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"photo\":null,\"city\":\"Oslo\"}"; // bio dropped at the source

        assertThat(decode(entity(""), "u", image)).isEqualTo(Decoded.ok(Event.upsert(T, row("a@x", U, null, "Oslo"), 4L, SRC)));
        Map<String, Object> strict = row("a@x", null, null, "Oslo");
        strict.remove("bio");
        assertThat(decode(entity(", schema-evolution: strict"), "u", image)).isEqualTo(Decoded.ok(Event.upsert(T, strict, 4L, SRC)));
    }

    @Test
    void exceptFieldsAreDroppedWhenRead() {
        EntityConfig e = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: pg.public.customers, format: debezium-json, table: dim_customer, key: [customer_id],
                     tracked: "*", except: [internal_note], type1: [city], columns: {customer_id: text, email: text, bio: text, photo: text, city: text}}
                """, "test.yml", Map.of()).entity("customer");

        Decoded d = decode(e, "c", "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"bio\":\"b\",\"photo\":\"p\",\"city\":\"Oslo\",\"internal_note\":\"vip\"}");

        assertThat(e.tracked()).isEqualTo(java.util.List.of("email", "bio", "photo"));
        assertThat(d).isEqualTo(Decoded.ok(Event.upsert(T, row("a@x", "b", "p", "Oslo"), 4L, SRC)));
    }

    @Test
    void deletesAreLeftAlone() {
        String envelope = "{\"before\":{\"customer_id\":\"C1\",\"email\":null},\"after\":null,\"source\":{\"ts_ms\":" + T.toEpochMilli()
                + "},\"op\":\"d\",\"ts_ms\":" + T.toEpochMilli() + "}";
        Decoded d = Decoders.forEntity(entity(", ignore-null-updates: all")).decode(null, envelope.getBytes(StandardCharsets.UTF_8), 0L,
                "pg.public.customers", 0, 4L);

        Map<String, Object> before = new LinkedHashMap<>();
        before.put("customer_id", "C1");
        before.put("email", null);
        assertThat(d).isEqualTo(Decoded.ok(Event.delete(T, before, 4L, SRC)));
    }

    @Test
    void aKeyThatIsThePlaceholderIsRefusedByTheValidator() {
        EntityConfig e = entity("");
        Event event = Event.upsert(T, Map.of("customer_id", U, "email", "a@x"), 4L, SRC);

        assertThat(new EventValidator(e.toEntitySpec()).validate(event).rejection())
                .isEqualTo(new Rejection(SRC, "key column 'customer_id' is not available (the source sent a placeholder for it)"));
    }
}
