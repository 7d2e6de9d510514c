package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.counts;
import static io.dimstream.app.topology.TopologyFixtures.deadLetters;
import static io.dimstream.app.topology.TopologyFixtures.dlqHeaders;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.decode.DebeziumJsonDecoder;
import io.dimstream.app.decode.NativeJsonDecoder;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.event.Op;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Good events interleaved with one record of each hostile class: the changes topic carries exactly
 * the good changes, the DLQ exactly each bad record, its bytes unchanged, with its reason. Before,
 * an extreme event time killed the stream thread (for good: the replacement met the same record),
 * and the values PostgreSQL refuses went on to stall the sink.
 */
class TopologyHostileInputTest {

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
    private static final String PRODUCTS = "shop.products";
    private static final String RANGE = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";

    /** product: key product_id; tracked email, amount numeric(8,2), total numeric; type-1 last_login bigint. */
    static final EntitySpec PRODUCT = product();

    private static EntitySpec product() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("product_id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("total", ColumnType.NUMERIC);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name("product")
                .table("dim_product")
                .key(List.of("product_id"))
                .tracked(List.of("email", "amount", "total"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(Optional.of(Duration.ofDays(30)))
                .modifiers(Map.of("amount", new TypeModifier.Precision(8, 2)))
                .build();
    }

    @TempDir
    Path stateDir;

    private static String event(String time, String id, String email, String amount, String total, String lastLogin) {
        return "{\"op\":\"upsert\",\"event_time\":\"" + time + "\",\"data\":{\"product_id\":\"" + id + "\",\"email\":" + email
                + ",\"amount\":" + amount + ",\"total\":" + total + ",\"last_login\":" + lastLogin + "}}";
    }

    private static String good(String time, String id, String email) {
        return event(time, id, "\"" + email + "\"", "1.005", "\"2\"", "7");
    }

    @Test
    void nativeJsonHostileRecordsGoToTheDlqWithTheirReasonsAndTheGoodOnesPass() {
        String t = "2025-08-22T17:00:00Z";
        List<String> hostile = List.of(
                event(t, "H1", "\"a\\u0000b\"", "1", "1", "1"),
                event(t, "H2", "\"\\ud800\"", "1", "1", "1"),
                event("+300000-01-01T00:00:00Z", "H3", "\"x\"", "1", "1", "1"),
                event("0000-06-01T00:00:00Z", "H4", "\"x\"", "1", "1", "1"),
                event(t, "H5", "\"x\"", "1", "\"1e900000000\"", "1"),
                event(t, "H6", "\"x\"", "1", "1e-20000", "1"),
                event(t, "H7", "\"x\"", "1", "1", "1e900000000"),
                event(t, "K".repeat(4000), "\"x\"", "1", "1", "1"),
                event(t, "H9", "[" + "[".repeat(100_000) + "]".repeat(100_000) + "]", "1", "1", "1"),
                // the largest array that fits Kafka's default record limit of 1 MB (a bigger record
                // could not be produced to a default source topic; its DLQ copy would be cut, OversizeRecordsIT)
                event(t, "H10", "[" + "1,".repeat(399_999) + "1]", "1", "1", "1"),
                event(t, "H11", "\"x\"", "1e7", "1", "1"));
        List<String> reasons = List.of(
                "column 'email': text contains a NUL character (U+0000), which PostgreSQL cannot store",
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode",
                "event_time \"+300000-01-01T00:00:00Z\"" + RANGE,
                "event_time \"0000-06-01T00:00:00Z\"" + RANGE,
                "column 'total': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072",
                "column 'total': numeric 1E-20000 has 20000 digits after the decimal point; PostgreSQL's numeric holds at most 16383",
                "column 'last_login': value 1E+900000000 is out of range for bigint",
                "key (product_id) is 4000 bytes long as text; at most 2000 bytes fit PostgreSQL's indexes on the key "
                        + "(an index entry holds at most about 2700 bytes)",
                "JSON beyond dimstream's input limits: Document nesting depth (65) exceeds the maximum allowed "
                        + "(64, from `StreamReadConstraints.getMaxNestingDepth()`)",
                "column 'email': expected text, got array of 400000 elements",
                "column 'amount': numeric 1E+7 does not fit numeric(8,2): it must round to an absolute value less than 10^6");
        byte[] notUtf8 = good(t, "H12", "x").getBytes(StandardCharsets.UTF_8);
        notUtf8[notUtf8.length - 60] = (byte) 0xff;
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(PRODUCT)
                .sourceTopic(PRODUCTS)
                .decoder(new NativeJsonDecoder(PRODUCT.key()))
                .changesTopic("dimstream.product.changes")
                .dlqTopic("shop.products.dlq")
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        List<DeadLetter> expectedDlq = new ArrayList<>();
        try (TopologyTestDriver driver = driver(List.of(pipeline), registry, stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, PRODUCTS);
            long offset = 0;
            in.pipeInput(utf8("P1"), utf8(good("2025-08-22T17:00:00Z", "P1", "a@x")), NOW);
            offset++;
            for (int i = 0; i < hostile.size(); i++) {
                in.pipeInput(utf8("k"), utf8(hostile.get(i)), NOW);
                expectedDlq.add(new DeadLetter("k", hostile.get(i), dlqHeaders(reasons.get(i), "product", PRODUCTS, offset++)));
                if (i == 5) {
                    in.pipeInput(utf8("P2"), utf8(good("2025-08-22T17:30:00Z", "P2", "b@x")), NOW); // good records in between
                    offset++;
                }
            }
            in.pipeInput(utf8("k"), notUtf8, NOW);
            int bad = notUtf8.length - 60;
            expectedDlq.add(new DeadLetter("k", new String(notUtf8, StandardCharsets.UTF_8),
                    dlqHeaders("not valid UTF-8: malformed byte sequence at byte " + bad, "product", PRODUCTS, offset++)));
            in.pipeInput(utf8("P1"), utf8(good("2025-08-22T18:00:00Z", "P1", "a@y")), NOW);

            assertThat(changes(output(driver, "dimstream.product.changes"))).isEqualTo(List.of(
                    product(ChangeClass.NEW, "2025-08-22T17:00:00Z", "P1", "a@x", 0),
                    product(ChangeClass.NEW, "2025-08-22T17:30:00Z", "P2", "b@x", 7),
                    product(ChangeClass.CHANGED, "2025-08-22T18:00:00Z", "P1", "a@y", offset)));
            List<TestRecord<byte[], byte[]>> dlq = output(driver, "shop.products.dlq").readRecordsToList();
            assertThat(deadLetters(dlq)).isEqualTo(expectedDlq);
            assertThat(dlq.get(dlq.size() - 1).value()).isEqualTo(notUtf8);
        }
        assertThat(counts(registry, "product")).isEqualTo(Map.of("new", 2.0, "changed", 1.0, "dlq", 12.0));
    }

    private static Change product(ChangeClass cls, String time, String id, String email, long offset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("product_id", id);
        data.put("email", email);
        data.put("amount", new BigDecimal("1.01")); // rounded to numeric(8,2) before it left the topology
        data.put("total", BigInteger.TWO);
        data.put("last_login", BigInteger.valueOf(7));
        return new Change("[\"" + id + "\"]", new ChangeRecord("product", cls, Op.UPSERT, Instant.parse(time), data, PRODUCTS, 0, offset));
    }

    @Test
    void debeziumRecordsWithExtremeTimestampsGoToTheDlqAndTheGoodOnesPass() {
        EntityPipeline pipeline = EntityPipeline.builder()
                .entity(TopologyDeadLetterTest.ACCOUNT)
                .sourceTopic("pg.accounts")
                .decoder(new DebeziumJsonDecoder())
                .changesTopic("dimstream.account.changes")
                .dlqTopic("pg.accounts.dlq")
                .build();
        // the time is source.ts_ms (the commit), whatever ts_ms says
        String create = "{\"after\":{\"account_id\":\"A1\",\"status\":\"open\"},\"op\":\"c\",\"source\":{\"ts_ms\":1755882000000},"
                + "\"ts_ms\":9223372036854775807}";
        String maxTs = "{\"after\":{\"account_id\":\"A2\",\"status\":\"open\"},\"op\":\"c\",\"source\":{\"ts_ms\":9223372036854775807}}";
        String minSourceTs = "{\"after\":{\"account_id\":\"A3\",\"status\":\"open\"},\"op\":\"c\",\"source\":{\"ts_ms\":-9223372036854775808}}";
        String hugeTs = "{\"after\":{\"account_id\":\"A4\",\"status\":\"open\"},\"op\":\"c\",\"source\":{\"ts_ms\":1e900000000}}";
        String update = "{\"after\":{\"account_id\":\"A1\",\"status\":\"closed\"},\"op\":\"u\",\"source\":{\"ts_ms\":1755885600000}}";

        try (TopologyTestDriver driver = driver(List.of(pipeline), new SimpleMeterRegistry(), stateDir)) {
            TestInputTopic<byte[], byte[]> in = input(driver, "pg.accounts");
            for (String v : List.of(create, maxTs, minSourceTs, hugeTs, update)) {
                in.pipeInput(utf8("{\"account_id\":\"A\"}"), utf8(v), NOW);
            }

            assertThat(changes(output(driver, "dimstream.account.changes"))).isEqualTo(List.of(
                    account(ChangeClass.NEW, "2025-08-22T17:00:00Z", "open", 0),
                    account(ChangeClass.CHANGED, "2025-08-22T18:00:00Z", "closed", 4)));
            assertThat(deadLetters(output(driver, "pg.accounts.dlq"))).isEqualTo(List.of(
                    new DeadLetter("{\"account_id\":\"A\"}", maxTs, dlqHeaders(
                            "source.ts_ms 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE, "account", "pg.accounts", 1)),
                    new DeadLetter("{\"account_id\":\"A\"}", minSourceTs, dlqHeaders(
                            "source.ts_ms -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE, "account", "pg.accounts", 2)),
                    new DeadLetter("{\"account_id\":\"A\"}", hugeTs, dlqHeaders("source.ts_ms 1E+900000000" + RANGE, "account", "pg.accounts", 3))));
        }
    }

    private static Change account(ChangeClass cls, String time, String status, long offset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("account_id", "A1");
        data.put("status", status);
        return new Change("[\"A1\"]", new ChangeRecord("account", cls, Op.UPSERT, Instant.parse(time), data, "pg.accounts", 0, offset));
    }
}
