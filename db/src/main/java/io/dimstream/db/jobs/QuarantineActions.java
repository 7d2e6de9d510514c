package io.dimstream.db.jobs;

import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What a user can do with an event in {@code dimstream.quarantine}: apply it anyway, or discard
 * it. Each action locks the row, acts, marks it resolved with the user and writes its
 * {@link AuditLog} entry, in ONE transaction.
 *
 * <p><b>What "anyway" means.</b> An event is quarantined for one of two reasons:
 * <ol>
 *   <li>it is older than its key's newest event by more than the lateness horizon, but newer
 *       than the key's prune point: the event memory still holds the key's history around it, so
 *       it can be placed exactly. "Apply anyway" lifts the horizon for this one event and applies
 *       it through the writer, exactly as DESIGN section 3 places any late event (the versions
 *       after it are recomputed; a same-time tie is decided by its original arrival {@code seq});</li>
 *   <li>it is at or before its key's prune point: history before that point is no longer
 *       remembered, so no writer can place it exactly. It is NOT applied: {@link #apply} refuses
 *       with {@link NotApplicableException} saying so, and the event stays pending. The user may
 *       discard it, or rebuild the table from the topic with a shadow replay (whose fresh memory
 *       holds the whole history) and then apply it.</li>
 * </ol>
 * dimstream never writes a version it cannot place exactly. The apply takes {@link WriterLock}, so it
 * never interleaves with a streaming sink batch on the same table.
 */
public final class QuarantineActions {

    /** One quarantined event. {@code event} is its native JSON ({@code op}, {@code event_time}, {@code data}). */
    public record QuarantinedEvent(long id, String entity, String eventKey, Instant eventTime, String event, long seq, String reason,
                                   Source source, Instant quarantinedAt, String status, String resolvedBy, Instant resolvedAt) {
    }

    /** The event cannot be applied exactly (at or before its key's prune point); nothing changed. */
    public static final class NotApplicableException extends IllegalStateException {
        public NotApplicableException(String message) {
            super(message);
        }
    }

    private static final String COLUMNS = "id, entity, event_key::text, event_time, event::text, seq, reason, source_topic, "
            + "source_partition, source_offset, quarantined_at, status, resolved_by, resolved_at";

    private final DataSource ds;
    private final Scd2Writer writer;

    public QuarantineActions(DataSource ds, Scd2Writer writer) {
        this.ds = ds;
        this.writer = writer;
    }

    /** Events of an entity (all entities when null) in a status (all when null), newest first, ids below {@code beforeId} (all when null). */
    public List<QuarantinedEvent> list(String entity, String status, Long beforeId, int limit) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.quarantine WHERE (?::text IS NULL OR entity = ?) "
                     + "AND (?::text IS NULL OR status = ?) AND (?::bigint IS NULL OR id < ?) ORDER BY id DESC LIMIT ?")) {
            p.setString(1, entity);
            p.setString(2, entity);
            p.setString(3, status);
            p.setString(4, status);
            p.setObject(5, beforeId);
            p.setObject(6, beforeId);
            p.setInt(7, limit);
            List<QuarantinedEvent> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(row(rs));
                }
            }
            return out;
        }
    }

    public Optional<QuarantinedEvent> find(long id) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.quarantine WHERE id = ?")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Applies a pending quarantined event of {@code entity} with the horizon lifted (see the class
     * comment), marks it applied by {@code user}, audits {@code quarantine.apply}.
     *
     * @return what the writer did (one event: late, new, changed, ... or a duplicate)
     * @throws NotApplicableException when it is at or before its key's prune point
     * @throws IllegalArgumentException when it is not pending, not of this entity, or unknown
     */
    public ApplyResult apply(long id, EntitySpec entity, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            QuarantinedEvent q = lockPending(c, id, entity.name());
            Event ev = ShadowTables.parse(q.event(), q.seq(), q.source());
            EntitySpec unlimited = entity.withLatenessHorizon(Optional.empty());
            WriterLock.exclusiveWriter(c, entity);
            ApplyResult r = writer.apply(c, unlimited, List.of(ev));
            if (r.quarantined() > 0) {
                c.rollback();
                throw new NotApplicableException("quarantined event " + id + " (" + q.eventKey() + " at " + q.eventTime()
                        + ") is at or before its key's prune point: history before it is no longer remembered, so it cannot be "
                        + "placed exactly. Discard it, or rebuild the table with a shadow replay and apply it then.");
            }
            if (!r.rejected().isEmpty()) {
                throw new IllegalArgumentException("quarantined event " + id + " is not a valid event of entity " + entity.name()
                        + ": " + r.rejected().get(0).reason());
            }
            resolve(c, id, "applied", user);
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("entity", entity.name());
            detail.put("key", q.eventKey());
            detail.put("event_time", q.eventTime().toString());
            detail.put("rows_inserted", r.rowsInserted());
            detail.put("rows_updated", r.rowsUpdated());
            detail.put("rows_deleted", r.rowsDeleted());
            detail.put("duplicate", r.duplicates() > 0);
            AuditLog.record(c, user, "quarantine.apply", "quarantine:" + id, detail);
            return r;
        });
    }

    /** Marks a pending quarantined event discarded by {@code user} (never applied), audits {@code quarantine.discard}. */
    public void discard(long id, String entity, String user) throws SQLException {
        AuditLog.requireUser(user);
        Transactions.run(ds, c -> {
            QuarantinedEvent q = lockPending(c, id, entity);
            resolve(c, id, "discarded", user);
            AuditLog.record(c, user, "quarantine.discard", "quarantine:" + id,
                    Map.of("entity", entity, "key", q.eventKey(), "event_time", q.eventTime().toString(), "reason", q.reason()));
        });
    }

    private static QuarantinedEvent lockPending(Connection c, long id, String entity) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.quarantine WHERE id = ? FOR UPDATE")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("quarantine: no event with id " + id);
                }
                QuarantinedEvent q = row(rs);
                if (!q.entity().equals(entity)) {
                    throw new IllegalArgumentException("quarantine: event " + id + " belongs to entity " + q.entity() + ", not " + entity);
                }
                if (!"pending".equals(q.status())) {
                    throw new IllegalArgumentException("quarantine: event " + id + " is already " + q.status() + " (by "
                            + q.resolvedBy() + " at " + q.resolvedAt() + ")");
                }
                return q;
            }
        }
    }

    private static void resolve(Connection c, long id, String status, String user) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.quarantine SET status = ?, resolved_by = ?, resolved_at = now() "
                + "WHERE id = ?")) {
            p.setString(1, status);
            p.setString(2, user);
            p.setLong(3, id);
            p.executeUpdate();
        }
    }

    private static QuarantinedEvent row(ResultSet rs) throws SQLException {
        return new QuarantinedEvent(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getTimestamp(4).toInstant(), rs.getString(5),
                rs.getLong(6), rs.getString(7), ShadowTables.source(rs, 8), rs.getTimestamp(11).toInstant(), rs.getString(12),
                rs.getString(13), instant(rs.getTimestamp(14)));
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
