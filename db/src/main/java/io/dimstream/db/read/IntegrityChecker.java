package io.dimstream.db.read;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the invariants of DESIGN section 3 on an entity's table, in one statement: a single
 * pass computes, per key ordered by {@code valid_from}, the neighbours of every row with
 * {@code LAG}/{@code LEAD} and the per-key counts with {@code count(*) FILTER}; the findings are
 * the rows that break a rule ({@link Finding.Kind}). No self-joins and no GROUP BY: the per-key
 * windows share one ordering, {@code (key, valid_from)}, which a scan of the primary key delivers
 * without a sort; the one window by {@code surrogate_key} (duplicates) costs one sort of the
 * table, since the table need not have an index on it.
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
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql(e, keepsTransactionTime(c, e)))) {
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
                    Instant t1 = Columns.validTo(rs, i + 1);
                    Instant t2 = Columns.validTo(rs, i + 2);
                    long n = rs.getLong(i + 3);
                    Boolean b1 = bool(rs, i + 4);
                    Boolean b2 = bool(rs, i + 5);
                    long n2 = rs.getLong(i + 6);
                    findings.add(new Finding(kind, key, validFrom, detail(e, kind, t1, t2, n, b1, b2, n2)));
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
     * The one statement. A single window pass over the table in {@code (key, valid_from)} order
     * keeps only the rows that break at least one rule; those few rows are unpivoted into one
     * finding per broken rule, numbered and counted per kind. The row count comes from a scalar
     * subquery of the same statement, so it sees the same snapshot.
     *
     * <p>Result columns: rows checked, kind (the {@link Finding.Kind} ordinal, NULL on the one row
     * returned when nothing is wrong), the kind's total, the key, the finding's valid_from, then
     * t1, t2, n, b1, b2, n2 whose meaning depends on the kind (see {@link #rules}). One parameter: the
     * cap per kind.
     */
    static String sql(EntitySpec e, boolean transactionTime) {
        SystemColumns sc = e.system();
        String k = Sql.list(e.key());
        String vf = Sql.ident(sc.validFrom());
        String vt = Sql.ident(sc.validTo());
        String cur = Sql.ident(sc.isCurrent());
        String sk = Sql.ident(sc.surrogateKey());
        List<Rule> rules = rules(e, transactionTime);
        StringBuilder values = new StringBuilder();
        for (Rule r : rules) {
            values.append(values.length() == 0 ? "    " : ",\n    ").append("(").append(r.kind().ordinal()).append(", ").append(r.condition())
                    .append(", ").append(r.columns()).append(")");
        }
        return "WITH bad AS (\n"
                + "  SELECT * FROM (\n"
                + "    SELECT " + k + ", " + vf + ", " + vt + ", " + cur + ", " + Sql.ident(sc.isDeleted()) + ", " + sk + ",\n"
                + (transactionTime ? "           " + Sql.ident(sc.knownFrom()) + ", " + Sql.ident(sc.endKnownFrom()) + ",\n" : "")
                + "           count(*) OVER s AS ds_sk_n, row_number() OVER (PARTITION BY " + sk + " ORDER BY " + k + ", " + vf + ") AS ds_sk_rn,\n"
                + "           row_number() OVER o AS ds_rn, count(*) OVER p AS ds_versions,\n"
                + "           count(*) FILTER (WHERE " + cur + ") OVER p AS ds_currents,\n"
                + "           min(" + vf + ") FILTER (WHERE " + cur + ") OVER p AS ds_first_current,\n"
                + "           max(" + vf + ") FILTER (WHERE " + cur + ") OVER p AS ds_last_current,\n"
                + "           lag(" + vf + ") OVER o AS ds_prev_vf, lag(" + vt + ") OVER o AS ds_prev_vt, lead(" + vf + ") OVER o AS ds_next_vf\n"
                + "    FROM " + Sql.table(e.table()) + "\n"
                + "    WINDOW p AS (PARTITION BY " + k + "), o AS (PARTITION BY " + k + " ORDER BY " + vf + "), s AS (PARTITION BY " + sk + ")\n"
                + "  ) w\n"
                + "  WHERE " + rules.stream().map(r -> "(" + r.condition() + ")").collect(Collectors.joining("\n     OR ")) + "\n"
                + "), f AS (\n"
                + "  SELECT " + Sql.list("w", e.key()) + ", v.*\n"
                + "  FROM bad AS w CROSS JOIN LATERAL (VALUES\n" + values + "\n"
                + "  ) AS v (ds_kind, ds_hit, ds_vf, ds_t1, ds_t2, ds_n, ds_b1, ds_b2, ds_n2)\n"
                + "  WHERE v.ds_hit\n"
                + "), r AS (\n"
                + "  SELECT f.*, count(*) OVER (PARTITION BY ds_kind) AS ds_total,\n"
                + "         row_number() OVER (PARTITION BY ds_kind ORDER BY " + k + ", ds_vf) AS ds_kind_rn\n"
                + "  FROM f\n"
                + ")\n"
                + "SELECT (SELECT count(*) FROM " + Sql.table(e.table()) + "), r.ds_kind, r.ds_total, " + Sql.list("r", e.key())
                + ", r.ds_vf, r.ds_t1, r.ds_t2, r.ds_n, r.ds_b1, r.ds_b2, r.ds_n2\n"
                + "FROM (SELECT 1) AS one LEFT JOIN r ON r.ds_kind_rn <= ?\n"
                + "ORDER BY r.ds_kind, " + Sql.list("r", e.key()) + ", r.ds_vf";
    }

    /** Whether the entity keeps transaction time and its table has the columns (a table made by hand may not, until a start adds them). */
    private static boolean keepsTransactionTime(Connection c, EntitySpec e) throws SQLException {
        if (!e.transactionTime()) {
            return false;
        }
        try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass(?) AND attname IN (?, ?) "
                + "AND NOT attisdropped")) {
            p.setString(1, Sql.table(e.table()));
            p.setString(2, e.system().knownFrom());
            p.setString(3, e.system().endKnownFrom());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 2;
            }
        }
    }

    /**
     * One rule per kind: the condition on a row of the window pass, and the finding's columns
     * {@code valid_from, t1, t2, n, b1, b2, n2}.
     */
    private record Rule(Finding.Kind kind, String condition, String columns) {
    }

    private static List<Rule> rules(EntitySpec e, boolean transactionTime) {
        SystemColumns sc = e.system();
        ValidToCurrent open = e.validToCurrent();
        String vf = "w." + Sql.ident(sc.validFrom());
        String vt = "w." + Sql.ident(sc.validTo());
        String cur = "w." + Sql.ident(sc.isCurrent());
        String del = "w." + Sql.ident(sc.isDeleted());
        String none = "NULL::timestamptz";
        List<Rule> rules = new ArrayList<>(List.of(
                // once per key (on its first row), at its first current row; t1 = the last current row's valid_from, n = how many
                new Rule(Finding.Kind.DUPLICATE_CURRENT, "w.ds_rn = 1 AND w.ds_currents > 1",
                        "w.ds_first_current, w.ds_last_current, " + none + ", w.ds_currents, NULL::boolean, NULL::boolean, NULL::bigint"),
                // t1, t2 = the previous version's valid_from, valid_to
                new Rule(Finding.Kind.OVERLAP, "w.ds_rn > 1 AND " + open.endsAfter("w.ds_prev_vt", vf),
                        vf + ", w.ds_prev_vf, w.ds_prev_vt, NULL::bigint, NULL::boolean, NULL::boolean, NULL::bigint"),
                // t1 = valid_to, t2 = the next version's valid_from (valid_to past it is the next row's OVERLAP)
                new Rule(Finding.Kind.GAP, vt + " < w.ds_next_vf",
                        vf + ", " + vt + ", w.ds_next_vf, NULL::bigint, NULL::boolean, NULL::boolean, NULL::bigint"),
                // t1 = valid_to, b1 = is_current, b2 = is_deleted
                new Rule(Finding.Kind.CURRENT_FLAG_INCONSISTENT, cur + " IS DISTINCT FROM (" + open.openTest(vt) + " AND NOT " + del + ")",
                        vf + ", " + vt + ", " + none + ", NULL::bigint, " + cur + ", " + del + ", NULL::bigint"),
                // the key's last row is closed; t1 = valid_to, b1 = is_deleted
                new Rule(Finding.Kind.NO_CURRENT, "w.ds_rn = w.ds_versions AND NOT (" + open.openTest(vt) + ")",
                        vf + ", " + vt + ", " + none + ", NULL::bigint, " + del + ", NULL::boolean, NULL::bigint"),
                // once per surrogate key shared by several versions, at the first; n = how many, n2 = the surrogate key
                new Rule(Finding.Kind.DUPLICATE_SURROGATE_KEY, "w.ds_sk_rn = 1 AND w.ds_sk_n > 1",
                        vf + ", " + none + ", " + none + ", w.ds_sk_n, NULL::boolean, NULL::boolean, w." + Sql.ident(sc.surrogateKey()))));
        if (transactionTime) {
            // a row written with transaction time (known_from set): an end known exactly when closed, not before the row;
            // t1 = known_from, t2 = end_known_from, b1 = open
            String kf = "w." + Sql.ident(sc.knownFrom());
            String ekf = "w." + Sql.ident(sc.endKnownFrom());
            rules.add(new Rule(Finding.Kind.TRANSACTION_TIME, kf + " IS NOT NULL AND ((" + open.openTest(vt) + ") = (" + ekf + " IS NOT NULL) OR "
                    + ekf + " < " + kf + ")", vf + ", " + kf + ", " + ekf + ", NULL::bigint, " + open.openTest(vt) + ", NULL::boolean, NULL::bigint"));
        }
        return rules;
    }

    /** The finding's sentence; {@code t1}, {@code t2} null for an open {@code valid_to} (NULL or infinity, as the entity says). */
    private static String detail(EntitySpec e, Finding.Kind kind, Instant t1, Instant t2, long n, Boolean b1, Boolean b2, long n2) {
        SystemColumns sc = e.system();
        String open = e.validToCurrent().configName().toUpperCase(Locale.ROOT);
        return switch (kind) {
            case DUPLICATE_CURRENT -> n + " rows have " + sc.isCurrent() + " = true (the last from " + sc.validFrom() + " " + t1
                    + "); at most one is allowed";
            case OVERLAP -> t2 == null
                    ? "starts while the previous version (" + sc.validFrom() + " " + t1 + ") is still open (" + sc.validTo() + " " + open + ")"
                    : "starts before the previous version (" + sc.validFrom() + " " + t1 + ") ends at " + t2;
            case GAP -> "ends at " + sc.validTo() + " " + t1 + " but the next version starts at " + t2;
            case CURRENT_FLAG_INCONSISTENT -> sc.isCurrent() + " = " + b1 + " but " + sc.validTo() + " = " + (t1 == null ? open : t1) + " and "
                    + sc.isDeleted() + " = " + b2 + ", so it must be " + (t1 == null && Boolean.FALSE.equals(b2));
            case NO_CURRENT -> "the key's last version is closed at " + sc.validTo() + " " + t1 + " (" + sc.isDeleted() + " = " + b1
                    + "); the last version must be open";
            case DUPLICATE_SURROGATE_KEY -> n + " versions have " + sc.surrogateKey() + " = " + n2 + " (this is the first in key order); "
                    + "it must identify one";
            case TRANSACTION_TIME -> "the version is " + (Boolean.TRUE.equals(b1) ? "open" : "closed") + ", " + sc.knownFrom() + " " + t1 + ", "
                    + sc.endKnownFrom() + " " + (t2 == null ? "NULL" : t2) + ": an open version has no " + sc.endKnownFrom()
                    + ", a closed one has one, not before " + sc.knownFrom();
        };
    }

    private static Boolean bool(ResultSet rs, int index) throws SQLException {
        boolean b = rs.getBoolean(index);
        return rs.wasNull() ? null : b;
    }
}
