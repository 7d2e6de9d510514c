package io.dimstream.db.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code dimstream.sink_rejects}: what the sink could not apply, written in the batch's own
 * transaction beside the offsets, so a record is either applied or here, never lost and never
 * skipped silently. A record read again after a rollback is kept once per consumer group.
 */
public final class SinkRejects {

    private SinkRejects() {
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
