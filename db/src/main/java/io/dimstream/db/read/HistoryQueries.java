package io.dimstream.db.read;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read queries over an entity's SCD2 table: the history of one key, key search, the table as of
 * an instant (paged or streamed), and the diff between two instants. Knows nothing of HTTP or
 * Kafka; see the package documentation for the SQL and the indexes each query uses.
 *
 * <p>Every identifier goes through {@link Sql}, every value is a bind parameter, and sort
 * direction is a boolean, never caller text. Thread-safe: each call takes its own connection.
 */
public final class HistoryQueries {

    /** Largest page {@link #asOf} and {@link #findKeys} serve; a bigger request is refused. */
    public static final int MAX_LIMIT = 10_000;

    /** Rows fetched per round trip by {@link #streamAsOf}. */
    static final int STREAM_FETCH_SIZE = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(HistoryQueries.class);

    private final DataSource ds;

    public HistoryQueries(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /**
     * All versions of one key ordered by {@code valid_from}, deleted rows included.
     *
     * @param keyValues one value per key column, in key order; strings are coerced to the column type
     * @return empty when the key has no row
     */
    public List<VersionRow> history(EntitySpec e, List<Object> keyValues) throws SQLException {
        Columns cols = new Columns(e);
        List<Object> key = cols.coerceKey(keyValues);
        String sql = "SELECT " + cols.select(null) + " FROM " + Sql.table(e.table())
                + " WHERE " + Sql.each(e.key(), k -> Sql.ident(k) + " = ?", " AND ")
                + " ORDER BY " + Sql.ident(e.system().validFrom());
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            cols.bindKey(ps, 1, key);
            return readAll(ps, cols);
        }
    }

