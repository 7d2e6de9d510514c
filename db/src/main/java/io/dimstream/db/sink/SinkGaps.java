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
 * {@code dimstream.sink_gaps}: ranges of a changes-topic partition the sink skipped because they
 * had left the partition's log before it read them (only with {@code sink.on-offset-out-of-range:
 * skip}). Recorded in the transaction that moves the stored offset past the gap.
 */
public final class SinkGaps {

    /** One recorded gap: the offsets {@code [fromOffset, toOffset)} of a partition that were never applied. */
    public record Gap(long id, String consumerGroup, String entity, String topic, int partition, long fromOffset, long toOffset,
                      Instant detectedAt) {
    }

    private SinkGaps() {
    }

    /** The newest gaps, of one entity or (null) all. */
    public static List<Gap> recent(DataSource ds, String entity, int limit) throws SQLException {
        List<Gap> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT id, consumer_group, entity, topic, "
                + "partition, from_offset, to_offset, detected_at FROM dimstream.sink_gaps WHERE (?::text IS NULL OR entity = ?) "
                + "ORDER BY id DESC LIMIT ?")) {
            p.setString(1, entity);
            p.setString(2, entity);
            p.setInt(3, limit);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Gap(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5), rs.getLong(6),
                            rs.getLong(7), rs.getObject(8, OffsetDateTime.class).toInstant()));
                }
            }
        }
        return out;
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
