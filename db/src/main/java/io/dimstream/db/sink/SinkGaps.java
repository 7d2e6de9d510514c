package io.dimstream.db.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * {@code dimstream.sink_gaps}: ranges of a changes-topic partition the sink skipped because they
 * had left the partition's log before it read them (only with {@code sink.on-offset-out-of-range:
 * skip}). Recorded in the transaction that moves the stored offset past the gap.
 */
public final class SinkGaps {

    private SinkGaps() {
    }

    /**
     * Moves the partition's stored offset from {@code from} (what the sink expected) to {@code to}
     * (where the log now starts) and records the gap, in one transaction on the caller's
     * connection; fenced like a batch. {@code to < from} when the topic was recreated: its log
     * starts over below the stored offset.
     *
     * @return false when the fence failed (another instance moved the partition meanwhile): nothing written
     */
    public static boolean skip(Connection c, String group, String entity, PartitionRef tp, long from, long to) throws SQLException {
        if (to == from) {
            throw new IllegalArgumentException(tp + ": no gap between offset " + from + " and itself");
        }
        SinkOffsets.lock(c, group, tp);
        if (!SinkOffsets.advance(c, group, tp, java.util.OptionalLong.of(from), to)) {
            return false;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.sink_gaps (consumer_group, entity, topic, partition, "
                + "from_offset, to_offset) VALUES (?, ?, ?, ?, ?, ?)")) {
            p.setString(1, group);
            p.setString(2, entity);
            p.setString(3, tp.topic());
            p.setInt(4, tp.partition());
            p.setLong(5, from);
            p.setLong(6, to);
            p.executeUpdate();
        }
        return true;
    }
}
