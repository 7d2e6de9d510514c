package io.dimstream.db.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.db.read.Finding;
import io.dimstream.db.read.IntegrityReport;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code dimstream.integrity_runs}: integrity reports run from the admin, with who ran them. The
 * newest {@value #KEEP} runs per entity are kept.
 */
public final class IntegrityRuns {

    public static final int KEEP = 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A finding as stored: key values as JSON gave them back (text, numbers, booleans). */
    public record StoredFinding(String kind, Map<String, Object> key, Instant validFrom, String detail) {
    }

    /** One stored run. {@code counts}: the true number of findings per kind (kinds without any absent). */
    public record Run(long id, String entity, Instant checkedAt, String checkedBy, long millis, long rowsChecked, boolean ok,
                      Map<String, Long> counts, List<StoredFinding> findings, boolean truncated) {
        public Run {
            counts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts));
            findings = List.copyOf(findings);
        }
    }

    private final DataSource ds;

    public IntegrityRuns(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /**
     * Stores a report, drops the entity's runs beyond the newest {@value #KEEP} and writes the
     * {@code integrity.run} entry of {@code dimstream.admin_audit} with {@code checkedBy}, in one transaction.
     */
    public Run save(IntegrityReport report, String checkedBy, long millis) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        report.counts().forEach((k, n) -> counts.put(k.name(), n));
        List<Map<String, Object>> findings = new ArrayList<>();
        for (Finding f : report.findings()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", f.kind().name());
            Map<String, Object> key = new LinkedHashMap<>();
            f.key().forEach((k, v) -> key.put(k, v == null || v instanceof Number || v instanceof Boolean ? v : v.toString()));
            m.put("key", key);
            m.put("valid_from", f.validFrom() == null ? null : f.validFrom().toString());
            m.put("detail", f.detail());
            findings.add(m);
        }
        String countsJson;
        String findingsJson;
        try {
            countsJson = JSON.writeValueAsString(counts);
            findingsJson = JSON.writeValueAsString(findings);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the integrity report of " + report.entity() + " as JSON", e);
        }
        try (Connection c = ds.getConnection()) {
            long id = Transactions.inTransaction(c, tx -> {
                long runId;
                try (PreparedStatement p = tx.prepareStatement("INSERT INTO dimstream.integrity_runs (entity, checked_by, millis, "
                        + "rows_checked, ok, counts, findings, truncated) VALUES (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) RETURNING id")) {
                    p.setString(1, report.entity());
                    p.setString(2, checkedBy);
                    p.setLong(3, millis);
                    p.setLong(4, report.rowsChecked());
                    p.setBoolean(5, report.ok());
                    p.setString(6, countsJson);
                    p.setString(7, findingsJson);
                    p.setBoolean(8, report.truncated());
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        runId = rs.getLong(1);
                    }
                }
                try (PreparedStatement p = tx.prepareStatement("DELETE FROM dimstream.integrity_runs WHERE entity = ? AND id NOT IN "
                        + "(SELECT id FROM dimstream.integrity_runs WHERE entity = ? ORDER BY id DESC LIMIT " + KEEP + ")")) {
                    p.setString(1, report.entity());
                    p.setString(2, report.entity());
                    p.executeUpdate();
                }
                Map<String, Object> audit = new LinkedHashMap<>();
                audit.put("run", runId);
                audit.put("ok", report.ok());
                audit.put("rows_checked", report.rowsChecked());
                audit.put("counts", counts);
                io.dimstream.db.jobs.AuditLog.record(tx, checkedBy, "integrity.run", "entity:" + report.entity(), audit);
                return runId;
            });
            return latest(c, report.entity()).filter(r -> r.id() == id)
                    .orElseThrow(() -> new SQLException("the integrity run just stored is gone"));
        }
    }

    /** The entity's newest run, if any. */
    public Optional<Run> latest(String entity) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return latest(c, entity);
        }
    }

    private static Optional<Run> latest(Connection c, String entity) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT id, entity, checked_at, checked_by, millis, rows_checked, ok, "
                + "counts::text, findings::text, truncated FROM dimstream.integrity_runs WHERE entity = ? ORDER BY id DESC LIMIT 1")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Map<String, Long> counts = JSON.readValue(rs.getString(8), new TypeReference<LinkedHashMap<String, Long>>() {
                });
                List<Map<String, Object>> raw = JSON.readValue(rs.getString(9), new TypeReference<List<Map<String, Object>>>() {
                });
                List<StoredFinding> findings = new ArrayList<>();
                for (Map<String, Object> m : raw) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> key = (Map<String, Object>) m.get("key");
                    Object vf = m.get("valid_from");
                    findings.add(new StoredFinding((String) m.get("kind"), key, vf == null ? null : Instant.parse((String) vf),
                            (String) m.get("detail")));
                }
                return Optional.of(new Run(rs.getLong(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class).toInstant(),
                        rs.getString(4), rs.getLong(5), rs.getLong(6), rs.getBoolean(7), counts, findings, rs.getBoolean(10)));
            } catch (JsonProcessingException e) {
                throw new SQLException("integrity_runs of " + entity + " holds JSON that does not read back: " + e.getMessage(), e);
            }
        }
    }
}
