package io.dimstream.db.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Browses {@code dimstream.quarantine} (read only), newest first. Filters are bound values; the
 * status filter is one of {@link Status}.
 */
public final class QuarantineQueries {

    /** The statuses a quarantined event can have. */
    public enum Status {
        PENDING, APPLIED, DISCARDED;

        public String sqlValue() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The status named by {@code s} (any case), empty when it is none. */
        public static Optional<Status> parse(String s) {
            for (Status x : values()) {
                if (x.sqlValue().equalsIgnoreCase(s)) {
                    return Optional.of(x);
                }
            }
            return Optional.empty();
        }
    }

    /** A page of quarantined events; {@code hasMore}: at least one more row follows. */
    public record Page(List<QuarantinedEvent> rows, boolean hasMore) {
        public Page {
            rows = List.copyOf(rows);
        }
    }

    private final DataSource ds;

    public QuarantineQueries(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /**
     * @param entity null for every entity
     * @param status null for every status
     */
    public Page list(String entity, Status status, int offset, int limit) throws SQLException {
        if (limit <= 0 || limit > HistoryQueries.MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + HistoryQueries.MAX_LIMIT + ", got " + limit);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        String sql = "SELECT id, entity, event_key::text, event_time, event::text, reason, source_topic, source_partition, "
                + "source_offset, quarantined_at, status, resolved_by, resolved_at FROM dimstream.quarantine "
                + "WHERE (?::text IS NULL OR entity = ?) AND (?::text IS NULL OR status = ?) "
                + "ORDER BY quarantined_at DESC, id DESC OFFSET ? LIMIT ?";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            String st = status == null ? null : status.sqlValue();
            p.setString(1, entity);
            p.setString(2, entity);
            p.setString(3, st);
            p.setString(4, st);
            p.setInt(5, offset);
            p.setLong(6, (long) limit + 1);
            List<QuarantinedEvent> rows = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    int part = rs.getInt(8);
                    Integer partition = rs.wasNull() ? null : part;
                    long off = rs.getLong(9);
                    Long sourceOffset = rs.wasNull() ? null : off;
                    rows.add(new QuarantinedEvent(rs.getLong(1), rs.getString(2), rs.getString(3), Columns.instant(rs, 4),
                            rs.getString(5), rs.getString(6), rs.getString(7), partition, sourceOffset, Columns.instant(rs, 10),
                            rs.getString(11), rs.getString(12), Columns.instant(rs, 13)));
                }
            }
            boolean more = rows.size() > limit;
            return new Page(more ? rows.subList(0, limit) : rows, more);
        }
    }

    /**
     * Which of {@code records} (source partition and offset of {@code topic}) an entity's quarantine
     * holds and no user applied (pending or discarded): what the live path set aside. A repair, which
     * rebuilds keys with the lateness horizon lifted, leaves them out, so it makes the live path's
     * decisions again instead of reversing them.
     */
    public Set<List<Long>> setAside(String entity, String topic, Collection<List<Long>> records) throws SQLException {
        Set<List<Long>> out = new HashSet<>();
        if (records.isEmpty()) {
            return out;
        }
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement("SELECT source_partition, source_offset FROM "
                + "dimstream.quarantine WHERE entity = ? AND source_topic = ? AND status <> 'applied' "
                + "AND (source_partition, source_offset) IN (SELECT * FROM unnest(?::int[], ?::bigint[]))")) {
            p.setString(1, entity);
            p.setString(2, topic);
            p.setArray(3, c.createArrayOf("int", records.stream().map(r -> (int) (long) r.get(0)).toArray()));
            p.setArray(4, c.createArrayOf("bigint", records.stream().map(r -> r.get(1)).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(List.of(rs.getLong(1), rs.getLong(2)));
                }
            }
        }
        return out;
    }
}