    /**
     * Every version of every key, ordered by key and {@code valid_from}, deleted rows included, read
     * into memory at once: for small tables only (the demo prints its table with it).
     */
    public List<VersionRow> allVersions(EntitySpec e) throws SQLException {
        Columns cols = new Columns(e);
        String sql = "SELECT " + cols.select(null) + " FROM " + Sql.table(e.table())
                + " ORDER BY " + Sql.list(e.key()) + ", " + Sql.ident(e.system().validFrom());
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            return readAll(ps, cols);
        }
    }

    /**
     * Distinct keys whose first key column, as text, starts with {@code prefix} (literally:
     * {@code %} and {@code _} are plain characters), in key order; deleted keys included, so their
     * history can be found. For a key search box.
     *
     * @param prefix null or empty matches every key
     */
    public List<Map<String, Object>> findKeys(EntitySpec e, String prefix, int limit) throws SQLException {
        checkLimit(limit);
        Columns cols = new Columns(e);
        boolean filtered = prefix != null && !prefix.isEmpty();
        String sql = "SELECT DISTINCT " + Sql.list(e.key()) + " FROM " + Sql.table(e.table())
                + (filtered ? " WHERE " + prefixPredicate(e) : "")
                + " ORDER BY " + cols.keyOrder(null, false) + " LIMIT ?";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (filtered) {
                ps.setString(i++, prefix);
            }
            ps.setInt(i, limit);
            List<Map<String, Object>> keys = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.add(VersionRow.frozen(cols.readKey(rs, 1)));
                }
            }
            return keys;
        }
    }

    /**
     * One page of the table as of {@code t}: rows with {@code valid_from <= t AND (valid_to IS NULL
     * OR valid_to > t) AND NOT is_deleted}, optionally only keys whose first key column starts with
     * {@code keyPrefix}, ordered by the key columns, skipping {@code offset} rows. For deep pages
     * prefer {@link #asOfAfter}, which does not read the skipped rows.
     */
    public Page asOf(EntitySpec e, Instant t, String keyPrefix, boolean descending, int offset, int limit)
            throws SQLException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        return page(e, t, keyPrefix, descending, null, offset, limit);
    }

    /**
     * Keyset paging: like {@link #asOf} but starting right after the row whose key is {@code afterKey}
     * in the requested order (pass {@link Page#lastKey()} of the previous page; null for the first).
     */
    public Page asOfAfter(EntitySpec e, Instant t, String keyPrefix, boolean descending, List<Object> afterKey, int limit)
            throws SQLException {
        return page(e, t, keyPrefix, descending, afterKey, 0, limit);
    }

    /**
     * Streams the whole table as of {@code t} in key order to {@code sink} through a server-side
     * cursor ({@value #STREAM_FETCH_SIZE} rows per round trip), never holding it in memory. The
     * sink runs inside the read transaction, which holds a connection and holds back vacuum while
     * it lasts: keep it fast (write to a local file, as the admin's CSV export does, never straight
     * to a network client, which may read as slowly as it likes).
     *
     * @return the number of rows streamed
     */
    public long streamAsOf(EntitySpec e, Instant t, Consumer<VersionRow> sink) throws SQLException {
        Objects.requireNonNull(sink, "sink");
        Columns cols = new Columns(e);
        String sql = "SELECT " + cols.select(null) + " FROM " + Sql.table(e.table()) + " WHERE " + asOfPredicate(e, null)
                + " ORDER BY " + cols.keyOrder(null, false);
        try (Connection c = ds.getConnection()) {
            // PgJDBC only uses a cursor (fetch size) inside a transaction
            long n = Transactions.inTransaction(c, tx -> {
                long rows = 0;
                try (PreparedStatement ps = tx.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                    ps.setFetchSize(STREAM_FETCH_SIZE);
                    bindAsOf(ps, 1, t);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            sink.accept(cols.read(rs, 1));
                            rows++;
                        }
                    }
                }
                return rows;
            });
            LOG.debug("streamed {} rows of {} as of {}", n, e.name(), t);
            return n;
        }
    }

    /** The diff between the tables as of {@code from} and as of {@code to}, without a size limit. */
    public Diff diff(EntitySpec e, Instant from, Instant to) throws SQLException {
        return diff(e, from, to, Integer.MAX_VALUE);
    }

    /**
     * The diff between the tables as of {@code from} and as of {@code to}, in one statement: a FULL
     * JOIN of the two as-of sets on the key, keeping the pairs whose version ({@code valid_from})
     * differs. At most {@code maxEntries} keys (added, removed and changed together, in key order);
     * {@link Diff#truncated()} says whether more exist.
     */
    public Diff diff(EntitySpec e, Instant from, Instant to, int maxEntries) throws SQLException {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries must be > 0, got " + maxEntries);
        }
        Columns cols = new Columns(e);
        String vf = Sql.ident(e.system().validFrom());
        String sql = "WITH a AS (SELECT " + cols.select(null) + " FROM " + Sql.table(e.table()) + " WHERE " + asOfPredicate(e, null) + "),\n"
                + " b AS (SELECT " + cols.select(null) + " FROM " + Sql.table(e.table()) + " WHERE " + asOfPredicate(e, null) + ")\n"
                + "SELECT " + cols.select("a") + ", " + cols.select("b")
                + " FROM a FULL JOIN b ON " + Sql.eq("a", "b", e.key())
                + " WHERE a." + vf + " IS DISTINCT FROM b." + vf
                + " ORDER BY " + Sql.each(e.key(), k -> "COALESCE(a." + Sql.ident(k) + ", b." + Sql.ident(k) + ")", ", ")
                + " LIMIT ?";
        List<VersionRow> added = new ArrayList<>();
        List<VersionRow> removed = new ArrayList<>();
        List<Diff.Change> changed = new ArrayList<>();
        boolean truncated = false;
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = bindAsOf(ps, 1, from);
            i = bindAsOf(ps, i, to);
            ps.setLong(i, (long) maxEntries + 1);
            try (ResultSet rs = ps.executeQuery()) {
                int n = 0;
                while (rs.next()) {
                    if (++n > maxEntries) {
                        truncated = true;
                        break;
                    }
                    VersionRow before = cols.read(rs, 1);
                    VersionRow after = cols.read(rs, 1 + cols.width());
                    if (before == null) {
                        added.add(after);
                    } else if (after == null) {
                        removed.add(before);
                    } else {
                        changed.add(new Diff.Change(after.key(), changedColumns(e, before, after), before, after));
                    }
                }
            }
        }
        return new Diff(from, to, added, removed, changed, truncated);
    }

    /**
     * The counts of {@link #diff} over every key, in one statement: the same FULL JOIN of the two
     * as-of sets, counted with {@code FILTER} per side and per attribute column
     * ({@code IS DISTINCT FROM}, so NULL to a value counts and numeric 1.0 equals 1.00, as in
     * {@link Diff.Change#changedColumns()}).
     */
    public DiffSummary diffSummary(EntitySpec e, Instant from, Instant to) throws SQLException {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Columns cols = new Columns(e);
        String vf = Sql.ident(e.system().validFrom());
        String both = "a." + vf + " IS NOT NULL AND b." + vf + " IS NOT NULL";
        StringBuilder sql = new StringBuilder("WITH a AS (SELECT " + cols.select(null) + " FROM " + Sql.table(e.table())
                + " WHERE " + asOfPredicate(e, null) + "),\n"
                + " b AS (SELECT " + cols.select(null) + " FROM " + Sql.table(e.table()) + " WHERE " + asOfPredicate(e, null) + ")\n"
                + "SELECT count(*) FILTER (WHERE a." + vf + " IS NULL), count(*) FILTER (WHERE b." + vf + " IS NULL),"
                + " count(*) FILTER (WHERE " + both + ")");
        for (String c : e.attributes()) {
            sql.append(", count(*) FILTER (WHERE ").append(both).append(" AND a.").append(Sql.ident(c))
                    .append(" IS DISTINCT FROM b.").append(Sql.ident(c)).append(")");
        }
        sql.append(" FROM a FULL JOIN b ON ").append(Sql.eq("a", "b", e.key()))
                .append(" WHERE a.").append(vf).append(" IS DISTINCT FROM b.").append(vf);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = bindAsOf(ps, 1, from);
            bindAsOf(ps, i, to);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Map<String, Long> perColumn = new java.util.LinkedHashMap<>();
                int col = 4;
                for (String a : e.attributes()) {
                    perColumn.put(a, rs.getLong(col++));
                }
                return new DiffSummary(from, to, rs.getLong(1), rs.getLong(2), rs.getLong(3), perColumn);
            }
        }
    }

    /**
     * The stepper's instants around {@code at} among the table's distinct {@code valid_from}
     * values, in one statement of six scalar subqueries (see {@link AsOfSteps}).
     */
    public AsOfSteps steps(EntitySpec e, Instant at) throws SQLException {
        Objects.requireNonNull(at, "at");
        String vf = Sql.ident(e.system().validFrom());
        String t = Sql.table(e.table());
        String current = "(SELECT max(" + vf + ") FROM " + t + " WHERE " + vf + " <= ?)";
        String sql = "SELECT (SELECT min(" + vf + ") FROM " + t + "),"
                + " (SELECT max(" + vf + ") FROM " + t + " WHERE " + vf + " < " + current + "),"
                + " " + current + ","
                + " (SELECT min(" + vf + ") FROM " + t + " WHERE " + vf + " > ?),"
                + " (SELECT max(" + vf + ") FROM " + t + ")";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Columns.bindInstant(ps, 1, at);
            Columns.bindInstant(ps, 2, at);
            Columns.bindInstant(ps, 3, at);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new AsOfSteps(at, Columns.instant(rs, 1), Columns.instant(rs, 2), Columns.instant(rs, 3),
                        Columns.instant(rs, 4), Columns.instant(rs, 5));
            }
        }
    }

    private Page page(EntitySpec e, Instant t, String keyPrefix, boolean descending, List<Object> afterKey,
                      int offset, int limit) throws SQLException {
        Objects.requireNonNull(t, "t");
        checkLimit(limit);
        Columns cols = new Columns(e);
        boolean filtered = keyPrefix != null && !keyPrefix.isEmpty();
        List<Object> after = afterKey == null ? null : cols.coerceKey(afterKey);
        StringBuilder sql = new StringBuilder("SELECT ").append(cols.select(null))
                .append(" FROM ").append(Sql.table(e.table()))
                .append(" WHERE ").append(asOfPredicate(e, null));
        if (filtered) {
            sql.append(" AND ").append(prefixPredicate(e));
        }
        if (after != null) {
            // a row comparison, so the primary key index (key, valid_from) serves it
            sql.append(" AND (").append(Sql.list(e.key())).append(descending ? ") < (" : ") > (")
                    .append(Sql.each(e.key(), k -> "?", ", ")).append(")");
        }
        sql.append(" ORDER BY ").append(cols.keyOrder(null, descending)).append(" OFFSET ? LIMIT ?");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = bindAsOf(ps, 1, t);
            if (filtered) {
                ps.setString(i++, keyPrefix);
            }
            if (after != null) {
                i = cols.bindKey(ps, i, after);
            }
            ps.setInt(i++, offset);
            ps.setLong(i, (long) limit + 1);
            List<VersionRow> rows = readAll(ps, cols);
            boolean hasMore = rows.size() > limit;
            return new Page(hasMore ? rows.subList(0, limit) : rows, hasMore);
        }
    }

    /**
     * {@code "valid_from" <= ? AND ("valid_to" IS NULL OR "valid_to" > ?) AND NOT "is_deleted"} (with
     * {@code valid-to-current: infinity}, {@code "valid_to" > ?}: {@link EntitySpec#endsAfter}): two parameters.
     */
    static String asOfPredicate(EntitySpec e, String alias) {
        SystemColumns sc = e.system();
        String p = alias == null ? "" : alias + ".";
        return p + Sql.ident(sc.validFrom()) + " <= ? AND " + e.endsAfter(alias, "?") + " AND NOT "
                + p + Sql.ident(sc.isDeleted());
    }

    static int bindAsOf(PreparedStatement ps, int first, Instant t) throws SQLException {
        Columns.bindInstant(ps, first, t);
        Columns.bindInstant(ps, first + 1, t);
        return first + 2;
    }

    /** The first key column's text starts with the bound prefix; no LIKE, so nothing to escape. */
    private static String prefixPredicate(EntitySpec e) {
        return "starts_with(" + Sql.ident(e.key().get(0)) + "::text, ?)";
    }

    private static List<String> changedColumns(EntitySpec e, VersionRow before, VersionRow after) {
        List<String> changed = new ArrayList<>();
        for (String a : e.attributes()) {
            if (!sameValue(before.attributes().get(a), after.attributes().get(a))) {
                changed.add(a);
            }
        }
        return changed;
    }

    /** Equality as PostgreSQL sees it: numeric 1.0 equals 1.00; bytea by its bytes. */
    private static boolean sameValue(Object x, Object y) {
        if (x instanceof BigDecimal dx && y instanceof BigDecimal dy) {
            return dx.compareTo(dy) == 0;
        }
        if (x instanceof byte[] bx && y instanceof byte[] by) {
            return java.util.Arrays.equals(bx, by);
        }
        return Objects.equals(x, y);
    }

    private static List<VersionRow> readAll(PreparedStatement ps, Columns cols) throws SQLException {
        List<VersionRow> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(cols.read(rs, 1));
            }
        }
        return rows;
    }

    private static void checkLimit(int limit) {
        if (limit <= 0 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
        }
    }
}
