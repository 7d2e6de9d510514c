package io.dimstream.db.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code dimstream.sink_batches}: the streaming sink writes one row per committed batch inside the
 * batch's transaction ({@link #record}; a rolled-back batch leaves no row); the admin dashboard
 * reads per-entity figures ({@link #summary}). Bounded: {@link #record} deletes the partition's
 * rows older than {@link #RETENTION} in the same transaction.
 *
 * <p>Queries: the last hour's sums are an index range scan of {@code (entity, finished_at)}; the
 * newest batch is the same index read backwards; the lag is the newest row per partition
 * ({@code DISTINCT ON}).
 */
public final class SinkBatches {

    /** Rows older than this are deleted by the sink as it records new ones, per partition. */
    public static final Duration RETENTION = Duration.ofDays(1);

    private static final String INSERT = "INSERT INTO dimstream.sink_batches (consumer_group, entity, topic, partition, "
            + "first_offset, next_offset, events, new_keys, changed, deleted, unchanged, late, duplicates, quarantined, rejected, erased, "
            + "rows_inserted, rows_updated, rows_deleted, apply_ms, lag) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** Only the partition's own rows: its owner is the only writer, so no two instances contend for a row. */
    private static final String PRUNE = "DELETE FROM dimstream.sink_batches WHERE topic = ? AND partition = ? "
            + "AND finished_at < clock_timestamp() - ?::interval";

    private SinkBatches() {
    }

    /**
     * Records one batch and deletes the partition's rows older than {@link #RETENTION}, on the
     * caller's connection: call it inside the batch's transaction, before the commit.
     */
    public static void record(Connection c, SinkBatch b) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(INSERT)) {
            int i = 1;
            p.setString(i++, b.consumerGroup());
            p.setString(i++, b.entity());
            p.setString(i++, b.topic());
            p.setInt(i++, b.partition());
            p.setLong(i++, b.firstOffset());
            p.setLong(i++, b.nextOffset());
            p.setInt(i++, b.events());
            p.setInt(i++, b.result().newKeys());
            p.setInt(i++, b.result().changed());
            p.setInt(i++, b.result().deleted());
            p.setInt(i++, b.result().unchanged());
            p.setInt(i++, b.result().late());
            p.setInt(i++, b.result().duplicates());
            p.setInt(i++, b.result().quarantined());
            p.setInt(i++, b.rejected());
            p.setInt(i++, b.result().erased());
            p.setInt(i++, b.result().rowsInserted());
            p.setInt(i++, b.result().rowsUpdated());
            p.setInt(i++, b.result().rowsDeleted());
            p.setInt(i++, (int) Math.min(Integer.MAX_VALUE, Math.max(0, b.applyMillis())));
            if (b.lag() == null) {
                p.setNull(i, Types.BIGINT);
            } else {
                p.setLong(i, b.lag());
            }
            if (p.executeUpdate() != 1) {
                throw new SQLException("inserting the sink_batches row of " + b.topic() + "-" + b.partition() + " wrote no row");
            }
        }
        try (PreparedStatement p = c.prepareStatement(PRUNE)) {
            p.setString(1, b.topic());
            p.setInt(2, b.partition());
            p.setString(3, RETENTION.getSeconds() + " seconds");
            p.executeUpdate();
        }
    }

    /**
     * An entity's batches since {@code since}, and its newest batch ever (within retention).
     *
     * @param lag the sum over partitions of the lag each partition's newest batch recorded; null
     *            when no batch recorded one
     */
    public record Summary(String entity, Instant since, long batches, long events, long newKeys, long changed, long deleted,
                          long unchanged, long late, long duplicates, long quarantined, long rejected, long erased,
                          Optional<Instant> lastBatchAt, Optional<Integer> lastBatchEvents, Optional<Integer> lastApplyMillis,
                          Long lag) {

        /**
         * The batches' events by the class the writer gave each against PostgreSQL, in the
         * dashboard's order: new, changed, deleted, unchanged, late, duplicate, quarantined,
         * rejected, and erased (an event of a key erased with a tombstone) when there are any. Every event the sink read is in exactly one, so the values add up to
         * {@link #events}. Records the topology never passed to the sink (exact duplicates it
         * dropped, records sent to the DLQ) are in none: they are the topology's
         * {@code dimstream_events_total}. The dashboard and the demo's summary both show this map.
         */
        public Map<String, Long> byClass() {
            Map<String, Long> m = new LinkedHashMap<>();
            m.put("new", newKeys);
            m.put("changed", changed);
            m.put("deleted", deleted);
            m.put("unchanged", unchanged);
            m.put("late", late);
            m.put("duplicate", duplicates);
            m.put("quarantined", quarantined);
            m.put("rejected", rejected);
            if (erased > 0) {
                m.put("erased", erased); // only when there are some, as load's report shows it: the dashboard's table keeps its width
            }
            return Collections.unmodifiableMap(m);
        }
    }

    /** The dashboard's figures of one entity (two index range scans). */
    public static Summary summary(DataSource ds, String entity, Instant since) throws SQLException {
        Objects.requireNonNull(since, "since");
        String sums = "SELECT count(*), coalesce(sum(events), 0), coalesce(sum(new_keys), 0), coalesce(sum(changed), 0), "
                + "coalesce(sum(deleted), 0), coalesce(sum(unchanged), 0), coalesce(sum(late), 0), coalesce(sum(duplicates), 0), "
                + "coalesce(sum(quarantined), 0), coalesce(sum(rejected), 0), coalesce(sum(erased), 0) "
                + "FROM dimstream.sink_batches WHERE entity = ? AND finished_at >= ?";
        String last = "SELECT finished_at, events, apply_ms FROM dimstream.sink_batches WHERE entity = ? "
                + "ORDER BY finished_at DESC, id DESC LIMIT 1";
        String lag = "SELECT sum(lag) FROM (SELECT DISTINCT ON (topic, partition) lag FROM dimstream.sink_batches "
                + "WHERE entity = ? ORDER BY topic, partition, finished_at DESC, id DESC) newest";
        try (Connection c = ds.getConnection()) {
            long[] n = new long[11];
            try (PreparedStatement p = c.prepareStatement(sums)) {
                p.setString(1, entity);
                p.setObject(2, since.atOffset(ZoneOffset.UTC));
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    for (int i = 0; i < n.length; i++) {
                        n[i] = rs.getLong(i + 1);
                    }
                }
            }
            Optional<Instant> lastAt = Optional.empty();
            Optional<Integer> lastEvents = Optional.empty();
            Optional<Integer> lastMs = Optional.empty();
            try (PreparedStatement p = c.prepareStatement(last)) {
                p.setString(1, entity);
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next()) {
                        lastAt = Optional.of(rs.getObject(1, OffsetDateTime.class).toInstant());
                        lastEvents = Optional.of(rs.getInt(2));
                        lastMs = Optional.of(rs.getInt(3));
                    }
                }
            }
            Long lagSum;
            try (PreparedStatement p = c.prepareStatement(lag)) {
                p.setString(1, entity);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    long v = rs.getLong(1);
                    lagSum = rs.wasNull() ? null : v;
                }
            }
            return new Summary(entity, since, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10],
                    lastAt, lastEvents, lastMs, lagSum);
        }
    }
}
