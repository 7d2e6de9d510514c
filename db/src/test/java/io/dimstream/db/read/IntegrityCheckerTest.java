package io.dimstream.db.read;

import static io.dimstream.db.read.HistoryQueriesTest.FEB1;
import static io.dimstream.db.read.HistoryQueriesTest.JAN1;
import static io.dimstream.db.read.HistoryQueriesTest.MAR1;
import static io.dimstream.db.read.HistoryQueriesTest.columns;
import static io.dimstream.db.read.HistoryQueriesTest.key;
import static io.dimstream.db.read.Versions.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.read.Finding.Kind;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IntegrityCheckerTest {

    static final EntitySpec GOOD = customer("ic_good");
    static final EntitySpec REAL_WITH_GAP = customer("ic_real_gap");
    /** Made by hand without dimstream's constraints: plain is_current, no primary key, no unique index. */
    static final EntitySpec BROKEN = customer("ic_broken");
    /** Composite key and renamed system columns, also made by hand. */
    static final EntitySpec BROKEN_PAIR = EntitySpec.builder()
            .name("ic_broken_pair")
            .table("ic_broken_pair")
            .key(List.of("region", "n"))
            .tracked(List.of("status"))
            .columns(columns("region", ColumnType.TEXT, "n", ColumnType.INTEGER, "status", ColumnType.TEXT))
            .latenessHorizon(Optional.empty())
            .system(new SystemColumns("sk", "from_ts", "to_ts", "current_flag", "deleted_flag", "row_hash", "src_topic", "src_partition", "src_offset", "load_ts"))
            .build();

    /** The same hand-made table with valid-to-current: infinity: its open versions end at 'infinity'. */
    static final EntitySpec BROKEN_INFINITY = customer("ic_broken_inf").toBuilder().validToCurrent(ValidToCurrent.INFINITY).build();

    static DataSource ds;

    @BeforeAll
    static void createTables() throws SQLException {
        ds = TestPostgres.dataSource();

        EntityTables.ensure(ds, GOOD);
        Versions g = new Versions(GOOD);
        VersionRow k2v1 = g.version(List.of("K2"), values("a"), 21, JAN1, FEB1);
        VersionRow k3v1 = g.version(List.of("K3"), values("a"), 31, JAN1, FEB1);
        g.insert(ds,
                g.version(List.of("K1"), values("a"), 11, JAN1, FEB1),
                g.version(List.of("K1"), values("b"), 12, FEB1, null),
                k2v1,
                HistoryQueriesTest.closedAt(g.deleted(k2v1, 22, FEB1), MAR1),
                g.version(List.of("K2"), values("a"), 23, MAR1, null),
                k3v1,
                g.deleted(k3v1, 32, FEB1));

        EntityTables.ensure(ds, REAL_WITH_GAP);
        Versions r = new Versions(REAL_WITH_GAP);
        r.insert(ds,
                r.version(List.of("K1"), values("a"), 11, JAN1, FEB1),
                r.version(List.of("K1"), values("b"), 12, MAR1, null));

        for (EntitySpec broken : List.of(BROKEN, BROKEN_INFINITY)) {
            exec("CREATE TABLE " + broken.table() + " (customer_id text, email text, surrogate_key bigint, valid_from timestamptz, "
                    + "valid_to timestamptz, is_current boolean, is_deleted boolean, record_hash bytea, source_topic text, "
                    + "source_partition integer, source_offset bigint, loaded_at timestamptz)");
            insertBroken(broken);
        }

        exec("CREATE TABLE ic_broken_pair (region text, n integer, status text, sk bigint, from_ts timestamptz, "
                + "to_ts timestamptz, current_flag boolean, deleted_flag boolean, row_hash bytea, src_topic text, "
                + "src_partition integer, src_offset bigint, load_ts timestamptz)");
        Versions p = new Versions(BROKEN_PAIR);
        p.insertWithCurrentFlag(ds,
                p.row(values("EU", 1L), values("open"), 1, JAN1, FEB1, false, false),
                p.row(values("EU", 1L), values("closed"), 2, MAR1, null, false, true),
                p.row(values("EU", 2L), values("open"), 3, JAN1, null, false, true));
    }

    @Test
    void aCorrectTableIsOk() throws SQLException {
        IntegrityReport report = new IntegrityChecker(ds).check(GOOD);
        assertThat(report).isEqualTo(new IntegrityReport("ic_good", 7, List.of()));
        assertThat(report.ok()).isTrue();
        assertThat(report.render()).isEqualTo("OK: ic_good: 7 rows, no findings");
    }

    @Test
    void anEmptyTableIsOk() throws SQLException {
        EntitySpec empty = customer("ic_empty");
        EntityTables.ensure(ds, empty);
        assertThat(new IntegrityChecker(ds).check(empty)).isEqualTo(new IntegrityReport("ic_empty", 0, List.of()));
    }

    @Test
    void aGapInATableDimstreamCreatedIsFound() throws SQLException {
        // the generated table prevents duplicate current rows, but not gaps
        assertThat(new IntegrityChecker(ds).check(REAL_WITH_GAP)).isEqualTo(new IntegrityReport("ic_real_gap", 2, List.of(
                new Finding(Kind.GAP, key("customer_id", "K1"), JAN1,
                        "ends at valid_to 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z"))));
    }

    @Test
    void transactionTimeOutOfOrderIsFoundOnRowsWrittenWithItAndRowsKnownSinceEverAreLeftAlone() throws SQLException {
        EntitySpec tt = customer("ic_tt");
        EntityTables.ensure(ds, tt);
        Versions v = new Versions(tt);
        List<VersionRow> rows = new ArrayList<>();
        for (String k : List.of("T1", "T2", "T3", "T4")) {
            rows.add(v.version(List.of(k), values("a"), rows.size() + 41, JAN1, FEB1));
            rows.add(v.version(List.of(k), values("b"), rows.size() + 41, FEB1, null));
        }
        v.insert(ds, rows.toArray(VersionRow[]::new));
        // by hand, the triggers off: every row known from 2026-01-01, every end from 2026-01-02; then T1's open version gets
        // an end, T2's closed one loses it, T3's is known before its row, and T4 is known since ever (no finding)
        exec("BEGIN; SET LOCAL dimstream.forget = 'on'; "
                + "UPDATE ic_tt SET known_from = '2026-01-01Z', end_known_from = CASE WHEN valid_to IS NULL THEN NULL ELSE '2026-01-02Z'::timestamptz END; "
                + "UPDATE ic_tt SET end_known_from = '2026-01-03Z' WHERE customer_id = 'T1' AND valid_to IS NULL; "
                + "UPDATE ic_tt SET end_known_from = NULL WHERE customer_id = 'T2' AND valid_to IS NOT NULL; "
                + "UPDATE ic_tt SET end_known_from = '2025-12-31Z' WHERE customer_id = 'T3' AND valid_to IS NOT NULL; "
                + "UPDATE ic_tt SET known_from = NULL, end_known_from = NULL WHERE customer_id = 'T4'; COMMIT");

        assertThat(new IntegrityChecker(ds).check(tt).render()).isEqualTo("""
                FAILED: ic_tt: 8 rows, 3 findings (TRANSACTION_TIME 3)
                TRANSACTION_TIME customer_id=T1 valid_from=2025-02-01T00:00:00Z : the version is open, known_from 2026-01-01T00:00:00Z, end_known_from 2026-01-03T00:00:00Z: an open version has no end_known_from, a closed one has one, not before known_from
                TRANSACTION_TIME customer_id=T2 valid_from=2025-01-01T00:00:00Z : the version is closed, known_from 2026-01-01T00:00:00Z, end_known_from NULL: an open version has no end_known_from, a closed one has one, not before known_from
                TRANSACTION_TIME customer_id=T3 valid_from=2025-01-01T00:00:00Z : the version is closed, known_from 2026-01-01T00:00:00Z, end_known_from 2025-12-31T00:00:00Z: an open version has no end_known_from, a closed one has one, not before known_from
                """);
    }

    @Test
    void aBrokenTableReportsEveryKindExactlyOncePerDefect() throws SQLException {
        IntegrityReport report = new IntegrityChecker(ds).check(BROKEN);
        assertThat(report).isEqualTo(new IntegrityReport("ic_broken", 15, BROKEN_FINDINGS));
        assertThat(report.ok()).isFalse();
        assertThat(report.counts()).isEqualTo(Map.of(Kind.DUPLICATE_CURRENT, 1L, Kind.OVERLAP, 2L, Kind.GAP, 1L,
                Kind.CURRENT_FLAG_INCONSISTENT, 1L, Kind.NO_CURRENT, 2L, Kind.DUPLICATE_SURROGATE_KEY, 1L));
        assertThat(report.render()).isEqualTo("""
                FAILED: ic_broken: 15 rows, 8 findings (DUPLICATE_CURRENT 1, OVERLAP 2, GAP 1, CURRENT_FLAG_INCONSISTENT 1, NO_CURRENT 2, DUPLICATE_SURROGATE_KEY 1)
                DUPLICATE_CURRENT customer_id=D1 valid_from=2025-01-01T00:00:00Z : 2 rows have is_current = true (the last from valid_from 2025-02-01T00:00:00Z); at most one is allowed
                OVERLAP customer_id=D1 valid_from=2025-02-01T00:00:00Z : starts while the previous version (valid_from 2025-01-01T00:00:00Z) is still open (valid_to NULL)
                OVERLAP customer_id=O1 valid_from=2025-02-01T00:00:00Z : starts before the previous version (valid_from 2025-01-01T00:00:00Z) ends at 2025-03-01T00:00:00Z
                GAP customer_id=G1 valid_from=2025-01-01T00:00:00Z : ends at valid_to 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z
                CURRENT_FLAG_INCONSISTENT customer_id=F1 valid_from=2025-01-01T00:00:00Z : is_current = false but valid_to = NULL and is_deleted = false, so it must be true
                NO_CURRENT customer_id=N1 valid_from=2025-02-01T00:00:00Z : the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = false); the last version must be open
                NO_CURRENT customer_id=N2 valid_from=2025-02-01T00:00:00Z : the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = true); the last version must be open
                DUPLICATE_SURROGATE_KEY customer_id=S1 valid_from=2025-01-01T00:00:00Z : 2 versions have surrogate_key = 14 (this is the first in key order); it must identify one
                """);
    }

    @Test
    void withValidToCurrentInfinityTheSameDefectsAreFoundAndAnOpenEndIsNamedInfinity() throws SQLException {
        IntegrityReport report = new IntegrityChecker(ds).check(BROKEN_INFINITY);
        assertThat(report.render()).isEqualTo("""
                FAILED: ic_broken_inf: 15 rows, 8 findings (DUPLICATE_CURRENT 1, OVERLAP 2, GAP 1, CURRENT_FLAG_INCONSISTENT 1, NO_CURRENT 2, DUPLICATE_SURROGATE_KEY 1)
                DUPLICATE_CURRENT customer_id=D1 valid_from=2025-01-01T00:00:00Z : 2 rows have is_current = true (the last from valid_from 2025-02-01T00:00:00Z); at most one is allowed
                OVERLAP customer_id=D1 valid_from=2025-02-01T00:00:00Z : starts while the previous version (valid_from 2025-01-01T00:00:00Z) is still open (valid_to INFINITY)
                OVERLAP customer_id=O1 valid_from=2025-02-01T00:00:00Z : starts before the previous version (valid_from 2025-01-01T00:00:00Z) ends at 2025-03-01T00:00:00Z
                GAP customer_id=G1 valid_from=2025-01-01T00:00:00Z : ends at valid_to 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z
                CURRENT_FLAG_INCONSISTENT customer_id=F1 valid_from=2025-01-01T00:00:00Z : is_current = false but valid_to = INFINITY and is_deleted = false, so it must be true
                NO_CURRENT customer_id=N1 valid_from=2025-02-01T00:00:00Z : the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = false); the last version must be open
                NO_CURRENT customer_id=N2 valid_from=2025-02-01T00:00:00Z : the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = true); the last version must be open
                DUPLICATE_SURROGATE_KEY customer_id=S1 valid_from=2025-01-01T00:00:00Z : 2 versions have surrogate_key = 14 (this is the first in key order); it must identify one
                """);
        // read as the null table's: NULL and 'infinity' are both "open"
        assertThat(new IntegrityChecker(ds).check(BROKEN).findings().stream().map(Finding::detail)
                .map(d -> d.replace("valid_to NULL", "valid_to INFINITY").replace("valid_to = NULL", "valid_to = INFINITY")).toList())
                .isEqualTo(report.findings().stream().map(Finding::detail).toList());
    }

    @Test
    void theCapListsTheFirstFindingsOfEachKindButCountsThemAll() throws SQLException {
        IntegrityReport report = new IntegrityChecker(ds, 1).check(BROKEN);
        assertThat(report).isEqualTo(new IntegrityReport("ic_broken", 15,
                List.of(BROKEN_FINDINGS.get(0), BROKEN_FINDINGS.get(1), BROKEN_FINDINGS.get(3), BROKEN_FINDINGS.get(4),
                        BROKEN_FINDINGS.get(5), BROKEN_FINDINGS.get(7)),
                Map.of(Kind.DUPLICATE_CURRENT, 1L, Kind.OVERLAP, 2L, Kind.GAP, 1L, Kind.CURRENT_FLAG_INCONSISTENT, 1L,
                        Kind.NO_CURRENT, 2L, Kind.DUPLICATE_SURROGATE_KEY, 1L)));
        assertThat(report.truncated()).isTrue();
        assertThat(report.totalFindings()).isEqualTo(8);
        assertThat(report.render()).endsWith("""
                NO_CURRENT customer_id=N1 valid_from=2025-02-01T00:00:00Z : the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = false); the last version must be open
                DUPLICATE_SURROGATE_KEY customer_id=S1 valid_from=2025-01-01T00:00:00Z : 2 versions have surrogate_key = 14 (this is the first in key order); it must identify one
                ... 1 more OVERLAP not listed
                ... 1 more NO_CURRENT not listed
                """);
    }

    @Test
    void aCompositeKeyAndRenamedSystemColumnsAreReportedByTheirNames() throws SQLException {
        assertThat(new IntegrityChecker(ds).check(BROKEN_PAIR)).isEqualTo(new IntegrityReport("ic_broken_pair", 3, List.of(
                new Finding(Kind.GAP, key("region", "EU", "n", 1L), JAN1,
                        "ends at to_ts 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z"))));
        assertThat(new IntegrityChecker(ds).check(BROKEN_PAIR).render()).isEqualTo("""
                FAILED: ic_broken_pair: 3 rows, 1 finding (GAP 1)
                GAP region=EU n=1 valid_from=2025-01-01T00:00:00Z : ends at to_ts 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z
                """);
    }

    static final List<Finding> BROKEN_FINDINGS = List.of(
            new Finding(Kind.DUPLICATE_CURRENT, key("customer_id", "D1"), JAN1,
                    "2 rows have is_current = true (the last from valid_from 2025-02-01T00:00:00Z); at most one is allowed"),
            new Finding(Kind.OVERLAP, key("customer_id", "D1"), FEB1,
                    "starts while the previous version (valid_from 2025-01-01T00:00:00Z) is still open (valid_to NULL)"),
            new Finding(Kind.OVERLAP, key("customer_id", "O1"), FEB1,
                    "starts before the previous version (valid_from 2025-01-01T00:00:00Z) ends at 2025-03-01T00:00:00Z"),
            new Finding(Kind.GAP, key("customer_id", "G1"), JAN1,
                    "ends at valid_to 2025-02-01T00:00:00Z but the next version starts at 2025-03-01T00:00:00Z"),
            new Finding(Kind.CURRENT_FLAG_INCONSISTENT, key("customer_id", "F1"), JAN1,
                    "is_current = false but valid_to = NULL and is_deleted = false, so it must be true"),
            new Finding(Kind.NO_CURRENT, key("customer_id", "N1"), FEB1,
                    "the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = false); the last version must be open"),
            new Finding(Kind.NO_CURRENT, key("customer_id", "N2"), FEB1,
                    "the key's last version is closed at valid_to 2025-03-01T00:00:00Z (is_deleted = true); the last version must be open"),
            new Finding(Kind.DUPLICATE_SURROGATE_KEY, key("customer_id", "S1"), JAN1,
                    "2 versions have surrogate_key = 14 (this is the first in key order); it must identify one"));

    /** The defects of {@link #BROKEN}, one key each, into {@code broken} (a hand-made table with a plain is_current). */
    private static void insertBroken(EntitySpec broken) throws SQLException {
        Versions b = new Versions(broken);
        b.insertWithCurrentFlag(ds,
                // sound: a version, then its delete
                b.row(List.of("OK1"), values("a"), 1, JAN1, FEB1, false, false),
                b.row(List.of("OK1"), values("a"), 2, FEB1, null, true, false),
                // two open current rows
                b.row(List.of("D1"), values("a"), 3, JAN1, null, false, true),
                b.row(List.of("D1"), values("b"), 4, FEB1, null, false, true),
                // the second version starts before the first ends
                b.row(List.of("O1"), values("a"), 5, JAN1, MAR1, false, false),
                b.row(List.of("O1"), values("b"), 6, FEB1, null, false, true),
                // nothing valid between FEB1 and MAR1
                b.row(List.of("G1"), values("a"), 7, JAN1, FEB1, false, false),
                b.row(List.of("G1"), values("b"), 8, MAR1, null, false, true),
                // open, not deleted, but not flagged current
                b.row(List.of("F1"), values("a"), 9, JAN1, null, false, false),
                // last version closed, not deleted
                b.row(List.of("N1"), values("a"), 10, JAN1, FEB1, false, false),
                b.row(List.of("N1"), values("b"), 11, FEB1, MAR1, false, false),
                // last version a closed delete
                b.row(List.of("N2"), values("a"), 12, JAN1, FEB1, false, false),
                b.row(List.of("N2"), values("a"), 13, FEB1, MAR1, true, false),
                // two sound keys whose versions share a surrogate key
                b.row(List.of("S1"), values("a"), 14, JAN1, null, false, true),
                b.row(List.of("S2"), values("a"), 14, FEB1, null, false, true));
    }

    private static EntitySpec customer(String table) {
        return EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("customer_id"))
                .tracked(List.of("email"))
                .columns(columns("customer_id", ColumnType.TEXT, "email", ColumnType.TEXT))
                .latenessHorizon(Optional.empty())
                .build();
    }

    private static void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
