package io.dimstream.app.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.TypedEventCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChangeCodecTest {

    private static EntitySpec customer(String name) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("customer_id", ColumnType.TEXT);
        cols.put("balance", ColumnType.NUMERIC);
        cols.put("city", ColumnType.TEXT);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder().name(name).table("dim_" + name).key(List.of("customer_id")).tracked(List.of("balance", "city"))
                .type1(List.of("last_login")).columns(cols).latenessHorizon(Optional.empty()).build();
    }

    @Test
    void theSinkReadsTheTypedFormBackAsTheTopologyValidatedItArrivingAtItsChangesOffset() {
        EntitySpec spec = customer("customer");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("balance", new BigDecimal("1.50"));
        data.put("city", null);
        data.put("last_login", 1754038800L);
        TypedEvent typed = new EventValidator(spec).validate(Event.upsert(Instant.parse("2025-08-22T17:00:00.123456Z"), data, 0,
                Source.kafka("crm.customers", 3, 42L))).event();
        byte[] bytes = ChangeCodec.withClass(ChangeCodec.encodeUnclassified(spec, typed, Map.of("nickname", "text"), Map.of()),
                ChangeCodec.classOffset("customer"), ChangeClass.LATE);

        ChangeCodec.SinkChange read = ChangeCodec.toSinkChange(bytes, TypedEventCodec.of(spec), 7);

        assertThat(List.of(read.entity(), read.changeClass())).isEqualTo(List.of("customer", ChangeClass.LATE));
        assertThat(read.untyped()).isNull();
        TypedEvent back = read.typed();
        assertThat(List.of(back.delete(), back.eventTime(), back.values(), back.seq(), back.source()))
                .isEqualTo(List.of(false, typed.eventTime(), typed.values(), ArrivalSeq.ofChangesOffset(7).value(), typed.source()));
        assertThat(Arrays.equals(back.hash(), typed.hash())).as("the tracked hash as the topology computed it").isTrue();
        assertThat(ChangeCodec.decode(bytes).newColumns()).isEqualTo(Map.of("nickname", "text"));
    }

    @Test
    void aTypedRecordOfAnotherShapeIsReadToBeValidatedAgainAndARecordWithoutTheTypedFormIsRefused() {
        EntitySpec spec = customer("customer");
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.NEW, Op.DELETE, Instant.parse("2025-08-22T17:00:00Z"),
                Map.of("customer_id", "C2"), "crm.customers", 0, 9L);

        ChangeCodec.SinkChange other = ChangeCodec.toSinkChange(TestChanges.encode(r), TypedEventCodec.of(spec), 11);

        assertThat(other).isEqualTo(new ChangeCodec.SinkChange("customer", ChangeClass.NEW, null, r.toEvent(11)));
        byte[] untyped = ("{\"entity\":\"customer\",\"class\":\"NEW\",\"op\":\"delete\",\"event_time\":\"2025-08-22T17:00:00Z\","
                + "\"data\":{\"customer_id\":\"C2\"},\"source\":{\"topic\":\"crm.customers\",\"partition\":0,\"offset\":9}}")
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ChangeCodec.toSinkChange(untyped, TypedEventCodec.of(spec), 12))
                .isInstanceOf(IllegalArgumentException.class)
                .hasRootCauseMessage("no \"format\" field: not a change record of the typed form the topology writes");
    }

    @Test
    void roundTripKeepsEveryFieldAndExactNumbers() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("balance", new BigDecimal("1.50"));
        data.put("last_login", new BigInteger("1754038800"));
        data.put("city", null);
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.LATE, Op.UPSERT, Instant.parse("2025-08-22T17:00:00.123456Z"),
                data, "crm.customers", 3, 42L);

        byte[] bytes = TestChanges.encode(r);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"LATE\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\","
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

        byte[] bytes = TestChanges.encode(r);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"entity\":\"customer\",\"class\":\"CHANGED\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\","
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

                byte[] spliced = ChangeCodec.withClass(TestChanges.encodeUnclassified(unclassified), ChangeCodec.classOffset(entity), cls);

                assertThat(new String(spliced, StandardCharsets.UTF_8)).isEqualTo(new String(TestChanges.encode(r), StandardCharsets.UTF_8));
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

    @Test
    void aRecordWithContentAfterItsObjectIsRefusedNamingTheByte() {
        EntitySpec spec = customer("customer");
        ChangeRecord r = new ChangeRecord("customer", ChangeClass.NEW, Op.DELETE, Instant.parse("2025-08-22T17:00:00Z"),
                Map.of("customer_id", "C2"), "crm.customers", 0, 9L);
        byte[] one = TestChanges.encode(r);
        byte[] two = new byte[one.length * 2 + 1];
        System.arraycopy(one, 0, two, 0, one.length);
        two[one.length] = '\n';
        System.arraycopy(one, 0, two, one.length + 1, one.length);

        assertThatThrownBy(() -> ChangeCodec.toSinkChange(two, TypedEventCodec.of(spec), 12))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("change record has trailing content after the JSON value at byte " + (one.length + 1));
        assertThatThrownBy(() -> ChangeCodec.decode(two))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("change record has trailing content after the JSON value at byte " + (one.length + 1));
        byte[] spaced = new byte[one.length + 2];
        System.arraycopy(one, 0, spaced, 0, one.length);
        spaced[one.length] = ' ';
        spaced[one.length + 1] = '\n';
        assertThat(ChangeCodec.decode(spaced)).isEqualTo(ChangeCodec.decode(one)); // whitespace after the value is no content
    }
}
