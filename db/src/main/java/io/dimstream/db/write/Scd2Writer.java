package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.TypedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Applies batches of events to an entity's SCD2 table, exactly as DESIGN section 3 defines
 * history, in ONE transaction per batch, set-based (COPY into a staging table, then a fixed
 * number of statements over the whole batch, never a statement per event).
 *
 * <p>How: every accepted event is remembered in {@code <table>_events} (one row per key and
 * event time, the latest arrival winning). For each key the batch touches, the writer finds the
 * remembered event just before the batch's earliest event for that key ({@code p}) and the version
 * holding it, recomputes the runs of equal state from {@code p} on over memory and batch together
 * (window functions), and makes the version rows of that region equal to the result: deleting rows
 * no longer produced, updating changed ones under an {@code IS DISTINCT FROM} guard, inserting new
 * ones. An in-order event's region is just the current version and the event, so the common case
 * is a close and an insert; a late event's region is the tail of history after it. Re-applying any
 * batch finds nothing distinct and writes nothing.
 *
 * <p>Events older than their key's newest remembered event by more than the lateness horizon,
 * or at/before the key's prune point, go to {@code dimstream.quarantine} with the reason.
 */
public final class Scd2Writer {

    private final DataSource ds;
    private final Map<EntitySpec, WriterSql> sqlCache = new ConcurrentHashMap<>();
    private final String workMem;

    public Scd2Writer(DataSource ds) {
        this(ds, "64MB");
    }

    /** @param workMem PostgreSQL {@code work_mem} for the apply transaction (joins and sorts of a big batch) */
    public Scd2Writer(DataSource ds, String workMem) {
        this.ds = ds;
        if (!workMem.matches("\\d+\\s*(kB|MB|GB)?")) {
            throw new IllegalArgumentException("work-mem: not a PostgreSQL memory size: " + workMem);
        }
        this.workMem = workMem;
    }

