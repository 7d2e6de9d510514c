package io.dimstream.db.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * {@code dimstream.sink_rejects}: what the sink could not apply, written in the batch's own
 * transaction beside the offsets, so a record is either applied or here, never lost and never
 * skipped silently. A record read again after a rollback is kept once per consumer group.
 */
public final class SinkRejects {

    /**
     * One reject as the admin shows it: its value cut to a preview in the database.
     *
     * @param consumerGroup the live sink's group, or {@code replay-<job id>} for a replay job's
     * @param valuePreview  the first bytes of the record's value (null for a null value)
     * @param valueLength   the whole value's length in bytes
     */
    public record Row(long id, String consumerGroup, String topic, int partition, long offset, String entity, String reason,
                      String sqlState, Instant rejectedAt, byte[] valuePreview, int valueLength) {
    }

    private SinkRejects() {
    }

    /** The newest rejects, of one entity or (null) all, the values cut to {@code previewBytes} by PostgreSQL. */
    public static List<Row> recent(DataSource ds, String entity, int limit, int previewBytes) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT id, consumer_group, topic, partition, "
                + "\"offset\", entity, reason, sql_state, rejected_at, substring(value FROM 1 FOR ?), octet_length(value) "
                + "FROM dimstream.sink_rejects WHERE (?::text IS NULL OR entity = ?) ORDER BY id DESC LIMIT ?")) {
            p.setInt(1, previewBytes);
            p.setString(2, entity);
            p.setString(3, entity);
            p.setInt(4, limit);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getLong(5), rs.getString(6),
                            rs.getString(7), rs.getString(8), rs.getObject(9, OffsetDateTime.class).toInstant(), rs.getBytes(10),
                            rs.getInt(11)));
                }
            }
        }
        return out;
    }

    /** Inserts the rejects on the caller's connection, inside the batch's transaction. */
    public static void insert(Connection c, String group, List<SinkReject> rejects) throws SQLException {
        if (rejects.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.sink_rejects (consumer_group, topic, partition, "
                + "\"offset\", entity, reason, sql_state, key, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (consumer_group, topic, partition, \"offset\") DO NOTHING")) {
            for (SinkReject r : rejects) {
                p.setString(1, group);
                p.setString(2, r.partition().topic());
                p.setInt(3, r.partition().partition());
                p.setLong(4, r.offset());
                p.setString(5, r.entity());
                p.setString(6, r.reason());
                p.setString(7, r.sqlState());
                p.setBytes(8, r.key());
                p.setBytes(9, r.value());
                p.addBatch();
            }
            p.executeBatch();
        }
    }
}
