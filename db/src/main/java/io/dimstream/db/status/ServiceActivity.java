package io.dimstream.db.status;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What PostgreSQL says of the running service, for the top of the admin dashboard (the admin does
 * not call the service's {@code /health/*} endpoints): its newest committed batch, the partitions
 * that look stuck, the sink's skipped ranges and the newest integrity run.
 *
 * @param lastBatchAt       the newest row of {@code sink_batches} (kept a day); null: none
 * @param lastBatchPartition its {@code topic-partition}; null: none
 * @param partitions        partitions the sink has committed offsets for ({@code sink_offsets})
 * @param stuck             partitions ({@code topic-partition}) whose newest batch left records waiting
 *                          (lag &gt; 0) and committed nothing since for {@code stuckAfter}: the service's
 *                          readiness rule ({@code sink.stuck-after}) as seen from its bookkeeping
 * @param sinkGaps          ranges the sink skipped ({@code sink_gaps})
 * @param lastIntegrityAt   the newest integrity run of any entity; null: never
 * @param failedIntegrity   entities whose newest integrity run failed
 */
public record ServiceActivity(Instant lastBatchAt, String lastBatchPartition, long partitions, List<String> stuck, long sinkGaps,
                              Instant lastIntegrityAt, List<String> failedIntegrity) {

    public ServiceActivity {
        stuck = List.copyOf(stuck);
        failedIntegrity = List.copyOf(failedIntegrity);
    }

    /** The figures as of {@code now}; {@code stuckAfter}: the service's {@code sink.stuck-after} (default 5 min). */
    public static ServiceActivity read(DataSource ds, Instant now, Duration stuckAfter) throws SQLException {
        try (Connection c = ds.getConnection()) {
            Instant lastAt = null;
            String lastPartition = null;
            try (PreparedStatement p = c.prepareStatement("SELECT finished_at, topic || '-' || partition FROM dimstream.sink_batches "
                    + "ORDER BY finished_at DESC, id DESC LIMIT 1"); ResultSet rs = p.executeQuery()) {
                if (rs.next()) {
                    lastAt = rs.getObject(1, OffsetDateTime.class).toInstant();
                    lastPartition = rs.getString(2);
                }
            }
            List<String> stuck = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT topic || '-' || partition FROM (SELECT DISTINCT ON (topic, partition) "
                    + "topic, partition, lag, finished_at FROM dimstream.sink_batches ORDER BY topic, partition, finished_at DESC, id DESC) n "
                    + "WHERE lag > 0 AND finished_at < ?::timestamptz ORDER BY topic, partition")) {
                p.setObject(1, now.minus(stuckAfter).atOffset(java.time.ZoneOffset.UTC));
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        stuck.add(rs.getString(1));
                    }
                }
            }
            long partitions;
            long gaps;
            Instant integrityAt;
            try (PreparedStatement p = c.prepareStatement("SELECT (SELECT count(*) FROM dimstream.sink_offsets), "
                    + "(SELECT count(*) FROM dimstream.sink_gaps), (SELECT max(checked_at) FROM dimstream.integrity_runs)");
                 ResultSet rs = p.executeQuery()) {
                rs.next();
                partitions = rs.getLong(1);
                gaps = rs.getLong(2);
                OffsetDateTime t = rs.getObject(3, OffsetDateTime.class);
                integrityAt = t == null ? null : t.toInstant();
            }
            List<String> failed = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT entity FROM (SELECT DISTINCT ON (entity) entity, ok "
                    + "FROM dimstream.integrity_runs ORDER BY entity, id DESC) n WHERE NOT ok ORDER BY entity");
                 ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    failed.add(rs.getString(1));
                }
            }
            return new ServiceActivity(lastAt, lastPartition, partitions, stuck, gaps, integrityAt, failed);
        }
    }
}
