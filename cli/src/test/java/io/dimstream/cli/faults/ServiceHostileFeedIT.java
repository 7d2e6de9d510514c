package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's hostile feed through the real service ({@code dimstream run} in a child JVM, a real
 * broker and PostgreSQL): good events with every class of hostile record interleaved, each on a key
 * of its own and on a key that also has good events. At the end the table equals the reference
 * model of the good events row by row, every bad record is in the DLQ (mirrored into
 * {@code dimstream.dlq_records}) or the sink's rejects with its reason, and the service is ready.
 */
class ServiceHostileFeedIT {

    private static final String RANGE = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";

    /** A hostile record: its key, its value, and the reason the DLQ or the rejects must give. */
    private record Hostile(String key, byte[] value, String reason) {
    }

    private static String upsert(String time, String id, String fields) {
        return "{\"op\":\"upsert\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\"" + fields + "}}";
    }

    private static Hostile json(String key, String time, String fields, String reason) {
        return new Hostile(key, upsert(time, key, fields).getBytes(StandardCharsets.UTF_8), reason);
    }

    /** Every class, on {@code key}; {@code n} makes the event times distinct. */
    private static List<Hostile> hostile(String key, int n) {
        String t = "2025-08-0" + (2 + n) + "T12:00:0";
        List<Hostile> out = new ArrayList<>();
        out.add(json(key, t + "1Z", ",\"email\":\"a\\u0000b\"",
                "column 'email': text contains a NUL character (U+0000), which PostgreSQL cannot store"));
        out.add(json(key, t + "2Z", ",\"email\":\"\\ud800\"",
                "column 'email': text contains an unpaired UTF-16 surrogate (U+D800 at character 0), which UTF-8 cannot encode"));
        out.add(json(key, "+300000-01-01T00:00:00Z", ",\"email\":\"x\"", "event_time \"+300000-01-01T00:00:00Z\"" + RANGE));
        out.add(json(key, "0000-06-01T00:00:00Z", ",\"email\":\"x\"", "event_time \"0000-06-01T00:00:00Z\"" + RANGE));
        out.add(json(key, t + "3Z", ",\"seen_at\":\"+10000-01-01T00:00:00Z\"",
                "column 'seen_at': timestamp +10000-01-01T00:00:00Z" + RANGE));
        out.add(json(key, t + "4Z", ",\"signup\":\"+10000000-01-01\"",
                "column 'signup': date +10000000-01-01 is outside the supported range 0001-01-01 to 9999-12-31"));
        out.add(json(key, t + "5Z", ",\"credit\":\"1e900000000\"",
                "column 'credit': numeric 1E+900000000 has 900000001 digits before the decimal point; PostgreSQL's numeric holds at most 131072"));
        out.add(json(key, t + "6Z", ",\"credit\":1e-20000",
                "column 'credit': numeric 1E-20000 has 20000 digits after the decimal point; PostgreSQL's numeric holds at most 16383"));
        out.add(json(key, t + "7Z", ",\"last_login\":9223372036854775808", "column 'last_login': value 9223372036854775808 is out of range for bigint"));
        out.add(json(key, t + "8Z", ",\"email\":" + "[".repeat(100_000) + "]".repeat(100_000),
                "JSON beyond dimstream's input limits: Document nesting depth (65) exceeds the maximum allowed (64, from "
                        + "`StreamReadConstraints.getMaxNestingDepth()`)"));
        out.add(json(key, t + "9Z", ",\"email\":[" + "1,".repeat(399_999) + "1]", "column 'email': expected text, got array of 400000 elements"));
        byte[] notUtf8 = upsert(t + "0Z", key, ",\"email\":\"x\"").getBytes(StandardCharsets.UTF_8);
        int bad = notUtf8.length - 10;
        notUtf8[bad] = (byte) 0xff;
        out.add(new Hostile(key, notUtf8, "not valid UTF-8: malformed byte sequence at byte " + bad));
        return out;
    }

    @Test
    void everyGoodEventLandsAndEveryBadRecordIsInTheDlqOrTheRejectsWithItsReason(@TempDir Path dir) throws Exception {
        // the fault tests of one JVM share a database, and every harness names its entity customer:
        // this test's DLQ rows are the ones mirrored after it started
        long started = lastDlqId();
        try (ServiceHarness h = ServiceHarness.start(dir, "hostile_it")) {
            // a rule of the table's own that the event validation cannot know: PostgreSQL refuses these
            try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + h.table + " ADD CONSTRAINT no_atlantis CHECK (city <> 'Atlantis')");
            }
            List<CustomerFeed.FeedRecord> good = ServiceHarness.feed(13, 20, 240);
            String shared = new String(good.get(0).key(), StandardCharsets.UTF_8);
            List<Hostile> bad = new ArrayList<>(hostile("HOSTILE", 0));
            bad.addAll(hostile(shared, 1));
            bad.add(json("K".repeat(4000), "2025-08-05T12:00:00Z", ",\"email\":\"x\"", "key (customer_id) is 4000 bytes long as text; "
                    + "at most 2000 bytes fit PostgreSQL's indexes on the key (an index entry holds at most about 2700 bytes)"));
            String sqlRefused = "PostgreSQL refused the event: ERROR: new row for relation \"" + h.table
                    + "\" violates check constraint \"no_atlantis\"";
            List<Hostile> refused = List.of(
                    json("ATLANTIS", "2025-08-06T12:00:00Z", ",\"email\":\"a@x\",\"city\":\"Atlantis\"", sqlRefused),
                    json(shared, "2025-08-06T12:00:01Z", ",\"email\":\"b@x\",\"city\":\"Atlantis\"", sqlRefused));
            // near Kafka's 1 MB limit: a valid upsert that lands, and a record that is no JSON, cut in the DLQ
            String bigEmail = "m".repeat(1_040_000);
            byte[] huge = new byte[1_048_000];
            java.util.Arrays.fill(huge, (byte) '#');

