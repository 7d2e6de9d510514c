package io.dimstream.app.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.change.TestChanges;
import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.db.event.Op;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PendingChangeTest {

    private static final Instant T = Instant.parse("2025-08-22T17:00:00.123456Z");

    private static ChangeRecord change(ChangeClass cls) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("email", "a@example.com");
        return new ChangeRecord("customer", cls, Op.UPSERT, T, data, "crm.customers", 2, 17L);
    }

    @Test
    void roundTripsAndClassifiesToTheChangeRecordOfThatClass() {
        byte[] hash = new byte[32];
        Arrays.fill(hash, (byte) 7);
        PendingChange p = new PendingChange(KeyState.micros(T), hash, 42L, ChangeCodec.classOffset("customer"),
                TestChanges.encodeUnclassified(change(ChangeClass.NEW)));

        PendingChange back = PendingChange.fromBytes(p.toBytes());

        assertThat(back.eventMicros()).isEqualTo(KeyState.micros(T));
        assertThat(back.trackedHash()).isEqualTo(hash);
        assertThat(back.contentFingerprint()).isEqualTo(42L);
        assertThat(new String(back.classified(ChangeClass.CHANGED), StandardCharsets.UTF_8))
                .isEqualTo("{\"entity\":\"customer\",\"class\":\"CHANGED\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00.123456Z\","
                        + "\"data\":{\"customer_id\":\"C1\",\"email\":\"a@example.com\"},"
                        + "\"source\":{\"topic\":\"crm.customers\",\"partition\":2,\"offset\":17}}");
    }

    @Test
    void refusesAnotherFormatVersionNamingIt() {
        // version 1 was never released: a record in it is not read as if it were version 2
        byte[] json = TestChanges.encode(change(ChangeClass.NEW));
        byte[] v1 = ByteBuffer.allocate(2 + 32 + 8 + json.length).put((byte) 1).put((byte) 1).put(new byte[32]).putLong(99L).put(json).array();

        assertThatThrownBy(() -> PendingChange.fromBytes(v1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("pending change of unknown format version 1");
    }
}
