package io.dimstream.db.erase;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The events and records of erased keys in dimstream's own tables: {@code dimstream.quarantine}
 * (by its {@code event_key}), {@code dimstream.sink_rejects} and {@code dimstream.dlq_records} (by
 * their record bytes, {@link RecordMatch}). Each runs in the erasure's transaction.
 */
final class ErasedRecords {

    /** Rows read per round trip when the records of an entity are scanned. */
    private static final int FETCH = 500;

    private ErasedRecords() {
    }

    /** Deletes the keys' quarantined events (any status); returns how many. */
    static long quarantine(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        List<String> exprs = jsonKey(entity, "q.entity = " + Sql.literal(entity.name()), "q.event_key");
        try (PreparedStatement p = c.prepareStatement("DELETE FROM dimstream.quarantine q WHERE q.entity = ? AND "
                + keys.where(entity, exprs))) {
            p.setString(1, entity.name());
            keys.bind(p, 2, entity);
            return p.executeUpdate();
        }
    }

    /** Deletes the sink's rejected records of the keys; returns how many. */
    static long rejects(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        return deleteMatching(c, "dimstream.sink_rejects", entity, new RecordMatch(entity, keys));
    }

    /** Deletes the DLQ mirror's records of the keys; returns how many. */
    static long dlq(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        return deleteMatching(c, "dimstream.dlq_records", entity, new RecordMatch(entity, keys));
    }

    /**
     * The key columns read from a jsonb object {@code json} ({@code column name: value}), each cast to
     * its column's base type (never its modifier, which would cut or round) only where {@code guard} holds (so another entity's keys, of other types, are
     * never cast).
     */
    static List<String> jsonKey(EntitySpec entity, String guard, String json) {
        return entity.key().stream().map(col -> "(CASE WHEN " + guard + " THEN " + json + " ->> " + Sql.literal(col) + " END)::"
                + entity.type(col).sqlName()).toList();
    }

    /** Reads the entity's records of {@code table} (id, key, value), deletes those {@code match} takes. */
    private static long deleteMatching(Connection c, String table, EntitySpec entity, RecordMatch match) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT id, key, value FROM " + table + " WHERE entity = ?")) {
            p.setFetchSize(FETCH);
            p.setString(1, entity.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    if (match.matches(rs.getBytes(2), rs.getBytes(3))) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement p = c.prepareStatement("DELETE FROM " + table + " WHERE id = ANY (?)")) {
            p.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            return p.executeUpdate();
        }
    }
}
