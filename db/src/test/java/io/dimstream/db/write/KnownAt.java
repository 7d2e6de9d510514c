package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Transaction time checked against the reference model (docs/semantics.md, "Transaction time"):
 * {@code T_as_of(v, known_at)} must be the model's rows valid at {@code v}, run on the arrivals
 * committed by {@code known_at}. Type-1 columns are left out of the comparison (a superseded image
 * keeps the type-1 values it had when superseded).
 */
public final class KnownAt {

    private KnownAt() {
    }

    /** The instant now, read after a commit: every transaction that starts later has a later {@code now()}. */
    public static OffsetDateTime clock(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    /** How many images {@code T_superseded} holds. */
    public static long superseded(DataSource ds, EntitySpec spec) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + Sql.table(spec.supersededTable()))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** {@code T_as_of(v, knownAt)}, type-1 columns left out. */
    public static List<ExpectedRow> asOf(DataSource ds, EntitySpec spec, Instant v, OffsetDateTime knownAt) throws SQLException {
        return EntityTableReader.query(ds, spec, Sql.table(spec.asOfFunction()) + "(?, ?)", OffsetDateTime.ofInstant(v, ZoneOffset.UTC), knownAt)
                .stream().map(EntityTableReader.StoredRow::row).map(r -> withoutType1(spec, r)).toList();
    }

    /** The model's rows valid at {@code v}, as the function shows them (open at infinity with {@code valid-to-current: infinity}), type-1 columns left out. */
    public static List<ExpectedRow> modelAsOf(EntitySpec spec, List<ExpectedRow> model, Instant v) {
        return model.stream()
                .filter(r -> !r.deleted() && !r.validFrom().isAfter(v) && (r.validTo() == null || r.validTo().isAfter(v)))
                .map(r -> withoutType1(spec, r))
                .map(r -> spec.validToCurrent() == ValidToCurrent.INFINITY ? r.openAtInfinity() : r)
                .toList();
    }

    /** At every instant a version of the model starts: the function known at {@code knownAt} equals the model. */
    public static void assertAsOfEveryVersionStart(DataSource ds, EntitySpec spec, OffsetDateTime knownAt, List<ExpectedRow> model)
            throws SQLException {
        assertAsOfAtVersionStarts(ds, spec, knownAt, model, Integer.MAX_VALUE);
    }

    /**
     * {@link #assertAsOfEveryVersionStart} at no more than {@code most} of the starts, spread evenly
     * over them (for big models: each instant is a call of the function over the whole table).
     */
    public static void assertAsOfAtVersionStarts(DataSource ds, EntitySpec spec, OffsetDateTime knownAt, List<ExpectedRow> model, int most)
            throws SQLException {
        List<Instant> starts = List.copyOf(new TreeSet<>(model.stream().map(ExpectedRow::validFrom).toList()));
        int step = Math.max(1, (starts.size() + most - 1) / most);
        for (int i = 0; i < starts.size(); i += step) {
            Instant v = starts.get(i);
            assertThat(asOf(ds, spec, v, knownAt)).as("as of %s known at %s", v, knownAt).isEqualTo(modelAsOf(spec, model, v));
        }
    }

    static ExpectedRow withoutType1(EntitySpec spec, ExpectedRow r) {
        Map<String, Object> attrs = new LinkedHashMap<>(r.attrs());
        spec.type1().forEach(attrs::remove);
        return new ExpectedRow(r.key(), attrs, r.validFrom(), r.validTo(), r.current(), r.deleted(), r.hashHex());
    }
}
