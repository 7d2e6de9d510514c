package io.dimstream.db.read;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What replacing one SCD2 table by another would change: the live table against a replay's shadow
 * table ({@code <table>_shadow_<job>}), both of one entity.
 *
 * <p>A version is compared by its key, {@code valid_from}, {@code valid_to}, {@code is_deleted},
 * {@code record_hash} and the type-1 columns (the tracked columns are in the hash); surrogate key,
 * lineage and {@code loaded_at} are not compared. A key is <em>added</em> when only the shadow has
 * it, <em>removed</em> when only the live table has it, <em>changed</em> when both have it and its
 * sets of versions differ; per key, the versions only the shadow has are the ones the swap adds, the
 * versions only the live table has the ones it removes.
 *
 * <p>All of it is set-based SQL in PostgreSQL: one {@code FULL JOIN} of the two tables on their
 * primary key {@code (key, valid_from)}, keeping the pairs where one side is missing or the rest
 * differs ({@code IS DISTINCT FROM}, so an open {@code valid_to} and NULL type-1 values compare
 * equal); only the counts and the first {@code limit} differing keys (in key order) with their
 * differing versions come back to Java. (An {@code EXCEPT} both ways gave the same answer about 5
 * times slower: two sorts of each table.)
 *
 * @param keysAdded       keys only the shadow has
 * @param keysRemoved     keys only the live table has
 * @param keysChanged     keys both have, with different sets of versions
 * @param versionsAdded   versions only the shadow has (over all keys)
 * @param versionsRemoved versions only the live table has (over all keys)
 * @param keys            the first differing keys in key order, at most the limit asked for
 * @param truncated       true when more keys differ than {@code keys} lists
 */
