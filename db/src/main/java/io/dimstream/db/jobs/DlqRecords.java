package io.dimstream.db.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code dimstream.dlq_records}: a mirror of the dead-letter topics, so the admin UI can browse
 * them with their reasons and ask for a re-drive without talking to Kafka.
 * <ul>
 *   <li>{@link #previewPage}: a page with keys, values and headers cut to a preview in the
 *       database; {@link #payload}: one record's whole key and value (the admin's download);</li>
 *   <li>{@link #mirror}: inserts a DLQ record once (unique on its DLQ topic, partition and
 *       offset; a re-read after a crash changes nothing);</li>
 *   <li>{@link #requestRedrive}: a user asks for records to be produced back to their source
 *       topic (state {@code requested}, audited);</li>
 *   <li>{@link #claimRequested} / {@link #markDone} / {@link #markFailed}: the service's re-drive
 *       executor takes requested records under {@code FOR UPDATE SKIP LOCKED}, produces them, and
 *       marks them in the same transaction.</li>
 * </ul>
 */
public final class DlqRecords {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A record header; value may be null. */
    public record Header(String name, byte[] value) {
    }

    /** What the mirror reads off a DLQ topic. */
    public record Incoming(String entity, String sourceTopic, Integer sourcePartition, Long sourceOffset, String dlqTopic,
                           int dlqPartition, long dlqOffset, byte[] key, byte[] value, List<Header> headers, String error,
                           Instant recordTimestamp) {
    }

    /** One mirrored DLQ record and its re-drive state ({@code none}, {@code requested}, {@code done}, {@code failed}). */
    public record DlqRecord(long id, String entity, String sourceTopic, Integer sourcePartition, Long sourceOffset, String dlqTopic,
                            int dlqPartition, long dlqOffset, byte[] key, byte[] value, List<Header> headers, String error,
                            Instant recordTimestamp, Instant receivedAt, String redriveState, String redriveRequestedBy,
                            Instant redriveRequestedAt, Instant redrivenAt, String redriveError) {
    }

    private static final String COLUMNS = "id, entity, source_topic, source_partition, source_offset, dlq_topic, dlq_partition, "
            + "dlq_offset, key, value, headers::text, error, record_timestamp, received_at, redrive_state, redrive_requested_by, "
            + "redrive_requested_at, redriven_at, redrive_error";

    private final DataSource ds;

    public DlqRecords(DataSource ds) {
        this.ds = ds;
    }

    /**
     * Inserts records not mirrored yet, in the caller's transaction.
     *
     * @return how many were new
     */
    public static int mirror(Connection c, List<Incoming> records) throws SQLException {
        if (records.isEmpty()) {
            return 0;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.dlq_records (entity, source_topic, source_partition, "
                + "source_offset, dlq_topic, dlq_partition, dlq_offset, key, value, headers, error, record_timestamp) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?) ON CONFLICT (dlq_topic, dlq_partition, dlq_offset, record_timestamp) DO NOTHING")) {
            for (Incoming r : records) {
                p.setString(1, r.entity());
                p.setString(2, r.sourceTopic());
                p.setObject(3, r.sourcePartition());
                p.setObject(4, r.sourceOffset());
                p.setString(5, r.dlqTopic());
                p.setInt(6, r.dlqPartition());
                p.setLong(7, r.dlqOffset());
                p.setBytes(8, r.key());
                p.setBytes(9, r.value());
                p.setString(10, headersJson(r.headers()));
                p.setString(11, r.error());
                p.setTimestamp(12, r.recordTimestamp() == null ? null : Timestamp.from(r.recordTimestamp()));
                p.addBatch();
            }
            int n = 0;
            for (int u : p.executeBatch()) {
                n += Math.max(u, 0);
            }
            return n;
        }
    }

    /** In a transaction of its own. */
    public int mirror(List<Incoming> records) throws SQLException {
        return Transactions.inTransaction(ds, c -> mirror(c, records));
    }

    /** A page, newest first: records of {@code entity} (all when null) with ids below {@code beforeId} (all when null). */
    public List<DlqRecord> page(String entity, Long beforeId, int limit) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.dlq_records WHERE (?::text IS NULL OR entity = ?) "
                     + "AND (?::bigint IS NULL OR id < ?) ORDER BY id DESC LIMIT ?")) {
            p.setString(1, entity);
            p.setString(2, entity);
            p.setObject(3, beforeId);
            p.setObject(4, beforeId);
            p.setInt(5, limit);
            return read(p);
        }
    }

    /**
     * A record as a page lists it: its key, value and header values cut to a preview (the full
     * sizes beside them), so a page of records near Kafka's 1 MB limit stays small.
     *
     * @param keyLength   the whole key's size in bytes (0 for a null key)
     * @param valueLength the whole value's size in bytes (0 for a null value)
     * @param headers     at most {@value #PREVIEW_HEADERS} headers, each value cut
     * @param headerCount how many headers the record has
     * @param errorLength the whole reason's length in characters
     */
    public record Preview(DlqRecord record, int keyLength, int valueLength, List<HeaderPreview> headers, int headerCount,
                          int errorLength) {
    }

    /** A header as a page shows it: its value cut, and the whole value's size in bytes (0 for null). */
    public record HeaderPreview(String name, byte[] value, int length) {
    }

    /** Headers per record a preview lists. */
    public static final int PREVIEW_HEADERS = 10;
    /** Characters of a header name, and of the reason, a preview keeps. */
    public static final int PREVIEW_TEXT = 2048;

    /**
     * A page like {@link #page}, each key and value cut to {@code previewBytes} and each header
     * value to {@code headerBytes} in the database, so a page never loads whole payloads.
     */
    public List<Preview> previewPage(String entity, Long beforeId, int limit, int previewBytes, int headerBytes) throws SQLException {
        // base64 text of headerBytes bytes (whole 4-character groups decode on their own)
        int headerChars = 4 * ((headerBytes + 2) / 3);
        String sql = "SELECT id, entity, source_topic, source_partition, source_offset, dlq_topic, dlq_partition, dlq_offset, "
                + "substring(key FROM 1 FOR ?), substring(value FROM 1 FOR ?), "
                + "(SELECT coalesce(jsonb_agg(jsonb_build_object('name', left(h.e->>'name', ?), 'value', left(h.e->>'value', ?), "
                + "'length', coalesce(octet_length(decode(h.e->>'value', 'base64')), 0)) ORDER BY h.n), '[]'::jsonb) "
                + "FROM jsonb_array_elements(headers) WITH ORDINALITY AS h(e, n) WHERE h.n <= ?)::text, "
                + "left(error, ?), record_timestamp, received_at, redrive_state, redrive_requested_by, redrive_requested_at, "
                + "redriven_at, redrive_error, coalesce(octet_length(key), 0), coalesce(octet_length(value), 0), "
                + "jsonb_array_length(headers), coalesce(char_length(error), 0) "
                + "FROM dimstream.dlq_records WHERE (?::text IS NULL OR entity = ?) AND (?::bigint IS NULL OR id < ?) ORDER BY id DESC LIMIT ?";
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            int i = 1;
            p.setInt(i++, previewBytes);
            p.setInt(i++, previewBytes);
            p.setInt(i++, PREVIEW_TEXT);
            p.setInt(i++, headerChars);
            p.setInt(i++, PREVIEW_HEADERS);
            p.setInt(i++, PREVIEW_TEXT);
            p.setString(i++, entity);
            p.setString(i++, entity);
            p.setObject(i++, beforeId);
            p.setObject(i++, beforeId);
            p.setInt(i, limit);
            List<Preview> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    int sp = rs.getInt(4);
                    Integer srcPartition = rs.wasNull() ? null : sp;
                    long so = rs.getLong(5);
                    Long srcOffset = rs.wasNull() ? null : so;
                    List<HeaderPreview> headers = parseHeaderPreviews(rs.getString(11), headerBytes);
                    DlqRecord r = new DlqRecord(rs.getLong(1), rs.getString(2), rs.getString(3), srcPartition, srcOffset, rs.getString(6),
                            rs.getInt(7), rs.getLong(8), rs.getBytes(9), rs.getBytes(10),
                            headers.stream().map(h -> new Header(h.name(), h.value())).toList(), rs.getString(12),
                            instant(rs.getTimestamp(13)), instant(rs.getTimestamp(14)), rs.getString(15), rs.getString(16),
                            instant(rs.getTimestamp(17)), instant(rs.getTimestamp(18)), rs.getString(19));
                    out.add(new Preview(r, rs.getInt(20), rs.getInt(21), headers, rs.getInt(22), rs.getInt(23)));
                }
            }
            return out;
        }
    }

    /** The whole key or value of one record; empty when there is no such record. */
    public Optional<Payload> payload(long id) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT entity, key, value FROM dimstream.dlq_records WHERE id = ?")) {
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(new Payload(rs.getString(1), rs.getBytes(2), rs.getBytes(3))) : Optional.empty();
            }
        }
    }

    /** A record's whole key and value (either may be null). */
    public record Payload(String entity, byte[] key, byte[] value) {
    }

    private static List<HeaderPreview> parseHeaderPreviews(String json, int headerBytes) {
        try {
            List<Map<String, Object>> list = JSON.readValue(json, new TypeReference<List<Map<String, Object>>>() { });
            List<HeaderPreview> out = new ArrayList<>();
            for (Map<String, Object> m : list) {
                Object v = m.get("value");
                byte[] bytes = v == null ? null : Base64.getDecoder().decode((String) v);
                if (bytes != null && bytes.length > headerBytes) {
                    bytes = java.util.Arrays.copyOf(bytes, headerBytes);
                }
                out.add(new HeaderPreview((String) m.get("name"), bytes, ((Number) m.get("length")).intValue()));
            }
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("dlq_records.headers preview is not a JSON list of {name, value, length}: " + json, e);
        }
    }

    /** Records not re-driven yet, per entity. */
    public Map<String, Long> countsByEntity() throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT entity, count(*) FROM dimstream.dlq_records WHERE redrive_state <> 'done' "
                     + "GROUP BY entity ORDER BY entity");
             ResultSet rs = p.executeQuery()) {
            Map<String, Long> m = new LinkedHashMap<>();
            while (rs.next()) {
                m.put(rs.getString(1), rs.getLong(2));
            }
            return m;
        }
    }

    /**
     * Asks for records to be produced back to their source topic (those not yet requested or
     * done; a failed one may be asked again), audited as {@code dlq.redrive} with the ids.
     *
     * @return the ids now requested
     */
    public List<Long> requestRedrive(List<Long> ids, String user) throws SQLException {
        AuditLog.requireUser(user);
        return Transactions.inTransaction(ds, c -> {
            List<Long> done = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.dlq_records SET redrive_state = 'requested', "
                    + "redrive_requested_by = ?, redrive_requested_at = now(), redrive_error = NULL "
                    + "WHERE id = ANY (?) AND redrive_state IN ('none', 'failed') AND source_topic IS NOT NULL RETURNING id")) {
                p.setString(1, user);
                p.setArray(2, c.createArrayOf("bigint", ids.toArray()));
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        done.add(rs.getLong(1));
                    }
                }
            }
            done.sort(null);
            if (!done.isEmpty()) {
                AuditLog.record(c, user, "dlq.redrive", "dlq_records:" + done, Map.of("ids", done));
            }
            return done;
        });
    }

    /** Requested records, locked for the caller's transaction (others skip them). */
    public static List<DlqRecord> claimRequested(Connection c, int limit) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM dimstream.dlq_records WHERE redrive_state = 'requested' "
                + "ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED")) {
            p.setInt(1, limit);
            return read(p);
        }
    }

    public static void markDone(Connection c, long id) throws SQLException {
        mark(c, id, "done", null);
    }

    public static void markFailed(Connection c, long id, String error) throws SQLException {
        mark(c, id, "failed", error);
    }

    private static void mark(Connection c, long id, String state, String error) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.dlq_records SET redrive_state = ?, redrive_error = ?, "
                + "redriven_at = CASE WHEN ? = 'done' THEN now() ELSE redriven_at END WHERE id = ?")) {
            p.setString(1, state);
            p.setString(2, error);
            p.setString(3, state);
            p.setLong(4, id);
            p.executeUpdate();
        }
    }

    private static List<DlqRecord> read(PreparedStatement p) throws SQLException {
        List<DlqRecord> out = new ArrayList<>();
        try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                int sp = rs.getInt(4);
                Integer srcPartition = rs.wasNull() ? null : sp;
                long so = rs.getLong(5);
                Long srcOffset = rs.wasNull() ? null : so;
                out.add(new DlqRecord(rs.getLong(1), rs.getString(2), rs.getString(3), srcPartition, srcOffset, rs.getString(6),
                        rs.getInt(7), rs.getLong(8), rs.getBytes(9), rs.getBytes(10), parseHeaders(rs.getString(11)), rs.getString(12),
                        instant(rs.getTimestamp(13)), instant(rs.getTimestamp(14)), rs.getString(15), rs.getString(16),
                        instant(rs.getTimestamp(17)), instant(rs.getTimestamp(18)), rs.getString(19)));
            }
        }
        return out;
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    static String headersJson(List<Header> headers) {
        List<Map<String, String>> list = new ArrayList<>();
        for (Header h : headers) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("name", h.name());
            m.put("value", h.value() == null ? null : Base64.getEncoder().encodeToString(h.value()));
            list.add(m);
        }
        try {
            return JSON.writeValueAsString(list);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Header> parseHeaders(String json) {
        try {
            List<Map<String, String>> list = JSON.readValue(json, new TypeReference<List<Map<String, String>>>() { });
            List<Header> out = new ArrayList<>();
            for (Map<String, String> m : list) {
                String v = m.get("value");
                out.add(new Header(m.get("name"), v == null ? null : Base64.getDecoder().decode(v)));
            }
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("dlq_records.headers is not a JSON list of {name, value}: " + json, e);
        }
    }
}
