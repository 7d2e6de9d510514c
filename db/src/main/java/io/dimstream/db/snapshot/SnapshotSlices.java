package io.dimstream.db.snapshot;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The database side of snapshot feeds: which slices are complete on which partition
 * ({@code dimstream.snapshot_slices}), and which keys a slice's absence judges.
 * Runs inside the caller's transaction (the sink's batch transaction).
 */
public final class SnapshotSlices {

    private static final int FETCH_SIZE = 10_000;

    /**
     * The partition a slice applied by {@code dimstream load --slice-at} is recorded under: such a
     * slice is complete for every key at once, whatever the changes topic's partitioning.
     */
    public static final int LOADED = -1;

    private SnapshotSlices() {
    }

    /**
     * Records that {@code slice} is complete on {@code partition} of the entity and returns the
     * complete slices from it on (itself first, then every later one, ascending): those whose
     * absences must be judged again, since this slice's events may have made keys live there.
     */
    public static List<Instant> complete(Connection c, String entity, int partition, Instant slice) throws SQLException {
        return record(c, entity, partition, slice,
                // a loaded slice is complete on every partition: a feed's older slice re-judges it for its own keys
                "SELECT DISTINCT slice_time FROM dimstream.snapshot_slices WHERE entity = ? AND partition IN (?, " + LOADED + ") "
                        + "AND slice_time >= ? ORDER BY slice_time");
    }

    /**
     * Records that a loaded slice ({@code dimstream load --slice-at}) is complete for every key of the
     * entity and returns the complete slices from it on, ascending and each once, whatever the
     * partition they were completed on: a loaded slice judges every key, so every later slice must
     * be judged again for every key (see the package notes for slices a feed has not finished).
     */
    public static List<Instant> completeLoaded(Connection c, String entity, Instant slice) throws SQLException {
        return record(c, entity, LOADED, slice, "SELECT DISTINCT slice_time FROM dimstream.snapshot_slices WHERE entity = ? "
                + "AND partition >= ? AND slice_time >= ? ORDER BY slice_time");
    }

    /**
     * The slices loaded complete ({@link #LOADED}) after {@code after}, ascending: a change loaded at
     * {@code after} can make a key live at their instants, which they did not carry. Records nothing.
     */
    public static List<Instant> loadedAfter(Connection c, String entity, Instant after) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT slice_time FROM dimstream.snapshot_slices WHERE entity = ? AND partition = "
                + LOADED + " AND slice_time > ? ORDER BY slice_time")) {
            p.setString(1, entity);
            p.setObject(2, after.atOffset(ZoneOffset.UTC));
            return instants(p);
        }
    }

    /**
     * Those of {@code instants} that are slices complete on {@code partition} (or loaded, complete on
     * every partition), ascending: rows at them that arrive now came after their slice's judgement.
     */
    public static List<Instant> completeAmong(Connection c, String entity, int partition, java.util.Collection<Instant> instants)
            throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT DISTINCT slice_time FROM dimstream.snapshot_slices WHERE entity = ? "
                + "AND partition IN (?, " + LOADED + ") AND slice_time = ANY (?) ORDER BY slice_time")) {
            p.setString(1, entity);
            p.setInt(2, partition);
            p.setArray(3, c.createArrayOf("timestamptz", instants.stream().map(Instant::toString).toArray()));
            return instants(p);
        }
    }

    /** The slices complete on {@code partition} (or loaded) after {@code after}, ascending, each once. Records nothing. */
    public static List<Instant> completeAfter(Connection c, String entity, int partition, Instant after) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT DISTINCT slice_time FROM dimstream.snapshot_slices WHERE entity = ? "
                + "AND partition IN (?, " + LOADED + ") AND slice_time > ? ORDER BY slice_time")) {
            p.setString(1, entity);
            p.setInt(2, partition);
            p.setObject(3, after.atOffset(ZoneOffset.UTC));
            return instants(p);
        }
    }

    private static List<Instant> record(Connection c, String entity, int partition, Instant slice, String laterSql) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.snapshot_slices (entity, partition, slice_time) "
                + "VALUES (?, ?, ?) ON CONFLICT (entity, partition, slice_time) DO UPDATE SET last_completed_at = now()")) {
            p.setString(1, entity);
            p.setInt(2, partition);
            p.setObject(3, slice.atOffset(ZoneOffset.UTC));
            p.executeUpdate();
        }
        try (PreparedStatement p = c.prepareStatement(laterSql)) {
            p.setString(1, entity);
            p.setInt(2, partition);
            p.setObject(3, slice.atOffset(ZoneOffset.UTC));
            return instants(p);
        }
    }

    /** The instants the query's first column holds, in its order. */
    private static List<Instant> instants(PreparedStatement p) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getObject(1, OffsetDateTime.class).toInstant());
            }
        }
        return out;
    }

    /**
     * The keys (typed values, key order) that slice {@code t} judges: live in the table at
     * {@code t} (a version with {@code valid_from <= t < valid_to}, not deleted), with no
     * remembered event at exactly {@code t} (the slice did not carry them; a key that did, or was
     * already deleted there, has one), and whose memory is not pruned at or past {@code t} (there
     * the absence of an event proves nothing). Every partition's keys: the caller keeps its own.
     */
    public static List<List<Object>> liveWithoutEventAt(Connection c, EntitySpec e, Instant t) throws SQLException {
        List<List<Object>> keys = new ArrayList<>();
        forEachLiveWithoutEventAt(c, e, t, keys::add);
        return keys;
    }

    /**
     * {@link #liveWithoutEventAt} streamed: the rows are fetched {@value #FETCH_SIZE} at a time
     * (a cursor, when {@code c} has auto-commit off), so a caller that keeps only some keys (the
     * sink keeps its partition's) holds only those.
     */
    public static void forEachLiveWithoutEventAt(Connection c, EntitySpec e, Instant t, java.util.function.Consumer<List<Object>> each)
            throws SQLException {
        SystemColumns sc = e.system();
        String vf = Sql.ident(sc.validFrom());
        // a version starting at t was started by an event at t (the memory may keep no row of it:
        // io.dimstream.db.write.EventMemory), so the live versions that count start before t
        String sql = "SELECT " + Sql.list("v", e.key()) + " FROM " + Sql.table(e.table()) + " v WHERE v." + vf + " < ? AND " + e.endsAfter("v", "?")
                + " AND NOT v." + Sql.ident(sc.isDeleted())
                // one probe of the memory's primary key (key, event_time) ...
                + " AND NOT EXISTS (SELECT 1 FROM " + Sql.table(e.memoryTable()) + " x WHERE " + Sql.eq("x", "v", e.key())
                + " AND x.event_time = ?)"
                // ... and one of the key's oldest remembered event, the anchor that holds the prune point
                + " AND coalesce((SELECT x.pruned_to FROM " + Sql.table(e.memoryTable()) + " x WHERE " + Sql.eq("x", "v", e.key())
                + " ORDER BY x.event_time LIMIT 1) < ?, true) ORDER BY " + Sql.list("v", e.key());
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setFetchSize(FETCH_SIZE);
            OffsetDateTime at = t.atOffset(ZoneOffset.UTC);
            for (int i = 1; i <= 4; i++) {
                p.setObject(i, at);
            }
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    List<Object> key = new ArrayList<>(e.key().size());
                    for (int i = 0; i < e.key().size(); i++) {
                        key.add(e.type(e.key().get(i)).read(rs, i + 1));
                    }
                    each.accept(key);
                }
            }
        }
    }
}