public record ShadowDiff(long keysAdded, long keysRemoved, long keysChanged, long versionsAdded, long versionsRemoved,
                         List<KeyDiff> keys, boolean truncated) {

    /** Largest number of keys {@link #compute} lists. */
    public static final int MAX_LIMIT = 10_000;

    public ShadowDiff {
        keys = List.copyOf(keys);
    }

    /** True when the swap would change no version of any key (not a bean getter: the JSON twin shows the counts, not a derived flag). */
    public boolean changesNothing() {
        return keysAdded == 0 && keysRemoved == 0 && keysChanged == 0;
    }

    /** How a key differs. */
    public enum Kind {
        ADDED, REMOVED, CHANGED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One differing key.
     *
     * @param key             the key columns in key order
     * @param versionsAdded   its versions only the shadow has, by {@code valid_from}
     * @param versionsRemoved its versions only the live table has, by {@code valid_from}
     */
    public record KeyDiff(Map<String, Object> key, Kind kind, List<VersionRow> versionsAdded, List<VersionRow> versionsRemoved) {
        public KeyDiff {
            key = VersionRow.frozen(Objects.requireNonNull(key, "key"));
            versionsAdded = List.copyOf(versionsAdded);
            versionsRemoved = List.copyOf(versionsRemoved);
        }

        /** The key values in key order, as {@link HistoryQueries#history} takes them. */
        public List<Object> keyValues() {
            return new ArrayList<>(key.values());
        }

        /**
         * {@code text} of each version, followed by the first 8 bytes of its {@code record_hash} when a
         * version on the other side prints alike: the two differ in the hash only (the tracked columns
         * the config names changed since the live table was written), and the hash tells them apart.
         *
         */
        public Lines lines(java.util.function.Function<VersionRow, String> text) {
            List<String> added = versionsAdded.stream().map(text).toList();
            List<String> removed = versionsRemoved.stream().map(text).toList();
            java.util.Set<String> alike = new java.util.HashSet<>(added);
            alike.retainAll(removed);
            return new Lines(withHash(versionsAdded, added, alike), withHash(versionsRemoved, removed, alike));
        }

        /** The versions added and removed as lines ({@link #lines}). */
        public record Lines(List<String> added, List<String> removed) {
        }

        private static List<String> withHash(List<VersionRow> versions, List<String> texts, java.util.Set<String> alike) {
            List<String> out = new ArrayList<>(texts.size());
            for (int i = 0; i < texts.size(); i++) {
                String hash = versions.get(i).recordHash();
                out.add(alike.contains(texts.get(i)) && hash != null
                        ? texts.get(i) + " record_hash=" + hash.substring(0, Math.min(16, hash.length())) + "..." : texts.get(i));
            }
            return out;
        }
    }

    /**
     * Compares {@code shadow} (what the table would become) with {@code live} (what it is) on
     * {@code c}, in the caller's transaction (so a caller may first change the shadow, e.g. merge
     * what a swap would merge, and roll back afterwards).
     *
     * @param live   the live table's entity
     * @param shadow the same entity on the shadow table ({@code live.withTable(...)})
     * @param limit  how many differing keys to list, 0..{@value #MAX_LIMIT}
     */
    public static ShadowDiff compute(Connection c, EntitySpec live, EntitySpec shadow, int limit) throws SQLException {
        if (limit < 0 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 0 and " + MAX_LIMIT + ", got " + limit);
        }
        if (!live.name().equals(shadow.name()) || !live.key().equals(shadow.key()) || !live.type1().equals(shadow.type1())) {
            throw new IllegalArgumentException("shadow diff: " + shadow.table() + " is not a table of entity " + live.name());
        }
        SystemColumns sc = live.system();
        List<String> key = live.key();
        String vf = Sql.ident(sc.validFrom());
        List<String> rest = new ArrayList<>(List.of(sc.validTo(), sc.isDeleted(), sc.recordHash()));
        rest.addAll(live.type1());
        String l = Sql.table(live.table());
        String s = Sql.table(shadow.table());
        // one FULL JOIN of the two tables on their primary key (key, valid_from): a version differs when
        // one side lacks it or the rest of it differs (row IS DISTINCT FROM: NULLs compare equal)
        String differs = "(" + Sql.list("l", rest) + ") IS DISTINCT FROM (" + Sql.list("s", rest) + ")";
        String liveKey = "l." + Sql.ident(key.get(0));
        String shadowKey = "s." + Sql.ident(key.get(0));
        String with = "WITH d AS MATERIALIZED (SELECT " + Sql.each(key, k -> "coalesce(l." + Sql.ident(k) + ", s." + Sql.ident(k) + ") AS "
                + Sql.ident(k), ", ") + ", l." + vf + " AS diff_live_from, s." + vf + " AS diff_shadow_from, "
                + "(" + shadowKey + " IS NOT NULL AND (" + liveKey + " IS NULL OR " + differs + ")) AS diff_added, "
                + "(" + liveKey + " IS NOT NULL AND (" + shadowKey + " IS NULL OR " + differs + ")) AS diff_removed "
                + "FROM " + l + " l FULL JOIN " + s + " s ON " + Sql.eq("l", "s", key) + " AND l." + vf + " = s." + vf
                + " WHERE " + liveKey + " IS NULL OR " + shadowKey + " IS NULL OR " + differs + "), "
                + "dk AS MATERIALIZED (SELECT DISTINCT " + Sql.list(key) + " FROM d), "
                + "kinds AS (SELECT " + Sql.list("dk", key) + ", CASE WHEN NOT EXISTS (SELECT 1 FROM " + l + " x WHERE "
                + Sql.eq("x", "dk", key) + ") THEN 'ADDED' WHEN NOT EXISTS (SELECT 1 FROM " + s + " x WHERE " + Sql.eq("x", "dk", key)
                + ") THEN 'REMOVED' ELSE 'CHANGED' END AS kind FROM dk) ";
        long added;
        long removed;
        long changed;
        long vAdded;
        long vRemoved;
        try (PreparedStatement p = c.prepareStatement(with + "SELECT (SELECT count(*) FILTER (WHERE kind = 'ADDED') FROM kinds), "
                + "(SELECT count(*) FILTER (WHERE kind = 'REMOVED') FROM kinds), (SELECT count(*) FILTER (WHERE kind = 'CHANGED') FROM kinds), "
                + "(SELECT count(*) FILTER (WHERE diff_added) FROM d), (SELECT count(*) FILTER (WHERE diff_removed) FROM d)");
             ResultSet rs = p.executeQuery()) {
            rs.next();
            added = rs.getLong(1);
            removed = rs.getLong(2);
            changed = rs.getLong(3);
            vAdded = rs.getLong(4);
            vRemoved = rs.getLong(5);
        }
        List<KeyDiff> keys = new ArrayList<>();
        if (limit > 0 && added + removed + changed > 0) {
            Columns cols = new Columns(live);
            // each differing version of the page's keys, whole, from the side that has it; by key, valid_from, side
            String sql = with + ", page AS (SELECT * FROM kinds ORDER BY " + Sql.list(key) + " LIMIT ?) "
                    + "SELECT * FROM (SELECT page.kind AS diff_kind, 'added' AS diff_side, " + cols.select("x") + " FROM page JOIN d ON "
                    + Sql.eq("d", "page", key) + " AND d.diff_added JOIN " + s + " x ON " + Sql.eq("x", "d", key) + " AND x." + vf
                    + " = d.diff_shadow_from UNION ALL SELECT page.kind, 'removed', " + cols.select("x") + " FROM page JOIN d ON "
                    + Sql.eq("d", "page", key) + " AND d.diff_removed JOIN " + l + " x ON " + Sql.eq("x", "d", key) + " AND x." + vf
                    + " = d.diff_live_from) q ORDER BY " + Sql.list("q", key) + ", q." + vf + ", q.diff_side";
            Map<List<Object>, KeyDiff> byKey = new LinkedHashMap<>();
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setInt(1, limit);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        Kind kind = Kind.valueOf(rs.getString(1));
                        boolean isAdded = "added".equals(rs.getString(2));
                        VersionRow row = cols.read(rs, 3);
                        KeyDiff k = byKey.computeIfAbsent(row.keyValues(), x -> new KeyDiff(row.key(), kind, List.of(), List.of()));
                        List<VersionRow> a = new ArrayList<>(k.versionsAdded());
                        List<VersionRow> r = new ArrayList<>(k.versionsRemoved());
                        (isAdded ? a : r).add(row);
                        byKey.put(row.keyValues(), new KeyDiff(k.key(), kind, a, r));
                    }
                }
            }
            keys.addAll(byKey.values());
        }
        return new ShadowDiff(added, removed, changed, vAdded, vRemoved, keys, added + removed + changed > keys.size());
    }
}
