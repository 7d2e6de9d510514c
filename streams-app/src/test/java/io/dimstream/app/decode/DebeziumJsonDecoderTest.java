package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DebeziumJsonDecoderTest {

    private static final Source SRC = Source.kafka("pg.public.customers", 1, 9L);
    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");
    private static final long MS = T.toEpochMilli();
    private static final String ROW_1 = "{\"customer_id\":\"C1\",\"city\":\"Oslo\",\"visits\":3}";
    private static final Map<String, Object> ROW_1_MAP = Map.of("customer_id", "C1", "city", "Oslo", "visits", BigInteger.valueOf(3));

    private final DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();

    private Decoded decode(String value) {
        return decoder.decode("{\"customer_id\":\"C1\"}".getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), 0L, "pg.public.customers", 1, 9L);
    }

    /** source.ts_ms is T (the commit); ts_ms, when given, the connector's later time. */
    private static String envelope(String op, String before, String after, String tsMs) {
        return "{\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"connector\":\"postgresql\",\"ts_ms\":"
                + MS + "},\"op\":\"" + op + "\"" + (tsMs == null ? "" : ",\"ts_ms\":" + tsMs) + "}";
    }

    private static String wrapped(String payload) {
        return "{\"schema\":{\"type\":\"struct\",\"name\":\"pg.public.customers.Envelope\"},\"payload\":" + payload + "}";
    }

    @Test
    void createUpdateAndSnapshotReadAreUpsertsOfTheAfterImage() {
        Decoded upsert = Decoded.ok(Event.upsert(T, ROW_1_MAP, 9L, SRC));

        assertThat(List.of(
                decode(envelope("c", "null", ROW_1, Long.toString(MS))),
                decode(envelope("u", "{\"customer_id\":\"C1\",\"city\":\"Bergen\",\"visits\":2}", ROW_1, Long.toString(MS))),
                decode(envelope("r", "null", ROW_1, Long.toString(MS)))))
                .isEqualTo(List.of(upsert, upsert, upsert));
    }

    @Test
    void deleteIsADeleteOfTheBeforeImage() {
        assertThat(decode(envelope("d", ROW_1, "null", Long.toString(MS))))
                .isEqualTo(Decoded.ok(Event.delete(T, ROW_1_MAP, 9L, SRC)));
    }

    @Test
    void schemaPayloadWrapperIsUnwrapped() {
        assertThat(List.of(decode(wrapped(envelope("u", "null", ROW_1, Long.toString(MS)))),
                decode(wrapped(envelope("d", ROW_1, "null", Long.toString(MS))))))
                .isEqualTo(List.of(Decoded.ok(Event.upsert(T, ROW_1_MAP, 9L, SRC)), Decoded.ok(Event.delete(T, ROW_1_MAP, 9L, SRC))));
    }

    @Test
    void theCommitTimeIsTheEventTimeWhateverTheConnectorsTsMsSays() {
        assertThat(List.of(decode(envelope("c", "null", ROW_1, null)), decode(envelope("c", "null", ROW_1, Long.toString(MS + 90_000))),
                decode(envelope("c", "null", ROW_1, "\"soon\""))))
                .isEqualTo(List.of(Decoded.ok(Event.upsert(T, ROW_1_MAP, 9L, SRC)), Decoded.ok(Event.upsert(T, ROW_1_MAP, 9L, SRC)),
                        Decoded.ok(Event.upsert(T, ROW_1_MAP, 9L, SRC))));
    }

    @Test
    void tombstoneAfterADeleteIsSkippedInBothShapes() {
        Decoded skip = Decoded.skip("Debezium tombstone (null value) after a delete");

        assertThat(List.of(decode(null), decode("{\"schema\":null,\"payload\":null}"))).isEqualTo(List.of(skip, skip));
    }

    @Test
    void badEnvelopesAreErrorsWithAPreciseReason() {
        assertThat(List.of(
                decode(envelope("x", "null", "null", Long.toString(MS))),
                decode("{\"before\":null,\"after\":" + ROW_1 + ",\"op\":\"c\",\"ts_ms\":" + MS + "}"),
                decode("{\"after\":" + ROW_1 + ",\"ts_ms\":1}"),
                decode(envelope("c", "null", "null", Long.toString(MS))),
                decode(envelope("d", "null", "null", Long.toString(MS))),
                decode("{\"after\":" + ROW_1 + ",\"source\":{\"ts_ms\":\"soon\"},\"op\":\"c\"}"),
                decode("not json")))
                .isEqualTo(List.of(
                        Decoded.error("Debezium op \"x\" unknown (expected c, u, r, d, t or m)"),
                        Decoded.error("source.ts_ms missing (event-time: source.ts_ms, the default; event-time: ts_ms takes the "
                                + "connector's processing time instead)"),
                        Decoded.error("Debezium field 'op' is missing"),
                        Decoded.error("Debezium op \"c\" has no 'after' row image"),
                        Decoded.error("Debezium op \"d\" has no 'before' row image"),
                        Decoded.error("source.ts_ms is not epoch milliseconds: \"soon\""),
                        Decoded.error("not valid JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")));
    }
}
