package io.dimstream.db.read;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the invariants of DESIGN section 3 on an entity's table, in one statement: a single
 * pass computes, per key ordered by {@code valid_from}, the neighbours of every row with
 * {@code LAG}/{@code LEAD} and the per-key counts with {@code count(*) FILTER}; the findings are
 * the rows that break a rule ({@link Finding.Kind}). No self-joins; the sort is by
 * {@code (key, valid_from)}, the primary key's order.
 *
 * <p>The table dimstream creates already prevents some of these (a generated {@code is_current},
 * one open row per key, unique {@code (key, valid_from)}); the check still runs them all, so it
 * also vouches for tables created or edited by hand.
 *
 * <p>At most {@code maxFindingsPerKind} findings of each kind are listed (the first in key order);
 * {@link IntegrityReport#counts()} holds the true totals.
 */
public final class IntegrityChecker {

    public static final int DEFAULT_MAX_FINDINGS_PER_KIND = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(IntegrityChecker.class);
    private static final Finding.Kind[] KINDS = Finding.Kind.values();

    private final DataSource ds;
    private final int maxFindingsPerKind;

    public IntegrityChecker(DataSource ds) {
        this(ds, DEFAULT_MAX_FINDINGS_PER_KIND);
    }

    public IntegrityChecker(DataSource ds, int maxFindingsPerKind) {
        if (maxFindingsPerKind <= 0) {
            throw new IllegalArgumentException("maxFindingsPerKind must be > 0, got " + maxFindingsPerKind);
        }
        this.ds = Objects.requireNonNull(ds, "ds");
        this.maxFindingsPerKind = maxFindingsPerKind;
    }

    public IntegrityReport check(EntitySpec e) throws SQLException {
        Columns cols = new Columns(e);
        int keyWidth = e.key().size();
        long rows = 0;
        List<Finding> findings = new ArrayList<>();
        Map<Finding.Kind, Long> counts = new EnumMap<>(Finding.Kind.class);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql(e))) {
            ps.setInt(1, maxFindingsPerKind);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows = rs.getLong(1);
                    int kindIndex = rs.getInt(2);
                    if (rs.wasNull()) {
                        continue; // no findings at all: the one row that carries the row count
                    }
                    Finding.Kind kind = KINDS[kindIndex];
                    counts.put(kind, rs.getLong(3));
                    Map<String, Object> key = cols.readKey(rs, 4);
                    int i = 4 + keyWidth;
                    Instant validFrom = Columns.instant(rs, i);
                    Instant t1 = Columns.instant(rs, i + 1);
                    Instant t2 = Columns.instant(rs, i + 2);
                    long n = rs.getLong(i + 3);
                    Boolean b1 = bool(rs, i + 4);
                    Boolean b2 = bool(rs, i + 5);
                    findings.add(new Finding(kind, key, validFrom, detail(e.system(), kind, t1, t2, n, b1, b2)));
                }
            }
        }
        IntegrityReport report = new IntegrityReport(e.name(), rows, findings, counts);
        if (report.ok()) {
            LOG.info("integrity of {}: {} rows, no findings", e.name(), rows);
        } else {
            LOG.warn("integrity of {}: {} rows, findings {}", e.name(), rows, report.counts());
        }
        return report;
    }

    /**
     * The one statement. Finding columns: kind (the {@link Finding.Kind} ordinal), the kind's
     * total, the key, the row's valid_from, then t1, t2, n, b1, b2 whose meaning depends on the kind
     * (see {@link #detail}). One parameter: the cap per kind.
     */
    static String sql(EntitySpec e) {
        SystemColumns sc = e.system();
        String k = Sql.list(e.key());
        String vf = Sql.ident(sc.validFrom());
        String vt = Sql.ident(sc.validTo());
        String cur = Sql.ident(sc.isCurrent());
        String del = Sql.ident(sc.isDeleted());
        return "WITH w AS MATERIALIZED (\n"
                + "  SELECT " + k + ", " + vf + ", " + vt + ", " + cur + ", " + del + ",\n"
                + "         row_number() OVER o AS ds_rn, count(*) OVER p AS ds_versions,\n"
                + "         lag(" + vf + ") OVER o AS ds_prev_vf, lag(" + vt + ") OVER o AS ds_prev_vt, lead(" + vf + ") OVER o AS ds_next_vf\n"
                + "  FROM " + Sql.table(e.table()) + "\n"
                + "  WINDOW p AS (PARTITION BY " + k + "), o AS (PARTITION BY " + k + " ORDER BY " + vf + ")\n"
                + "), f (ds_kind, " + k + ", ds_vf, ds_t1, ds_t2, ds_n, ds_b1, ds_b2) AS (\n"
                // DUPLICATE_CURRENT: once per key, at its first current row; t1 = the last current row's valid_from
                + "  SELECT " + Finding.Kind.DUPLICATE_CURRENT.ordinal() + ", " + k + ", min(" + vf + ") FILTER (WHERE " + cur + "), max(" + vf
                + ") FILTER (WHERE " + cur + "), NULL::timestamptz, count(*) FILTER (WHERE " + cur + "), NULL::boolean, NULL::boolean\n"
                + "  FROM w GROUP BY " + k + " HAVING count(*) FILTER (WHERE " + cur + ") > 1\n"
                // OVERLAP: t1, t2 = the previous version's valid_from, valid_to
                + "  UNION ALL SELECT " + Finding.Kind.OVERLAP.ordinal() + ", " + k + ", " + vf + ", ds_prev_vf, ds_prev_vt, NULL::bigint, NULL::boolean, NULL::boolean\n"
                + "  FROM w WHERE ds_rn > 1 AND (ds_prev_vt IS NULL OR ds_prev_vt > " + vf + ")\n"
                // GAP: t1 = valid_to, t2 = the next version's valid_from
                + "  UNION ALL SELECT " + Finding.Kind.GAP.ordinal() + ", " + k + ", " + vf + ", " + vt + ", ds_next_vf, NULL::bigint, NULL::boolean, NULL::boolean\n"
                + "  FROM w WHERE " + vt + " < ds_next_vf\n"
                // CURRENT_FLAG_INCONSISTENT: t1 = valid_to, b1 = is_current, b2 = is_deleted
                + "  UNION ALL SELECT " + Finding.Kind.CURRENT_FLAG_INCONSISTENT.ordinal() + ", " + k + ", " + vf + ", " + vt + ", NULL::timestamptz, NULL::bigint, "
                + cur + ", " + del + "\n"
                + "  FROM w WHERE " + cur + " IS DISTINCT FROM (" + vt + " IS NULL AND NOT " + del + ")\n"
                // NO_CURRENT: the key's last row is closed; t1 = valid_to, b1 = is_deleted
                + "  UNION ALL SELECT " + Finding.Kind.NO_CURRENT.ordinal() + ", " + k + ", " + vf + ", " + vt + ", NULL::timestamptz, NULL::bigint, "
                + del + ", NULL::boolean\n"
                + "  FROM w WHERE ds_rn = ds_versions AND " + vt + " IS NOT NULL\n"
                + "), r AS (\n"
                + "  SELECT f.*, count(*) OVER (PARTITION BY ds_kind) AS ds_total,\n"
                + "         row_number() OVER (PARTITION BY ds_kind ORDER BY " + k + ", ds_vf) AS ds_kind_rn\n"
                + "  FROM f\n"
                + ")\n"
                + "SELECT (SELECT count(*) FROM w), r.ds_kind, r.ds_total, " + Sql.list("r", e.key())
                + ", r.ds_vf, r.ds_t1, r.ds_t2, r.ds_n, r.ds_b1, r.ds_b2\n"
                + "FROM (SELECT 1) AS one LEFT JOIN r ON r.ds_kind_rn <= ?\n"
                + "ORDER BY r.ds_kind, " + Sql.list("r", e.key()) + ", r.ds_vf";
    }

    private static String detail(SystemColumns sc, Finding.Kind kind, Instant t1, Instant t2, long n, Boolean b1, Boolean b2) {
        return switch (kind) {
            case DUPLICATE_CURRENT -> n + " rows have " + sc.isCurrent() + " = true (the last from " + sc.validFrom() + " " + t1
                    + "); at most one is allowed";
            case OVERLAP -> t2 == null
                    ? "starts while the previous version (" + sc.validFrom() + " " + t1 + ") is still open (" + sc.validTo() + " NULL)"
                    : "starts before the previous version (" + sc.validFrom() + " " + t1 + ") ends at " + t2;
            case GAP -> "ends at " + sc.validTo() + " " + t1 + " but the next version starts at " + t2;
            case CURRENT_FLAG_INCONSISTENT -> sc.isCurrent() + " = " + b1 + " but " + sc.validTo() + " = " + (t1 == null ? "NULL" : t1) + " and "
                    + sc.isDeleted() + " = " + b2 + ", so it must be " + (t1 == null && Boolean.FALSE.equals(b2));
            case NO_CURRENT -> "the key's last version is closed at " + sc.validTo() + " " + t1 + " (" + sc.isDeleted() + " = " + b1
                    + "); the last version must be open";
        };
    }

    private static Boolean bool(ResultSet rs, int index) throws SQLException {
        boolean b = rs.getBoolean(index);
        return rs.wasNull() ? null : b;
    }
}
