package io.dimstream.db.read;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The quarantine and DLQ rows of one key of an entity: the "neighbours" the history page links to.
 *
 * <p>Quarantine rows carry the key as {@code event_key} (a JSON object, column name to value): a
 * row matches when {@code event_key ->> column} equals the key's text for every key column, so a
 * bigint key given as {@code 7} finds {@code {"account_no": 7}}. DLQ mirror rows carry the raw
 * Kafka record key ({@code bytea}); a row matches when those bytes are exactly the UTF-8 text of
 * the key (one key column, the way the demo and most producers key their records). Records keyed
 * otherwise (Avro or JSON keys, composite keys) are not found by key; the DLQ page lists them all.
 * Both tables are read by {@code entity} (their indexes) and filtered: a few rows per key.
 */
public final class KeyIncidents {

    /** Rows of each kind returned at most (newest first). */
    public static final int LIMIT = 20;

    /** A quarantined event of the key. */
    public record Quarantined(long id, Instant eventTime, String reason, String status, String sourceTopic,
                              Integer sourcePartition, Long sourceOffset) {
    }

    /** A DLQ mirror row of the key. */
    public record DeadLettered(long id, String error, String sourceTopic, Integer sourcePartition, Long sourceOffset,
                               Instant recordTimestamp, String redriveState) {
    }

    private final DataSource ds;

    public KeyIncidents(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /**
     * @param keyTexts key column to the key's text, in key order
     */
    public List<Quarantined> quarantined(String entity, Map<String, String> keyTexts) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT id, event_time, reason, status, source_topic, source_partition, source_offset "
                + "FROM dimstream.quarantine WHERE entity = ?");
        for (int i = 0; i < keyTexts.size(); i++) {
            sql.append(" AND event_key ->> ? = ?");
        }
        sql.append(" ORDER BY id DESC LIMIT ").append(LIMIT);
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql.toString())) {
            int i = 1;
            p.setString(i++, entity);
            for (Map.Entry<String, String> k : keyTexts.entrySet()) {
                p.setString(i++, k.getKey());
                p.setString(i++, k.getValue());
            }
            List<Quarantined> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Quarantined(rs.getLong(1), Columns.instant(rs, 2), rs.getString(3), rs.getString(4), rs.getString(5),
                            (Integer) rs.getObject(6), (Long) rs.getObject(7)));
                }
            }
            return out;
        }
    }

    /**
     * @param keyTexts key column to the key's text, in key order
     */
    public List<DeadLettered> deadLettered(String entity, Map<String, String> keyTexts) throws SQLException {
        String sql = "SELECT id, error, source_topic, source_partition, source_offset, record_timestamp, redrive_state "
                + "FROM dimstream.dlq_records WHERE entity = ? AND key = ? ORDER BY id DESC LIMIT " + LIMIT;
        if (keyTexts.size() != 1) {
            return List.of();
        }
        byte[] plain = keyTexts.values().iterator().next().getBytes(StandardCharsets.UTF_8);
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, entity);
            p.setBytes(2, plain);
            List<DeadLettered> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new DeadLettered(rs.getLong(1), rs.getString(2), rs.getString(3), (Integer) rs.getObject(4),
                            (Long) rs.getObject(5), Columns.instant(rs, 6), rs.getString(7)));
                }
            }
            return out;
        }
    }
}