            // interleave: a good event, then a hostile one, ...
            List<CustomerFeed.FeedRecord> produced = new ArrayList<>();
            List<Hostile> all = new ArrayList<>(bad);
            all.addAll(refused);
            int g = 0;
            for (Hostile x : all) {
                produced.add(good.get(g++));
                produced.add(new CustomerFeed.FeedRecord(x.key().getBytes(StandardCharsets.UTF_8), x.value(), "hostile"));
            }
            produced.add(new CustomerFeed.FeedRecord("BIG".getBytes(StandardCharsets.UTF_8),
                    upsert("2025-08-07T12:00:00Z", "BIG", ",\"email\":\"" + bigEmail + "\"").getBytes(StandardCharsets.UTF_8), "big"));
            produced.add(new CustomerFeed.FeedRecord("HUGE".getBytes(StandardCharsets.UTF_8), huge, "huge"));
            produced.addAll(good.subList(g, good.size()));

            int port = ServiceHarness.freePort();
            Process service = h.startService("data", port);
            h.awaitRunning(service);
            h.produce(produced);

            List<io.dimstream.db.write.ExpectedRow> expected = h.expected(produced,
                    e -> !"Atlantis".equals(e.data().get("city")));
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(service.isAlive()).as("the service is running").isTrue();
                assertThat(h.rows()).isEqualTo(expected);
            });

            // the DLQ (mirrored into PostgreSQL by the service): every record refused before the sink, with its reason
            Map<String, List<String>> expectedDlq = new TreeMap<>();
            for (Hostile x : bad) {
                expectedDlq.computeIfAbsent(x.key().length() > 40 ? x.key().substring(0, 40) + "..." : x.key(), k -> new ArrayList<>())
                        .add(x.reason());
            }
            expectedDlq.put("HUGE", new ArrayList<>(List.of("not valid JSON: Unexpected character ('#' (code 35)): expected a valid value (JSON String, "
                    + "Number, Array, Object or token 'null', 'true' or 'false')")));
            // the generated feed's own malformed records (CustomerFeed makes a few), with the reasons the edge gives
            io.dimstream.db.event.EventValidator validator = new io.dimstream.db.event.EventValidator(h.customer);
            for (CustomerFeed.FeedRecord r : good) {
                io.dimstream.db.event.NativeEventJson.Parsed p = io.dimstream.db.event.NativeEventJson.parse(r.value(), 0,
                        io.dimstream.db.event.Source.kafka(ServiceHarness.TOPIC, 0, 0));
                String reason = p.event() == null ? p.rejection().reason() : validator.validate(p.event()).ok() ? null
                        : validator.validate(p.event()).rejection().reason();
                if (reason != null) {
                    expectedDlq.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>()).add(reason);
                }
            }
            expectedDlq.values().forEach(l -> l.sort(null));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(dlq(h.applicationId + ".customer.dlq", started)).isEqualTo(expectedDlq));
            // 1,048,000 bytes plus the reason headers still fit the DLQ topic's 1 MB limit: kept whole
            // (a record that does not fit is cut with dimstream.truncated headers: OversizeRecordsIT)
            assertThat(dlqValue("HUGE")).isEqualTo(Map.entry(1_048_000, false));

            // the sink's rejects: the values PostgreSQL refused, with its SQL state; the rest of their batches landed
            assertThat(rejects()).isEqualTo(List.of("23514|" + sqlRefused, "23514|" + sqlRefused));

            Map.Entry<Integer, String> ready = ServiceHarness.get(port, "/health/ready");
            assertThat(ready.getKey()).as(ready.getValue()).isEqualTo(200);
        }
    }

    private static long lastDlqId() throws Exception {
        try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(max(id), 0) FROM dimstream.dlq_records")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The mirrored DLQ topic of the customer entity after row {@code afterId}: by key (cut at 40 characters), the reasons, sorted. */
    private static Map<String, List<String>> dlq(String topic, long afterId) throws Exception {
        Map<String, List<String>> out = new TreeMap<>();
        try (Connection c = TestPostgres.dataSource().getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT convert_from(key, 'UTF8'), error FROM dimstream.dlq_records WHERE entity = 'customer' "
                        + "AND dlq_topic = ? AND id > ?")) {
            p.setString(1, topic);
            p.setLong(2, afterId);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String k = rs.getString(1);
                    out.computeIfAbsent(k.length() > 40 ? k.substring(0, 40) + "..." : k, x -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        out.values().forEach(l -> l.sort(null));
        return out;
    }

    /** A DLQ record's value length, and whether it carries the dimstream.truncated header. */
    private static Map.Entry<Integer, Boolean> dlqValue(String key) throws Exception {
        try (Connection c = TestPostgres.dataSource().getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT octet_length(value), headers @> '[{\"name\": \"dimstream.truncated\"}]' FROM dimstream.dlq_records "
                        + "WHERE convert_from(key, 'UTF8') = ? ORDER BY id DESC LIMIT 1")) {
            p.setString(1, key);
            try (ResultSet rs = p.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return Map.entry(rs.getInt(1), rs.getBoolean(2));
            }
        }
    }

    /** sql_state|reason of the customer entity's sink rejects, in offset order. */
    private static List<String> rejects() throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = TestPostgres.dataSource().getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT sql_state, reason FROM dimstream.sink_rejects WHERE entity = 'customer' AND consumer_group = 'faults-hostile_it-sink' "
                        + "ORDER BY partition, \"offset\"")) {
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2));
                }
            }
        }
        return out;
    }
}
