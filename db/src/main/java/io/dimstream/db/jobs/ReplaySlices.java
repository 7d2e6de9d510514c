package io.dimstream.db.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@code dimstream.replay_slices} (migration V012): what a replay job of a {@code mode: snapshot}
 * entity has read of each slice on each source partition, kept in the job's batch transactions
 * beside its positions so a resumed job judges exactly the slices its range holds whole.
 */
public final class ReplaySlices {

    private ReplaySlices() {
    }

    /**
     * One slice on one source partition of a job's range.
     *
     * @param whole        the slice's first record on this partition was read after a boundary (none of
     *                     its rows there lies before the range's start)
     * @param markerOffset the offset of its end-of-slice marker on this partition, or null while unread
     * @param partitions   the partition count the marker names, or null while unread
     */
    public record Part(Instant slice, int partition, boolean whole, Long markerOffset, Integer partitions) {

        public boolean marked() {
            return markerOffset != null;
        }

        public Part withMarker(long offset, int count) {
            return new Part(slice, partition, whole, offset, count);
        }
    }

    /**
     * Whether slice {@code t} is complete among {@code parts}: whole and marked on each of the
     * partitions its markers name, each marker naming the same count. Only a complete slice deletes
     * by absence.
     */
    public static boolean complete(Collection<Part> parts, Instant t) {
        java.util.Map<Integer, Part> of = new java.util.TreeMap<>();
        for (Part p : parts) {
            if (p.slice().equals(t)) {
                of.put(p.partition(), p);
            }
        }
        Integer n = of.values().stream().filter(Part::marked).map(Part::partitions).findFirst().orElse(null);
        if (n == null) {
            return false;
        }
        for (int q = 0; q < n; q++) {
            Part p = of.get(q);
            if (p == null || !p.whole() || !p.marked() || p.partitions().intValue() != n.intValue()) {
                return false;
            }
        }
        return true;
    }

    /** The slices complete among {@code parts} ({@link #complete}), ascending. */
    public static List<Instant> completeSlices(Collection<Part> parts) {
        return parts.stream().map(Part::slice).distinct().filter(t -> complete(parts, t)).sorted().toList();
    }

    /** The job's parts, by slice then partition. */
    public static List<Part> load(Connection c, long jobId) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT slice_time, partition, whole, marker_offset, partitions "
                + "FROM dimstream.replay_slices WHERE job_id = ? ORDER BY slice_time, partition")) {
            p.setLong(1, jobId);
            List<Part> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long offset = rs.getLong(4);
                    Long markerOffset = rs.wasNull() ? null : offset;
                    int count = rs.getInt(5);
                    Integer partitions = rs.wasNull() ? null : count;
                    out.add(new Part(rs.getObject(1, OffsetDateTime.class).toInstant(), rs.getInt(2), rs.getBoolean(3), markerOffset,
                            partitions));
                }
            }
            return out;
        }
    }

    /** Inserts or replaces {@code parts}, in the caller's transaction (the batch's). */
    public static void save(Connection c, long jobId, Collection<Part> parts) throws SQLException {
        if (parts.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.replay_slices (job_id, slice_time, partition, whole, "
                + "marker_offset, partitions) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, slice_time, partition) DO UPDATE SET "
                + "whole = EXCLUDED.whole, marker_offset = EXCLUDED.marker_offset, partitions = EXCLUDED.partitions")) {
            for (Part part : parts) {
                p.setLong(1, jobId);
                p.setObject(2, part.slice().atOffset(ZoneOffset.UTC));
                p.setInt(3, part.partition());
                p.setBoolean(4, part.whole());
                if (part.markerOffset() == null) {
                    p.setNull(5, Types.BIGINT);
                } else {
                    p.setLong(5, part.markerOffset());
                }
                if (part.partitions() == null) {
                    p.setNull(6, Types.INTEGER);
                } else {
                    p.setInt(6, part.partitions());
                }
                p.addBatch();
            }
            p.executeBatch();
        }
    }
}
