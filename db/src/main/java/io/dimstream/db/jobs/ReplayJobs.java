package io.dimstream.db.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ErasedKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * {@code dimstream.replay_jobs} and {@code dimstream.replay_progress}: submitting, listing and
 * cancelling jobs (the admin UI and the CLI), and the worker's side: claiming a job under a lease,
 * starting it, advancing it in the same transaction as the rows a batch wrote, finishing it.
 *
 * <p>Exclusion: {@link #claim} takes a QUEUED job, or a RUNNING one whose lease expired, with
 * {@code FOR UPDATE SKIP LOCKED}, so two instances never claim one job at once. Every batch
 * transaction of the worker first calls {@link #lockForBatch}, which locks the job row and checks
 * this worker still owns the lease: an instance that lost its lease (paused longer than the lease,
 * then taken over) cannot commit a batch afterwards, and a takeover waits for a batch in flight.
 */
public final class ReplayJobs {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String COLUMNS = "id, entity, topic, source_kind, source_instant, source_offsets::text, target, state, "
            + "cancel_requested, events_total, events_read, events_rejected, rows_changed, requested_by, requested_at, started_at, "
            + "finished_at, error, detail, lease_owner, lease_expires_at, no_swap";

    private final DataSource ds;

    public ReplayJobs(DataSource ds) {
        this.ds = ds;
    }

    // ---- the admin side ---------------------------------------------------------------------

    /**
     * Queues a job and audits it ({@code replay.submit}) in one transaction.
     *
     * @return the job's id
     */
    public long submit(String entity, String topic, ReplaySource source, ReplayTarget target, String user) throws SQLException {
        return submit(entity, topic, source, target, false, null, user);
    }

    /**
     * Queues a job and audits it ({@code replay.submit}) in one transaction; with {@code noSwap} a
     * shadow job stops READY at its end offsets instead of swapping in ({@link ShadowPreviews}).
     *
     * @return the job's id
     */
    public long submit(String entity, String topic, ReplaySource source, ReplayTarget target, boolean noSwap, String user)
            throws SQLException {
        return submit(entity, topic, source, target, noSwap, null, user);
    }

    /**
     * Queues a job restricted to {@code keys} (a repair, see {@link ReplayKeys}; null: every key)
     * and audits it, in one transaction. A restricted job writes the live table only: a shadow of
     * some keys would replace the whole table.
     *
     * @return the job's id
     */
    public long submit(String entity, String topic, ReplaySource source, ReplayTarget target, ReplayKeys keys, String user)
            throws SQLException {
        return submit(entity, topic, source, target, false, keys, user);
    }

    private long submit(String entity, String topic, ReplaySource source, ReplayTarget target, boolean noSwap, ReplayKeys keys,
                        String user) throws SQLException {
        AuditLog.requireUser(user);
        if (keys != null && target != ReplayTarget.LIVE) {
            throw new IllegalArgumentException("keys: a replay restricted to keys writes the live table (a shadow of some keys "
                    + "would replace the whole table when swapped in)");
        }
        if (noSwap && target != ReplayTarget.SHADOW) {
            throw new IllegalArgumentException("no-swap: only a shadow replay can stop before its swap (target is " + target.sql() + ")");
        }
        if (entity == null || entity.isBlank()) {
            throw new IllegalArgumentException("entity: must not be empty");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("topic: must not be empty");
        }
        return Transactions.inTransaction(ds, c -> {
            if (keys != null && keys.keys() != null) {
                // an erased key's text must not come back into dimstream's bookkeeping (the job's key
                // list, the audit), and its repair would rebuild nothing: the writer drops its events
                int erased = ErasedKeys.erasedAmong(c, entity, keys.keys()).size();
                if (erased > 0) {
                    throw new IllegalArgumentException("keys: " + erased + " of the keys given " + (erased == 1 ? "is" : "are")
                            + " erased with a tombstone (dimstream erase): a repair cannot bring an erased key back; leave "
                            + (erased == 1 ? "it" : "them") + " out");
                }
            }
            long id;
            try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.replay_jobs (entity, topic, source_kind, "
                    + "source_instant, source_offsets, target, requested_by, no_swap) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?) RETURNING id")) {
                p.setString(1, entity);
                p.setString(2, topic);
                p.setString(3, source.kind().sql());
                p.setTimestamp(4, source.instant() == null ? null : Timestamp.from(source.instant()));
                p.setString(5, source.offsets() == null ? null : offsetsJson(source.offsets()));
                p.setString(6, target.sql());
                p.setString(7, user);
                p.setBoolean(8, noSwap);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            Map<String, Object> audit = new LinkedHashMap<>(Map.of("entity", entity, "topic", topic, "from", source.toString(),
                    "target", target.sql()));
            if (noSwap) {
                audit.put("no_swap", true);
            }
            if (keys != null) {
                ReplayKeys.store(c, id, keys);
                audit.put("keys", keys.toString());
            }
            AuditLog.record(c, user, "replay.submit", "replay_job:" + id, audit);
            return id;
        });
    }

    /** The newest jobs first (all entities when {@code entity} is null). */
    public List<ReplayJob> list(String entity, int limit) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.replay_jobs "
                     + "WHERE (?::text IS NULL OR entity = ?) ORDER BY id DESC LIMIT ?")) {
            p.setString(1, entity);
            p.setString(2, entity);
            p.setInt(3, limit);
            List<ReplayJob> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(job(rs));
                }
            }
            return out;
        }
    }

    public Optional<ReplayJob> find(long id) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return find(c, id);
        }
    }

    static Optional<ReplayJob> find(Connection c, long id) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.replay_jobs WHERE id = ?")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(job(rs)) : Optional.empty();
            }
        }
    }

    /** The keys a repair job is restricted to; empty for a replay of every key. */
    public Optional<ReplayKeys> keys(long id) throws SQLException {
        return ReplayKeys.of(ds, id);
    }

    /** The job's partitions in order (empty before it has started). */
    public List<PartitionProgress> progress(long id) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return progress(c, id);
        }
    }

    public static List<PartitionProgress> progress(Connection c, long id) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT partition, start_offset, end_offset, position FROM dimstream.replay_progress "
                + "WHERE job_id = ? ORDER BY partition")) {
            p.setLong(1, id);
            List<PartitionProgress> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new PartitionProgress(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            }
            return out;
        }
    }

    /**
     * Asks a job to stop, audited ({@code replay.cancel}). A QUEUED job is CANCELLED at once; a
     * RUNNING one is stopped by its worker between two batches (what earlier batches wrote stays:
     * each batch is a complete, correct transaction; a shadow job's shadow table is dropped).
     *
     * @return false when the job does not exist or has already finished
     */
    public boolean requestCancel(long id, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            int n;
            try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET "
                    + "cancel_requested = true, cancel_requested_by = ?, "
                    + "state = CASE WHEN state = 'QUEUED' THEN 'CANCELLED' ELSE state END, "
                    + "finished_at = CASE WHEN state = 'QUEUED' THEN now() ELSE finished_at END "
                    + "WHERE id = ? AND state IN ('QUEUED', 'RUNNING')")) {
                p.setString(1, user);
                p.setLong(2, id);
                n = p.executeUpdate();
            }
            if (n == 1) {
                AuditLog.record(c, user, "replay.cancel", "replay_job:" + id, Map.of());
            }
            return n == 1;
        });
    }

    // ---- the worker side --------------------------------------------------------------------

    /**
     * Claims the oldest QUEUED job of one of {@code entities}, or a RUNNING one whose lease has
     * expired (its worker died), and takes its lease for {@code lease}.
     */
    public Optional<ReplayJob> claim(String owner, Collection<String> entities, Duration lease) throws SQLException {
        if (entities.isEmpty()) {
            return Optional.empty();
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs j SET state = 'RUNNING', lease_owner = ?, "
                    + "lease_expires_at = now() + ?::interval, started_at = coalesce(j.started_at, now()) "
                    + "WHERE j.id = (SELECT x.id FROM dimstream.replay_jobs x WHERE x.entity = ANY (?) AND (x.state = 'QUEUED' "
                    + "OR (x.state = 'RUNNING' AND x.lease_expires_at < now())) ORDER BY x.id LIMIT 1 FOR UPDATE SKIP LOCKED) "
                    + "RETURNING j.id")) {
                p.setString(1, owner);
                p.setString(2, lease.toMillis() + " milliseconds");
                p.setArray(3, c.createArrayOf("text", entities.toArray()));
                try (ResultSet rs = p.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return find(c, rs.getLong(1));
                }
            }
        }
    }

    /**
     * Renews the lease, outside any batch.
     *
     * @return false when this owner no longer holds the job (taken over, cancelled and finished, ...)
     */
    public boolean heartbeat(long id, String owner, Duration lease) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET lease_expires_at = now() + ?::interval "
                     + "WHERE id = ? AND lease_owner = ? AND state = 'RUNNING'")) {
            p.setString(1, lease.toMillis() + " milliseconds");
            p.setLong(2, id);
            p.setString(3, owner);
            return p.executeUpdate() == 1;
        }
    }

    /**
     * Gives the lease up (the instance is stopping mid-job): the job stays RUNNING with its
     * progress and is resumed at once by the next instance that looks for work.
     */
    public boolean release(long id, String owner) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET lease_expires_at = now() - interval '1 millisecond' "
                     + "WHERE id = ? AND lease_owner = ? AND state = 'RUNNING'")) {
            p.setLong(1, id);
            p.setString(2, owner);
            return p.executeUpdate() == 1;
        }
    }

    /** What {@link #lockForBatch} found. */
    public enum Lease { HELD, CANCEL_REQUESTED, LOST }

    /**
     * First statement of every worker transaction: locks the job row, checks the lease is still
     * this owner's (and renews it), and reports a cancel request.
     */
    public static Lease lockForBatch(Connection c, long id, String owner, Duration lease) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT lease_owner, state, cancel_requested FROM dimstream.replay_jobs "
                + "WHERE id = ? FOR UPDATE")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next() || !owner.equals(rs.getString(1)) || !"RUNNING".equals(rs.getString(2))) {
                    return Lease.LOST;
                }
                if (rs.getBoolean(3)) {
                    return Lease.CANCEL_REQUESTED;
                }
            }
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET lease_expires_at = now() + ?::interval "
                + "WHERE id = ?")) {
            p.setString(1, lease.toMillis() + " milliseconds");
            p.setLong(2, id);
            p.executeUpdate();
        }
        return Lease.HELD;
    }

    /** Stores the job's range (taken once, at its first start) and its total, in the caller's transaction. */
    public static void start(Connection c, long id, List<PartitionProgress> ranges) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.replay_progress (job_id, partition, start_offset, "
                + "end_offset, position) VALUES (?, ?, ?, ?, ?)")) {
            for (PartitionProgress r : ranges) {
                p.setLong(1, id);
                p.setInt(2, r.partition());
                p.setLong(3, r.startOffset());
                p.setLong(4, r.endOffset());
                p.setLong(5, r.position());
                p.addBatch();
            }
            p.executeBatch();
        }
        long total = ranges.stream().mapToLong(r -> r.endOffset() - r.startOffset()).sum();
        long read = ranges.stream().mapToLong(r -> r.position() - r.startOffset()).sum();
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET events_total = ?, events_read = ? WHERE id = ?")) {
            p.setLong(1, total);
            p.setLong(2, read);
            p.setLong(3, id);
            p.executeUpdate();
        }
    }

    /**
     * Moves the job's positions and counters, in the caller's transaction (the one that wrote the
     * batch's rows). {@code events_read} is recomputed from the positions, so it is exact after a resume.
     */
    public static void advance(Connection c, long id, Map<Integer, Long> positions, long rejected, long rowsChanged) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_progress SET position = ? WHERE job_id = ? AND partition = ?")) {
            for (Map.Entry<Integer, Long> e : positions.entrySet()) {
                p.setLong(1, e.getValue());
                p.setLong(2, id);
                p.setInt(3, e.getKey());
                p.addBatch();
            }
            p.executeBatch();
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET events_read = (SELECT coalesce(sum(position - "
                + "start_offset), 0) FROM dimstream.replay_progress WHERE job_id = ?), events_rejected = events_rejected + ?, "
                + "rows_changed = rows_changed + ? WHERE id = ?")) {
            p.setLong(1, id);
            p.setLong(2, rejected);
            p.setLong(3, rowsChanged);
            p.setLong(4, id);
            p.executeUpdate();
        }
    }

    /** Ends the job (SUCCEEDED, FAILED or CANCELLED) in the caller's transaction and releases its lease. */
    public static void finish(Connection c, long id, JobState state, String error, String detail) throws SQLException {
        if (!state.finished()) {
            throw new IllegalArgumentException("finish: " + state + " is not a final state");
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET state = ?, error = ?, detail = ?, "
                + "finished_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = ?")) {
            p.setString(1, state.name());
            p.setString(2, error);
            p.setString(3, detail);
            p.setLong(4, id);
            p.executeUpdate();
        }
    }

    /**
     * Stops a {@code no_swap} shadow job at its end offsets: READY, the lease released, in the
     * caller's transaction (the worker's last one, under the job row's lock).
     */
    public static void ready(Connection c, long id, String detail) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.replay_jobs SET state = 'READY', detail = ?, "
                + "finished_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = ?")) {
            p.setString(1, detail);
            p.setLong(2, id);
            p.executeUpdate();
        }
    }

    /**
     * Marks the job FAILED in a transaction of its own, if this owner still holds it.
     *
     * @return false when the lease was no longer this owner's (nothing changed)
     */
    public boolean fail(long id, String owner, String error) throws SQLException {
        return Transactions.inTransaction(ds, c -> {
            if (lockForBatch(c, id, owner, Duration.ofSeconds(1)) == Lease.LOST) {
                c.rollback();
                return false;
            }
            finish(c, id, JobState.FAILED, error, null);
            return true;
        });
    }

    private static ReplayJob job(ResultSet rs) throws SQLException {
        String kind = rs.getString(4);
        ReplaySource source = switch (kind) {
            case "earliest" -> ReplaySource.earliest();
            case "instant" -> ReplaySource.at(rs.getTimestamp(5).toInstant());
            case "offsets" -> ReplaySource.offsets(parseOffsets(rs.getString(6)));
            default -> throw new IllegalStateException("replay job " + rs.getLong(1) + ": unknown source_kind " + kind);
        };
        long total = rs.getLong(10);
        Long eventsTotal = rs.wasNull() ? null : total;
        return new ReplayJob(rs.getLong(1), rs.getString(2), rs.getString(3), source, ReplayTarget.parse(rs.getString(7)),
                JobState.valueOf(rs.getString(8)), rs.getBoolean(9), eventsTotal, rs.getLong(11), rs.getLong(12), rs.getLong(13),
                rs.getString(14), instant(rs, 15), instant(rs, 16), instant(rs, 17), rs.getString(18), rs.getString(19),
                rs.getString(20), instant(rs, 21), rs.getBoolean(22));
    }

    private static Instant instant(ResultSet rs, int i) throws SQLException {
        Timestamp t = rs.getTimestamp(i);
        return t == null ? null : t.toInstant();
    }

    private static String offsetsJson(Map<Integer, Long> offsets) {
        Map<String, Long> m = new LinkedHashMap<>();
        offsets.forEach((p, o) -> m.put(Integer.toString(p), o));
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<Integer, Long> parseOffsets(String json) {
        try {
            Map<String, Long> m = JSON.readValue(json, new TypeReference<Map<String, Long>>() { });
            Map<Integer, Long> out = new TreeMap<>();
            m.forEach((p, o) -> out.put(Integer.parseInt(p), o));
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("replay job source_offsets is not {\"partition\": offset}: " + json, e);
        }
    }
}
