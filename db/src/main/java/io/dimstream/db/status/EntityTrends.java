package io.dimstream.db.status;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * An entity's figures over time, for the dashboard's charts: the window cut into equal buckets
 * ({@code generate_series}, so a bucket without a batch is a row of zeros, its lag and durations
 * null), each with the sink's batches of that bucket ({@code dimstream.sink_batches}: events by
 * class, rows changed, max lag, median and max batch duration, rejects), the DLQ records mirrored
 * ({@code dimstream.dlq_records}, by the DLQ record's timestamp, else the time it was mirrored) and
 * the events quarantined ({@code dimstream.quarantine.quarantined_at}).
 *
 * <p>{@code sink_batches} keeps one day ({@code SinkBatches.RETENTION}): a longer window shows the
 * sink's figures of the last day only; the DLQ and quarantine inflow go back the whole window.
 * Each table is read by its {@code (entity, time)} index range (dlq_records: by entity).
 */
public final class EntityTrends {

    /** The windows the dashboard offers, each with the bucket size that cuts it into a readable number of points. */
    public enum Window {
        M15("15m", Duration.ofMinutes(15), Duration.ofSeconds(30)),
        H1("1h", Duration.ofHours(1), Duration.ofMinutes(2)),
        H6("6h", Duration.ofHours(6), Duration.ofMinutes(10)),
        H24("24h", Duration.ofHours(24), Duration.ofMinutes(15)),
        D7("7d", Duration.ofDays(7), Duration.ofHours(2));

        public final String param;
        public final Duration length;
        public final Duration bucket;

        Window(String param, Duration length, Duration bucket) {
            this.param = param;
            this.length = length;
            this.bucket = bucket;
        }

        /** The window named {@code param} (15m, 1h, 6h, 24h, 7d); null or blank: 24h. */
        public static Window parse(String param) {
            if (param == null || param.isBlank()) {
                return H24;
            }
            for (Window w : values()) {
                if (w.param.equals(param)) {
                    return w;
                }
            }
            throw new IllegalArgumentException("window: '" + param + "' is not one of 15m, 1h, 6h, 24h, 7d");
        }

        /**
         * The window ending at the end of the bucket holding {@code now}, buckets aligned on the
         * epoch (so a refresh in the same bucket shows the same buckets).
         */
        public Instant endFor(Instant now) {
            long step = bucket.getSeconds();
            long end = Math.floorDiv(now.getEpochSecond(), step) * step + step;
            return Instant.ofEpochSecond(end);
        }
    }

    /** The first and the last batch {@code dimstream.sink_batches} holds of an entity (it keeps a day). */
    public record Activity(Instant first, Instant last) {
    }

    /** The entity's {@link Activity}, empty when it has no batch recorded; read by the {@code (entity, finished_at)} index. */
    public static Optional<Activity> activity(DataSource ds, String entity) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT min(finished_at), max(finished_at) FROM dimstream.sink_batches WHERE entity = ?")) {
            p.setString(1, entity);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                OffsetDateTime first = rs.getObject(1, OffsetDateTime.class);
                OffsetDateTime last = rs.getObject(2, OffsetDateTime.class);
                return first == null ? Optional.empty() : Optional.of(new Activity(first.toInstant(), last.toInstant()));
            }
        }
    }

    /**
     * One bucket {@code [start, start + bucket)}.
     *
     * @param rowsChanged  version rows inserted + updated + deleted by the sink
     * @param maxLag       the largest lag a batch of the bucket recorded; null: no batch recorded one
     * @param p50ApplyMs   the median batch duration (a batch's own value, percentile_disc); null: no batch
     * @param maxApplyMs   the longest batch; null: no batch
     * @param rejected     records the sink set aside (sink_batches.rejected)
     * @param dlqInflow    DLQ records mirrored with a timestamp in the bucket
     * @param quarantineInflow events quarantined in the bucket (whatever their status now)
     */
    public record Bucket(Instant start, long batches, long newKeys, long changed, long deleted, long unchanged, long late,
                         long duplicates, long quarantined, long rejected, long rowsChanged, Long maxLag, Integer p50ApplyMs,
                         Integer maxApplyMs, long dlqInflow, long quarantineInflow) {
    }

    private static final String SQL = """
            WITH b AS (SELECT i FROM generate_series(0, ? - 1) AS i),
            s AS (SELECT floor(extract(epoch FROM finished_at - ?::timestamptz) / ?)::int AS i, count(*) AS batches,
                         sum(new_keys) AS new_keys, sum(changed) AS changed, sum(deleted) AS deleted, sum(unchanged) AS unchanged,
                         sum(late) AS late, sum(duplicates) AS duplicates, sum(quarantined) AS quarantined, sum(rejected) AS rejected,
                         sum(rows_inserted + rows_updated + rows_deleted) AS rows_changed, max(lag) AS max_lag,
                         percentile_disc(0.5) WITHIN GROUP (ORDER BY apply_ms) AS p50_ms, max(apply_ms) AS max_ms
                  FROM dimstream.sink_batches WHERE entity = ? AND finished_at >= ?::timestamptz AND finished_at < ?::timestamptz
                  GROUP BY 1),
            d AS (SELECT floor(extract(epoch FROM coalesce(record_timestamp, received_at) - ?::timestamptz) / ?)::int AS i, count(*) AS n
                  FROM dimstream.dlq_records WHERE entity = ? AND coalesce(record_timestamp, received_at) >= ?::timestamptz
                  AND coalesce(record_timestamp, received_at) < ?::timestamptz GROUP BY 1),
            q AS (SELECT floor(extract(epoch FROM quarantined_at - ?::timestamptz) / ?)::int AS i, count(*) AS n
                  FROM dimstream.quarantine WHERE entity = ? AND quarantined_at >= ?::timestamptz AND quarantined_at < ?::timestamptz
                  GROUP BY 1)
            SELECT b.i, coalesce(s.batches, 0), coalesce(s.new_keys, 0), coalesce(s.changed, 0), coalesce(s.deleted, 0),
                   coalesce(s.unchanged, 0), coalesce(s.late, 0), coalesce(s.duplicates, 0), coalesce(s.quarantined, 0),
                   coalesce(s.rejected, 0), coalesce(s.rows_changed, 0), s.max_lag, s.p50_ms, s.max_ms,
                   coalesce(d.n, 0), coalesce(q.n, 0)
            FROM b LEFT JOIN s USING (i) LEFT JOIN d USING (i) LEFT JOIN q USING (i) ORDER BY b.i""";

    private EntityTrends() {
    }

    /** The entity's buckets of {@code window} ending at {@code end} (exclusive), oldest first. */
    public static List<Bucket> of(DataSource ds, String entity, Window window, Instant end) throws SQLException {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(end, "end");
        long step = window.bucket.getSeconds();
        int n = (int) (window.length.getSeconds() / step);
        Instant start = end.minus(window.length);
        OffsetDateTime from = start.atOffset(ZoneOffset.UTC);
        OffsetDateTime to = end.atOffset(ZoneOffset.UTC);
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(SQL)) {
            int i = 1;
            p.setInt(i++, n);
            for (int t = 0; t < 3; t++) {
                p.setObject(i++, from);
                p.setLong(i++, step);
                p.setString(i++, entity);
                p.setObject(i++, from);
                p.setObject(i++, to);
            }
            List<Bucket> out = new ArrayList<>(n);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    long maxLag = rs.getLong(12);
                    Long lag = rs.wasNull() ? null : maxLag;
                    int p50 = rs.getInt(13);
                    Integer p50Ms = rs.wasNull() ? null : p50;
                    int max = rs.getInt(14);
                    Integer maxMs = rs.wasNull() ? null : max;
                    out.add(new Bucket(start.plusSeconds(rs.getInt(1) * step), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                            rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11),
                            lag, p50Ms, maxMs, rs.getLong(15), rs.getLong(16)));
                }
            }
            return out;
        }
    }
}
