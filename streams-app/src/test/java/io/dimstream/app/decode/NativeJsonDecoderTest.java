package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NativeJsonDecoderTest {

    private static final Source SRC = Source.kafka("crm.customers", 2, 41L);
    private static final long TS = Instant.parse("2025-08-22T21:00:00Z").toEpochMilli();

    private final NativeJsonDecoder single = new NativeJsonDecoder(List.of("customer_id"));
    private final NativeJsonDecoder composite = new NativeJsonDecoder(List.of("order_id", "line_no"));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Decoded decode(NativeJsonDecoder d, String key, String value) {
        return d.decode(key == null ? null : bytes(key), value == null ? null : bytes(value), TS, "crm.customers", 2, 41L);
    }

    @Test
    void upsertIsTheNativeEventWithTheOffsetAsSeqAndTheRecordAsSource() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", "C1");
        data.put("email", "a@x");
        data.put("last_login", BigInteger.valueOf(17));

        assertThat(decode(single, "C1", "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\","
                + "\"data\":{\"customer_id\":\"C1\",\"email\":\"a@x\",\"last_login\":17}}"))
                .isEqualTo(Decoded.ok(Event.upsert(Instant.parse("2025-08-22T17:00:00Z"), data, 41L, SRC)));
    }

    @Test
    void tombstoneWithAJsonObjectKeyDeletesThatKeyAtTheRecordTimestamp() {
        assertThat(decode(composite, "{\"order_id\":\"O1\",\"line_no\":2}", null))
                .isEqualTo(Decoded.ok(Event.delete(Instant.parse("2025-08-22T21:00:00Z"),
                        Map.of("order_id", "O1", "line_no", BigInteger.TWO), 41L, SRC)));
    }

    @Test
    void tombstoneWithAPlainStringKeyOrAJsonStringKeyDeletesTheSingleKeyColumn() {
        Decoded expected = Decoded.ok(Event.delete(Instant.parse("2025-08-22T21:00:00Z"), Map.of("customer_id", "C1"), 41L, SRC));

        assertThat(List.of(decode(single, "C1", null), decode(single, "\"C1\"", null))).isEqualTo(List.of(expected, expected));
    }

    @Test
    void tombstoneThatNamesNoKeyIsAnError() {
        assertThat(List.of(decode(single, null, null), decode(composite, "O1", null),
                single.decode(bytes("C1"), null, -1L, "crm.customers", 2, 41L)))
                .isEqualTo(List.of(
                        Decoded.error("tombstone (null value) without a record key: no key to delete"),
                        Decoded.error("tombstone key is not a JSON object of the key columns [order_id, line_no]: O1"),
                        Decoded.error("tombstone (null value) without a record timestamp: no time to delete at")));
    }

    @Test
    void tombstoneKeyWithContentAfterItsJsonValueIsAnErrorButAPlainKeyIsItsText() {
        Instant at = Instant.parse("2025-08-22T21:00:00Z");
        assertThat(List.of(decode(single, "{\"customer_id\":\"C1\"}{\"customer_id\":\"C2\"}", null),
                decode(single, "\"C1\" \"C2\"", null), decode(single, "2024 Q1", null), decode(single, "{\"customer_id\":\"C1\"} \n", null)))
                .isEqualTo(List.of(
                        Decoded.error("tombstone key has trailing content after the JSON value at byte 20"),
                        Decoded.error("tombstone key has trailing content after the JSON value at byte 5"),
                        Decoded.ok(Event.delete(at, Map.of("customer_id", "2024 Q1"), 41L, SRC)),
                        Decoded.ok(Event.delete(at, Map.of("customer_id", "C1"), 41L, SRC))));
    }

    @Test
    void badJsonAndUnknownOpAreErrorsWithTheParsersReason() {
        assertThat(List.of(decode(single, "C1", "{not json"),
                decode(single, "C1", "{\"op\":\"merge\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{}}")))
                .isEqualTo(List.of(
                        Decoded.error("not valid JSON: Unexpected character ('n' (code 110)): was expecting double-quote to start field name"),
                        Decoded.error("field 'op' has unknown value \"merge\" (expected \"upsert\" or \"delete\")")));
    }

    @Test
    void badTimeIsLeftToTheValidatorAsTheEventsBadTimeReason() {
        assertThat(decode(single, "C1", "{\"op\":\"delete\",\"event_time\":\"yesterday\",\"data\":{\"customer_id\":\"C1\"}}"))
                .isEqualTo(Decoded.ok(new Event(Op.DELETE, null, Map.of("customer_id", "C1"), 41L, SRC,
                        "event_time is not an ISO-8601 instant with offset: \"yesterday\"")));
    }
}
