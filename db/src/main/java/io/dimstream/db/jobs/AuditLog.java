package io.dimstream.db.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code dimstream.admin_audit}: who did what, when. Every state-changing admin action writes its
 * entry with {@link #record} in the SAME transaction as the action, so an action without its
 * entry (or the reverse) cannot be committed.
 */
public final class AuditLog {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One audit entry; {@code detail} is a JSON object as text. */
    public record Entry(long id, Instant at, String actor, String action, String target, String detail) {
    }

    private final DataSource ds;

    public AuditLog(DataSource ds) {
        this.ds = ds;
    }

    /**
     * @param actor  the user (a login name, or {@code cli:<os user>}); must not be blank
     * @param action e.g. {@code replay.submit}, {@code quarantine.apply}
     * @param target what was acted on, e.g. {@code replay_job:12}
     */
    public static void record(Connection c, String actor, String action, String target, Map<String, ?> detail) throws SQLException {
        requireUser(actor);
        String json;
        try {
            json = JSON.writeValueAsString(detail);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("audit detail of " + action + " is not JSON-serializable: " + e.getMessage(), e);
        }
        try (PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.admin_audit (actor, action, target, detail) VALUES (?, ?, ?, ?::jsonb)")) {
            p.setString(1, actor);
            p.setString(2, action);
            p.setString(3, target);
            p.setString(4, json);
            p.executeUpdate();
        }
    }

    /**
     * A page of entries, newest first: of {@code actor} (all when null), whose action starts with
     * {@code actionPrefix} (all when null, e.g. {@code replay.}), with ids below {@code beforeId} (all when null).
     */
    public List<Entry> page(String actor, String actionPrefix, Long beforeId, int limit) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT id, at, actor, action, target, detail::text FROM dimstream.admin_audit "
                     + "WHERE (?::text IS NULL OR actor = ?) AND (?::text IS NULL OR starts_with(action, ?)) "
                     + "AND (?::bigint IS NULL OR id < ?) ORDER BY id DESC LIMIT ?")) {
            p.setString(1, actor);
            p.setString(2, actor);
            p.setString(3, actionPrefix);
            p.setString(4, actionPrefix);
            p.setObject(5, beforeId, java.sql.Types.BIGINT);
            p.setObject(6, beforeId, java.sql.Types.BIGINT);
            p.setInt(7, limit);
            List<Entry> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Entry(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6)));
                }
            }
            return out;
        }
    }

    static void requireUser(String user) {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("user: an admin action needs the name of the user who takes it");
        }
    }
}
