package io.dimstream.db.erase;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where dimstream's bookkeeping names an erased key, rewritten in the erasure's transaction so no
 * text of the key is left: the key lists of repair jobs ({@code replay_jobs.key_filter}) and their
 * {@code replay.submit} audit entries, the {@code key} of {@code quarantine.apply} /
 * {@code quarantine.discard} audit entries (the entries stay, as {@code "key": "(erased)"}), and the
 * findings of stored integrity reports ({@code integrity_runs.findings}; the report's true counts
 * stay, and it is marked truncated).
 */
final class ErasedMentions {

    /** What an audit entry's erased key reads as. */
    static final String ERASED = "(erased)";

    private ErasedMentions() {
    }

    /** Removes the keys from the key lists of the entity's repair jobs and their submit audit entries; returns the jobs changed. */
    static long repairJobs(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        Map<Long, ReplayKeys> changed = new LinkedHashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT id, key_filter::text FROM dimstream.replay_jobs "
                + "WHERE entity = ? AND key_filter -> 'keys' IS NOT NULL FOR UPDATE")) {
            p.setString(1, entity.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    ReplayKeys before = ReplayKeys.fromJson(rs.getString(2));
                    ReplayKeys after = before.without(keys.keys());
                    if (after.keys().size() != before.keys().size()) {
                        changed.put(rs.getLong(1), after);
                    }
                }
            }
        }
        try (PreparedStatement job = c.prepareStatement("UPDATE dimstream.replay_jobs SET key_filter = ?::jsonb WHERE id = ?");
             PreparedStatement audit = c.prepareStatement("UPDATE dimstream.admin_audit SET detail = jsonb_set(detail, '{keys}', to_jsonb(?::text)) "
                     + "WHERE action = 'replay.submit' AND target = ? AND detail -> 'keys' IS NOT NULL")) {
            for (Map.Entry<Long, ReplayKeys> e : changed.entrySet()) {
                job.setString(1, e.getValue().toJson());
                job.setLong(2, e.getKey());
                job.executeUpdate();
                audit.setString(1, e.getValue().toString());
                audit.setString(2, "replay_job:" + e.getKey());
                audit.executeUpdate();
            }
        }
        return changed.size();
    }

    /** Replaces the key of the entity's quarantine audit entries naming one of the keys by {@value #ERASED}; returns how many. */
    static long auditEntries(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        String guard = "a.action IN ('quarantine.apply', 'quarantine.discard') AND a.detail ->> 'entity' = " + Sql.literal(entity.name())
                + " AND jsonb_typeof(a.detail -> 'key') = 'string' AND a.detail ->> 'key' <> " + Sql.literal(ERASED);
        List<String> exprs = ErasedRecords.jsonKey(entity, guard, "(a.detail ->> 'key')::jsonb");
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.admin_audit a SET detail = jsonb_set(a.detail, '{key}', to_jsonb(?::text)) "
                + "WHERE a.action IN ('quarantine.apply', 'quarantine.discard') AND " + keys.where(entity, exprs))) {
            p.setString(1, ERASED);
            keys.bind(p, 2, entity);
            return p.executeUpdate();
        }
    }

    /** Removes the keys' findings from the entity's stored integrity reports; returns the findings removed. */
    static long integrityFindings(Connection c, EntitySpec entity, ReplayKeys keys) throws SQLException {
        String of = keys.where(entity, ErasedRecords.jsonKey(entity, "r.entity = " + Sql.literal(entity.name()), "f.v -> 'key'"));
        long n;
        try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM dimstream.integrity_runs r, jsonb_array_elements(r.findings) f(v) "
                + "WHERE r.entity = ? AND coalesce(" + of + ", false)")) {
            p.setString(1, entity.name());
            keys.bind(p, 2, entity);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                n = rs.getLong(1);
            }
        }
        if (n == 0) {
            return 0;
        }
        int first = 1;
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.integrity_runs r SET truncated = true, findings = "
                + "(SELECT coalesce(jsonb_agg(f.v ORDER BY f.n), '[]'::jsonb) FROM jsonb_array_elements(r.findings) WITH ORDINALITY f(v, n) "
                + "WHERE NOT coalesce(" + of + ", false)) WHERE r.entity = ? "
                + "AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.findings) f(v) WHERE coalesce(" + of + ", false))")) {
            first = keys.bind(p, first, entity);
            p.setString(first, entity.name());
            keys.bind(p, first + 1, entity);
            p.executeUpdate();
        }
        return n;
    }
}