    /** Applies a batch in its own transaction (committed on success, rolled back on failure). */
    public ApplyResult apply(EntitySpec entity, List<Event> batch) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                ApplyResult r = apply(c, entity, batch);
                c.commit();
                return r;
            } catch (SQLException | RuntimeException ex) {
                rollbackQuietly(c, ex);
                throw ex;
            }
        }
    }

    /**
     * Applies a batch inside the caller's transaction ({@code c} must have auto-commit off);
     * the caller commits, so it can write its own state (sink offsets) atomically with the rows.
     */
    public ApplyResult apply(Connection c, EntitySpec entity, List<Event> batch) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("apply(Connection, ...) needs a connection with auto-commit off");
        }
        EventValidator validator = new EventValidator(entity);
        List<Rejection> rejected = new ArrayList<>();
        // one event per key and event time: the latest arrival (highest seq) wins
        Map<List<Object>, TypedEvent> winners = new LinkedHashMap<>();
        int superseded = 0;
        int nKey = entity.key().size();
        for (Event ev : batch) {
            EventValidator.Result vr = validator.validate(ev);
            if (!vr.ok()) {
                rejected.add(vr.rejection());
                continue;
            }
            TypedEvent te = vr.event();
            List<Object> id = new ArrayList<>(te.values().subList(0, nKey));
            id.add(te.eventTime());
            TypedEvent prev = winners.get(id);
            if (prev == null) {
                winners.put(id, te);
            } else {
                superseded++;
                if (te.seq() > prev.seq()) {
                    winners.put(id, te);
                }
            }
        }
        if (winners.isEmpty()) {
            return new ApplyResult(batch.size(), 0, 0, 0, 0, 0, superseded, 0, rejected, 0, 0, 0);
        }
        WriterSql sql = sqlCache.computeIfAbsent(entity, WriterSql::new);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL TimeZone = 'UTC'");
            s.execute("SET LOCAL work_mem = '" + workMem + "'");
            s.execute(sql.createTemp);
            s.execute("TRUNCATE " + String.join(", ", sql.stg, sql.kinfo, sql.w, sql.ak, sql.r, sql.n));
        }
        copy(c, entity, sql, winners.values());
        int quarantined;
        int changedKeys;
        try (Statement s = c.createStatement()) {
            s.execute(sql.analyzeStg);
            s.executeUpdate(sql.fillKinfo);
        }
        try (PreparedStatement p = c.prepareStatement(sql.quarantine)) {
            String horizon = entity.latenessHorizon().map(Object::toString).orElse(null);
            p.setString(1, horizon);
            p.setString(2, horizon);
            p.setString(3, entity.name());
            p.setString(4, horizon);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                quarantined = rs.getInt(1);
            }
        }
        int winning;
        try (Statement s = c.createStatement()) {
            winning = s.executeUpdate(sql.fillW);
        }
        int duplicates = superseded + (winners.size() - quarantined - winning);
        if (winning == 0) {
            return new ApplyResult(batch.size(), 0, 0, 0, 0, 0, duplicates, quarantined, rejected, 0, 0, 0);
        }
        int late;
        int newKeys;
        int changed;
        int deleted;
        int unchanged;
        int rowsDeleted;
        int rowsUpdated;
        int rowsInserted;
        try (Statement s = c.createStatement()) {
            changedKeys = s.executeUpdate(sql.fillAk);
            s.execute("ANALYZE " + sql.ak);
            s.executeUpdate(sql.upsertMemory);
            s.executeUpdate(sql.fillR);
            try (ResultSet rs = s.executeQuery(sql.counts)) {
                rs.next();
                late = rs.getInt(1);
                newKeys = rs.getInt(2);
                changed = rs.getInt(3);
                deleted = rs.getInt(4);
                unchanged = rs.getInt(5);
            }
            s.executeUpdate(sql.fillN);
            s.execute("ANALYZE " + sql.n);
            rowsDeleted = s.executeUpdate(sql.deleteRows);
            rowsUpdated = s.executeUpdate(sql.updateRows);
        }
        try (PreparedStatement p = c.prepareStatement(sql.insertRows)) {
            p.setString(1, entity.name());
            rowsInserted = p.executeUpdate();
        }
        if (late + newKeys + changed + deleted + unchanged != winning) {
            throw new IllegalStateException("classification of " + winning + " events in " + changedKeys
                    + " keys does not add up: late " + late + ", new " + newKeys + ", changed " + changed
                    + ", deleted " + deleted + ", unchanged " + unchanged);
        }
        return new ApplyResult(batch.size(), newKeys, changed, deleted, unchanged, late, duplicates, quarantined, rejected,
                rowsInserted, rowsUpdated, rowsDeleted);
    }

    private static void copy(Connection c, EntitySpec e, WriterSql sql, Iterable<TypedEvent> events) throws SQLException {
        CopyIn in = c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql.copyStg);
        try {
            CopyWriter cw = new CopyWriter(in);
            List<String> cols = e.dataColumns();
            int nKey = e.key().size();
            List<ColumnType> types = cols.stream().map(e::type).toList();
            for (TypedEvent te : events) {
                for (int i = 0; i < nKey; i++) {
                    cw.value(types.get(i), te.values().get(i));
                }
                cw.raw(ColumnType.CANONICAL_TIMESTAMP.format(te.eventTime()))
                        .raw(Long.toString(te.seq()))
                        .raw(te.delete() ? "t" : "f")
                        .bytes(te.hash());
                for (int i = nKey; i < cols.size(); i++) {
                    cw.value(types.get(i), te.values().get(i));
                }
                cw.text(te.source() == null ? null : te.source().topic());
                cw.raw(te.source() == null || te.source().partition() == null ? null : te.source().partition().toString());
                cw.raw(te.source() == null || te.source().offset() == null ? null : te.source().offset().toString());
                cw.endRow();
            }
            cw.finish();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }
}
