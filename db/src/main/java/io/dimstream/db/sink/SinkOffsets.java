package io.dimstream.db.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The streaming sink's offsets in {@code dimstream.sink_offsets}: per consumer group and
 * topic-partition, the next changes-topic offset to apply. The only source of truth for where the
 * sink resumes, written in the same transaction as the rows a batch produced.
 */
public final class SinkOffsets {

    private SinkOffsets() {
    }

    /** The stored next offsets of {@code partitions}; a partition with no row is absent. */
    public static Map<PartitionRef, Long> read(Connection c, String group, Collection<PartitionRef> partitions) throws SQLException {
        Map<PartitionRef, Long> out = new HashMap<>();
        if (partitions.isEmpty()) {
            return out;
        }
        String[] topics = partitions.stream().map(PartitionRef::topic).toArray(String[]::new);
        Integer[] parts = partitions.stream().map(PartitionRef::partition).toArray(Integer[]::new);
        try (PreparedStatement p = c.prepareStatement("SELECT o.topic, o.partition, o.next_offset FROM dimstream.sink_offsets o "
                + "JOIN unnest(?::text[], ?::int[]) AS w(topic, partition) ON o.topic = w.topic AND o.partition = w.partition "
                + "WHERE o.consumer_group = ?")) {
            p.setArray(1, c.createArrayOf("text", topics));
            p.setArray(2, c.createArrayOf("int4", parts));
            p.setString(3, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.put(new PartitionRef(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        }
        return out;
    }

    /**
     * Locks the partition's offset row until the transaction ends ({@code SELECT ... FOR UPDATE})
     * and returns the stored next offset, empty when there is no row yet. Two instances briefly
     * owning the same partition during a rebalance queue here; the second then sees the first's
     * offset and is fenced.
     */
    public static OptionalLong lock(Connection c, String group, PartitionRef tp) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT next_offset FROM dimstream.sink_offsets "
                + "WHERE consumer_group = ? AND topic = ? AND partition = ? FOR UPDATE")) {
            p.setString(1, group);
            p.setString(2, tp.topic());
            p.setInt(3, tp.partition());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * Moves the partition's next offset from {@code expected} to {@code next}, fenced: only when
     * the stored value still is {@code expected} (no row, for an empty {@code expected}).
     *
     * @return false when the fence failed: another instance advanced the partition meanwhile
     */
    public static boolean advance(Connection c, String group, PartitionRef tp, OptionalLong expected, long next) throws SQLException {
        if (expected.isEmpty()) {
            try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.sink_offsets (consumer_group, topic, partition, "
                    + "next_offset) VALUES (?, ?, ?, ?) ON CONFLICT (consumer_group, topic, partition) DO NOTHING")) {
                p.setString(1, group);
                p.setString(2, tp.topic());
                p.setInt(3, tp.partition());
                p.setLong(4, next);
                return p.executeUpdate() == 1;
            }
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.sink_offsets SET next_offset = ?, updated_at = now() "
                + "WHERE consumer_group = ? AND topic = ? AND partition = ? AND next_offset = ?")) {
            p.setLong(1, next);
            p.setString(2, group);
            p.setString(3, tp.topic());
            p.setInt(4, tp.partition());
            p.setLong(5, expected.getAsLong());
            return p.executeUpdate() == 1;
        }
    }

    /**
     * Deletes every offset stored for the group's partitions of {@code topic} and returns them by
     * partition, the rows locked until the transaction ends: a concurrent caller waits, then finds
     * none. For a sink that stops reading a topic for good and hands its place to something else in
     * the same transaction (the changes topic of an entity renamed; see
     * {@code io.dimstream.app.service.ChangesTopicUpgrade}).
     */
    public static Map<Integer, Long> take(Connection c, String group, String topic) throws SQLException {
        Map<Integer, Long> out = new HashMap<>();
        try (PreparedStatement p = c.prepareStatement("DELETE FROM dimstream.sink_offsets WHERE consumer_group = ? AND topic = ? "
                + "RETURNING partition, next_offset")) {
            p.setString(1, group);
            p.setString(2, topic);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /** Every offset stored for the group's partitions of {@code topics}: what "caught up" is measured against. */
    public static Map<PartitionRef, Long> ofTopics(Connection c, String group, Collection<String> topics) throws SQLException {
        Map<PartitionRef, Long> out = new HashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT topic, partition, next_offset FROM dimstream.sink_offsets "
                + "WHERE consumer_group = ? AND topic = ANY (?)")) {
            p.setString(1, group);
            p.setArray(2, c.createArrayOf("text", topics.toArray(String[]::new)));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.put(new PartitionRef(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        }
        return out;
    }
}
