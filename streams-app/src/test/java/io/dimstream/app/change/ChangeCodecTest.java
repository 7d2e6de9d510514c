package io.dimstream.app.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeCodecTest {

    @Test
    void roundTripKeepsEveryFieldAndExactNumbers() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("balance", new BigDecimal("1.50"));
        data.put("last_login", new BigInteger("1754038800"));
        data.put("city", null);
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.LATE, Op.UPSERT, Instant.parse("2025-08-22T17:00:00.123456Z"),
                data, "crm.customers", 3, 42L);

        byte[] bytes = ChangeCodec.encode(r);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"LATE\",\"op\":\"upsert\","
                + "\"event_time\":\"2025-08-22T17:00:00.123456Z\",\"data\":{\"customer_id\":\"C1\",\"balance\":1.50,"
                + "\"last_login\":1754038800,\"city\":null},\"source\":{\"topic\":\"crm.customers\",\"partition\":3,\"offset\":42}}");
        assertThat(ChangeCodec.decode(bytes)).isEqualTo(r);
    }

    @Test
    void unchangedValuesTravelAsAListBesideTheData() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("bio", io.dimstream.db.event.Unchanged.VALUE);
        data.put("city", null);
        data.put("email", io.dimstream.db.event.Unchanged.VALUE);
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.CHANGED, Op.UPSERT, Instant.parse("2025-08-22T17:00:00Z"),
                data, "pg.public.customers", 0, 7L);

        byte[] bytes = ChangeCodec.encode(r);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"CHANGED\",\"op\":\"upsert\","
                + "\"event_time\":\"2025-08-22T17:00:00.000000Z\",\"data\":{\"customer_id\":\"C1\",\"city\":null},"
                + "\"unchanged\":[\"bio\",\"email\"],\"source\":{\"topic\":\"pg.public.customers\",\"partition\":0,\"offset\":7}}");
        assertThat(ChangeCodec.decode(bytes)).isEqualTo(r);
    }

    @Test
    void theClassSplicedIntoAnUnclassifiedChangeGivesTheSameBytesAsEncodingTheClassifiedChange() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", "K\u00e9\"1");
        data.put("amount", new BigDecimal("10.00"));
        for (String entity : List.of("customer", "kunde-\u00e4\"x\\", "\u6e2c")) {
            for (ChangeClass cls : ChangeClass.values()) {
                ChangeRecord r = new ChangeRecord(entity, cls, Op.UPSERT, Instant.parse("2025-08-22T17:00:00Z"), data, "t\u00f6pic", 1, 9L);
                ChangeRecord unclassified = new ChangeRecord(entity, ChangeClass.NEW, Op.UPSERT, r.eventTime(), data, "t\u00f6pic", 1, 9L);

                byte[] spliced = ChangeCodec.withClass(ChangeCodec.encodeUnclassified(unclassified), ChangeCodec.classOffset(entity), cls);

                assertThat(new String(spliced, StandardCharsets.UTF_8)).isEqualTo(new String(ChangeCodec.encode(r), StandardCharsets.UTF_8));
                assertThat(ChangeCodec.decode(spliced)).isEqualTo(r);
            }
        }
    }

    @Test
    void toEventUsesTheChangesOffsetAsArrivalAndTheSourceAsLineage() {
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.DELETED, Op.DELETE, Instant.parse("2025-08-22T21:00:00Z"),
                Map.of("customer_id", "C2"), "crm.customers", 0, 7L);

        assertThat(r.toEvent(99L)).isEqualTo(new Event(Op.DELETE, Instant.parse("2025-08-22T21:00:00Z"), Map.of("customer_id", "C2"),
                99L, Source.kafka("crm.customers", 0, 7L), null));
    }

    @Test
    void keyIsAJsonArrayOfCanonicalParts() {
        assertThat(new String(ChangeCodec.key(List.of("C1", "2")), StandardCharsets.UTF_8)).isEqualTo("[\"C1\",\"2\"]");
    }

    @Test
    void garbageIsRefusedWithTheBytesInTheMessage() {
        assertThatThrownBy(() -> ChangeCodec.decode("{\"entity\":\"x\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed change record: {\"entity\":\"x\"}");
    }
}
