package io.dimstream.db.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KeyIncidentsTest {

    static final DataSource DS = TestPostgres.dataSource();
    static final Instant T1 = Instant.parse("2025-01-01T00:00:00Z");
    static final Instant T2 = Instant.parse("2025-01-02T00:00:00Z");
    static long q1;
    static long q3;
    static long q4;
    static long d1;
    static long d3;

    @BeforeAll
    static void insert() throws Exception {
        q1 = quarantine("ki_one", "{\"id\": \"K1\"}", T1, 1, "beyond the horizon", "pending");
        quarantine("ki_one", "{\"id\": \"K10\"}", T1, 2, "beyond the horizon", "pending");
        q3 = quarantine("ki_one", "{\"id\": \"K1\"}", T2, 3, "at or before the prune point", "discarded");
        q4 = quarantine("ki_two", "{\"region\": \"eu\", \"account_no\": 7}", T1, 4, "beyond the horizon", "applied");
        quarantine("ki_two", "{\"region\": \"eu\", \"account_no\": 8}", T1, 5, "beyond the horizon", "pending");
        quarantine("ki_other", "{\"id\": \"K1\"}", T1, 6, "beyond the horizon", "pending");
        d1 = dlq("ki_one", "K1", 0, "not JSON");
        dlq("ki_one", "K10", 1, "not JSON");
        d3 = dlq("ki_one", "K1", 2, "missing field");
        dlq("ki_other", "K1", 3, "not JSON");
    }

    static long quarantine(String entity, String key, Instant t, long seq, String reason, String status) throws Exception {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.quarantine (entity, event_key, event_time, event, seq, reason, source_topic, source_partition, "
                        + "source_offset, status) VALUES (?, ?::jsonb, ?, '{}'::jsonb, ?, ?, 't', 0, ?, ?) RETURNING id")) {
            p.setString(1, entity);
            p.setString(2, key);
            p.setObject(3, t.atOffset(ZoneOffset.UTC));
            p.setLong(4, seq);
            p.setString(5, reason);
            p.setLong(6, seq * 10);
            p.setString(7, status);
            try (var rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static long dlq(String entity, String key, long offset, String error) throws Exception {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.dlq_records (entity, source_topic, source_partition, source_offset, dlq_topic, dlq_partition, "
                        + "dlq_offset, key, value, error, record_timestamp) VALUES (?, 't', 0, ?, 't.dlq', 0, ?, ?, ?, ?, ?) RETURNING id")) {
            p.setString(1, entity);
            p.setLong(2, offset + 100);
            p.setLong(3, offset);
            p.setBytes(4, key.getBytes(StandardCharsets.UTF_8));
            p.setBytes(5, "x".getBytes(StandardCharsets.UTF_8));
            p.setString(6, error);
            p.setObject(7, T1.atOffset(ZoneOffset.UTC));
            try (var rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void quarantinedRowsOfOneKeyNewestFirstNotThoseOfAKeySharingItsPrefixOrOfAnotherEntity() throws Exception {
        assertThat(new KeyIncidents(DS).quarantined("ki_one", Map.of("id", "K1"))).containsExactly(
                new KeyIncidents.Quarantined(q3, T2, "at or before the prune point", "discarded", "t", 0, 30L),
                new KeyIncidents.Quarantined(q1, T1, "beyond the horizon", "pending", "t", 0, 10L));
    }

    @Test
    void aCompositeKeyWithANumberMatchesByTheTextOfEachColumn() throws Exception {
        Map<String, String> key = new LinkedHashMap<>();
        key.put("region", "eu");
        key.put("account_no", "7");
        assertThat(new KeyIncidents(DS).quarantined("ki_two", key)).containsExactly(
                new KeyIncidents.Quarantined(q4, T1, "beyond the horizon", "applied", "t", 0, 40L));
    }

    @Test
    void deadLetteredRecordsWhoseKafkaKeyIsTheKeysText() throws Exception {
        assertThat(new KeyIncidents(DS).deadLettered("ki_one", Map.of("id", "K1"))).containsExactly(
                new KeyIncidents.DeadLettered(d3, "missing field", "t", 0, 102L, T1, "none"),
                new KeyIncidents.DeadLettered(d1, "not JSON", "t", 0, 100L, T1, "none"));
        // a composite key is never a record's raw key text: nothing is claimed
        assertThat(new KeyIncidents(DS).deadLettered("ki_two", Map.of("region", "eu", "account_no", "7"))).isEqualTo(List.of());
    }
}
