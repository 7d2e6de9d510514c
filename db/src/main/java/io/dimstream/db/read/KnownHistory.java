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
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * One key's history in transaction time (docs/semantics.md, "Transaction time"), for an entity
 * that keeps it ({@link EntitySpec#transactionTime()}): the history as the table stood at an
 * instant, and every image a later arrival superseded with what the same transaction wrote in
 * its place. Over the table and {@code T_superseded} together; the superseded images are read by
 * column name ({@code jsonb_populate_record(NULL::T, row_image)}), so a column added or dropped
 * since does not break them. Knows nothing of HTTP. Thread-safe: each call takes its own connection.
 */
public final class KnownHistory {

    /**
     * One image of a version and when it was believed.
     *
     * @param row       the image (its {@code valid_to} and {@code is_current} as the caller asked: as known
     *                  at an instant for {@link #history}, the image's own for {@link #corrections})
     * @param knownFrom when it became believed; null: since ever (written before transaction time)
     * @param knownTo   when a later arrival replaced it; null: still believed (a row of the table)
     */
    public record Belief(VersionRow row, Instant knownFrom, Instant knownTo) {
        public Belief {
            Objects.requireNonNull(row, "row");
        }
    }

    /**
     * A superseded image and what replaced it: the key's images (rows of the table or superseded
     * themselves later) written by the transaction that superseded it ({@code known_from} equal to its
     * {@code known_to}), in {@code valid_from} order; empty when that transaction only removed.
     */
    public record Correction(Belief superseded, List<Belief> replacements) {
        public Correction {
            Objects.requireNonNull(superseded, "superseded");
            replacements = List.copyOf(replacements);
        }
    }

    private final DataSource ds;

    public KnownHistory(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    /**
     * The key's versions as the table stood at transaction time {@code known}, by {@code valid_from}:
     * its rows with {@code coalesce(known_from, '-infinity') <= known} and its superseded images believed
     * then ({@code known_from <= known < known_to}), each with {@code valid_to} as known then (NULL when
     * {@code end_known_from > known}) and {@code is_current} accordingly. Valid at an instant {@code v},
     * not deleted, they are the key's rows of {@code T_as_of(v, known)}.
     *
     * @param known null: now (the table's rows as they are)
     */
    public List<Belief> history(EntitySpec e, List<Object> keyValues, Instant known) throws SQLException {
        return read(e, keyValues, known, false);
    }

    /**
     * Every image of the key that a later arrival superseded (by {@code known_to}, then {@code valid_from}),
     * each with its own {@code valid_to} and the type-1 values it had when superseded, and what replaced it.
     */
    public List<Correction> corrections(EntitySpec e, List<Object> keyValues) throws SQLException {
        List<Belief> all = read(e, keyValues, null, true);
        List<Correction> out = new ArrayList<>();
        all.stream().filter(b -> b.knownTo() != null)
                .sorted(Comparator.comparing(Belief::knownTo).thenComparing(b -> b.row().validFrom()))
                .forEach(s -> out.add(new Correction(s, all.stream().filter(b -> s.knownTo().equals(b.knownFrom())).toList())));
        return out;
    }

    /**
     * The images of a key: the table's rows and, with {@code everything} (every image ever believed) or
     * an instant {@code known}, the superseded images (all of them, or those believed at {@code known}).
     */
    private List<Belief> read(EntitySpec e, List<Object> keyValues, Instant known, boolean everything) throws SQLException {
        Columns cols = new Columns(e);
        List<Object> key = cols.coerceKey(keyValues);
        SystemColumns sc = e.system();
        String t = Sql.table(e.table());
        boolean asKnown = known != null;
        String rows = "SELECT " + select(cols, e, "v", new Stamps(sc.validFrom(), sc.validTo(), sc.isDeleted(), sc.knownFrom(),
                sc.endKnownFrom()), asKnown) + ", NULL::timestamptz FROM " + t + " v CROSS JOIN p WHERE "
                + Sql.each(e.key(), k -> "v." + Sql.ident(k) + " = ?", " AND ")
                + (asKnown ? " AND coalesce(v." + Sql.ident(sc.knownFrom()) + ", '-infinity'::timestamptz) <= p.known" : "");
        String superseded = "SELECT " + select(cols, e, "s", SUPERSEDED, asKnown) + ", s.known_to FROM "
                + Sql.table(e.supersededTable()) + " s CROSS JOIN LATERAL jsonb_populate_record(NULL::" + t + ", s.row_image) v CROSS JOIN p WHERE "
                + Sql.each(e.key(), k -> "s." + Sql.ident(k) + " = ?", " AND ")
                + (asKnown ? " AND coalesce(s.known_from, '-infinity'::timestamptz) <= p.known AND s.known_to > p.known" : "");
        boolean withSuperseded = everything || asKnown;
        String sql = "WITH p AS (SELECT ?::timestamptz AS known) " + rows + (withSuperseded ? " UNION ALL " + superseded : "")
                + " ORDER BY " + (cols.names().indexOf(sc.validFrom()) + 1) + ", " + (cols.width() + 2) + " NULLS LAST";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (asKnown) {
                Columns.bindInstant(ps, 1, known);
            } else {
                ps.setString(1, "infinity");
            }
            int i = cols.bindKey(ps, 2, key);
            if (withSuperseded) {
                cols.bindKey(ps, i, key);
            }
            List<Belief> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int at = cols.width() + 1;
                    out.add(new Belief(cols.read(rs, 1), Columns.instant(rs, at), Columns.instant(rs, at + 1)));
                }
            }
            return out;
        }
    }

    /** Where one part of the union reads a version's period, deletion and transaction-time stamps. */
    private record Stamps(String validFrom, String validTo, String isDeleted, String knownFrom, String endKnownFrom) {
    }

    /** {@code T_superseded}'s own columns (fixed names, whatever the table's system columns are called). */
    private static final Stamps SUPERSEDED = new Stamps("valid_from", "valid_to", "is_deleted", "known_from", "end_known_from");

    /**
     * {@link Columns#select} of one part of the union, then its {@code known_from}: the period, the
     * deletion and the stamps from {@code x} (the table's row, or {@code T_superseded}'s columns), the
     * rest from the image {@code v}; {@code valid_to} as known at {@code p.known} when {@code asKnown}.
     */
    private static String select(Columns cols, EntitySpec e, String x, Stamps at, boolean asKnown) {
        SystemColumns sc = e.system();
        String vt = x + "." + Sql.ident(at.validTo());
        String end = asKnown ? "(CASE WHEN " + x + "." + Sql.ident(at.endKnownFrom()) + " > p.known THEN " + e.openEnd() + " ELSE " + vt + " END)"
                : vt;
        String deleted = x + "." + Sql.ident(at.isDeleted());
        List<String> out = new ArrayList<>();
        for (String n : cols.names()) {
            String expr;
            if (n.equals(sc.validFrom())) {
                expr = x + "." + Sql.ident(at.validFrom());
            } else if (n.equals(sc.validTo())) {
                expr = end;
            } else if (n.equals(sc.isCurrent())) {
                expr = e.validToCurrent().openTest(end) + " AND NOT " + deleted;
            } else if (n.equals(sc.isDeleted())) {
                expr = deleted;
            } else {
                expr = "v." + Sql.ident(n);
            }
            out.add(expr + " AS " + Sql.ident(n));
        }
        out.add(x + "." + Sql.ident(at.knownFrom()));
        return String.join(", ", out);
    }
}
