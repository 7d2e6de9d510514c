package io.dimstream.db.read;

import static io.dimstream.db.read.Versions.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HistoryQueriesTest {

    static final Instant JAN1 = Instant.parse("2025-01-01T00:00:00Z");
    static final Instant JAN15 = Instant.parse("2025-01-15T00:00:00Z");
    static final Instant FEB1 = Instant.parse("2025-02-01T00:00:00Z");
    static final Instant FEB15 = Instant.parse("2025-02-15T00:00:00Z");
    static final Instant MAR1 = Instant.parse("2025-03-01T00:00:00Z");
    static final Instant APR1 = Instant.parse("2025-04-01T00:00:00Z");

    static final String HOSTILE = "' OR 1=1 --";

    /** Single text key, tracked and type-1 columns, default system column names. */
    static final EntitySpec CUSTOMER = EntitySpec.builder()
            .name("rq_customer")
            .table("rq_customer")
            .key(List.of("customer_id"))
            .tracked(List.of("email", "tier"))
            .type1(List.of("last_login"))
            .columns(columns("customer_id", ColumnType.TEXT, "email", ColumnType.TEXT, "tier", ColumnType.TEXT, "last_login", ColumnType.BIGINT))
            .latenessHorizon(Optional.empty())
            .build();

    /** Composite (text, bigint) key and renamed system columns. */
    static final EntitySpec ACCOUNT = EntitySpec.builder()
            .name("rq_account")
            .table("rq_account")
            .key(List.of("region", "account_no"))
            .tracked(List.of("status"))
            .columns(columns("region", ColumnType.TEXT, "account_no", ColumnType.BIGINT, "status", ColumnType.TEXT))
            .latenessHorizon(Optional.empty())
            .system(new SystemColumns("sk", "from_ts", "to_ts", "current_flag", "deleted_flag", "row_hash", "src_topic", "src_partition", "src_offset", "load_ts"))
            .build();

    /** Keys holding LIKE metacharacters. */
    static final EntitySpec SKU = EntitySpec.builder()
            .name("rq_sku")
            .table("rq_sku")
            .key(List.of("sku"))
            .tracked(List.of("label"))
            .columns(columns("sku", ColumnType.TEXT, "label", ColumnType.TEXT))
            .latenessHorizon(Optional.empty())
            .build();

    static final Versions C = new Versions(CUSTOMER);
    static final VersionRow C1_V1 = C.version(List.of("C1"), values("c1@old.example", "bronze", 100L), 1001, JAN1, FEB1);
    static final VersionRow C1_V2 = C.version(List.of("C1"), values("c1@new.example", "bronze", 200L), 1002, FEB1, null);
    static final VersionRow C2_V1 = C.version(List.of("C2"), values("c2@example", "silver", 5L), 2001, JAN1, MAR1);
    static final VersionRow C2_DELETED = C.deleted(C2_V1, 2002, MAR1);
    static final VersionRow C3_V1 = Versions.withoutLineage(C.version(List.of("C3"), values("c3@example", "gold", null), 3001, FEB1, null));
    static final VersionRow C4 = C.version(List.of("C4"), values("c4@example", "bronze", null), 4001, JAN1, null);
    static final VersionRow C5 = C.version(List.of("C5"), values("c5@example", "bronze", null), 5001, JAN1, null);
    static final VersionRow C6 = C.version(List.of("C6"), values("c6@example", "bronze", null), 6001, JAN1, null);
    static final VersionRow C7 = C.version(List.of("C7"), values("c7@example", null, 7L), 7001, JAN1, null);

    static final Versions A = new Versions(ACCOUNT);
    static final VersionRow EU1_V1 = A.version(values("EU", 1L), values("open"), 11, JAN1, FEB1);
    static final VersionRow EU1_V2 = A.version(values("EU", 1L), values("frozen"), 12, FEB1, null);
    static final VersionRow EU2 = A.version(values("EU", 2L), values("open"), 21, JAN1, null);
    static final VersionRow EU10 = A.version(values("EU", 10L), values("open"), 101, JAN1, null);
    static final VersionRow US1 = A.version(values("US", 1L), values("open"), 31, FEB1, null);
    static final VersionRow US2_V1 = A.version(values("US", 2L), values("open"), 41, JAN1, FEB1);
    static final VersionRow US2_DELETED = closedAt(A.deleted(US2_V1, 42, FEB1), MAR1);
    static final VersionRow US2_V3 = A.version(values("US", 2L), values("open"), 43, MAR1, null);

    static final Versions S = new Versions(SKU);
    static final VersionRow P_PERCENT = S.version(List.of("P%1"), values("percent"), 1, JAN1, null);
    static final VersionRow P_UNDERSCORE = S.version(List.of("P_1"), values("underscore"), 2, JAN1, null);
    static final VersionRow PA1 = S.version(List.of("PA1"), values("plain"), 3, JAN1, null);
    static final VersionRow PAB = S.version(List.of("PAB"), values("plain"), 4, JAN1, null);

    static DataSource ds;
    static HistoryQueries queries;

    @BeforeAll
    static void createTables() throws SQLException {
        ds = TestPostgres.dataSource();
        for (EntitySpec e : List.of(CUSTOMER, ACCOUNT, SKU)) {
            EntityTables.ensure(ds, e);
        }
        C.insert(ds, C1_V1, C1_V2, C2_V1, C2_DELETED, C3_V1, C4, C5, C6, C7);
        A.insert(ds, EU1_V1, EU1_V2, EU2, EU10, US1, US2_V1, US2_DELETED, US2_V3);
        S.insert(ds, P_PERCENT, P_UNDERSCORE, PA1, PAB);
        queries = new HistoryQueries(ds);
    }

    // ---- history

    @Test
    void historyListsEveryVersionOfAKeyInValidFromOrder() throws SQLException {
        assertThat(queries.history(CUSTOMER, List.of("C1"))).containsExactly(C1_V1, C1_V2);
    }

    @Test
    void historyOfADeletedKeyEndsWithItsIsDeletedRow() throws SQLException {
        assertThat(queries.history(CUSTOMER, List.of("C2"))).containsExactly(C2_V1, C2_DELETED);
    }

    @Test
    void historyReadsNullAttributesAndMissingLineageAsNull() throws SQLException {
        assertThat(queries.history(CUSTOMER, List.of("C3"))).containsExactly(C3_V1);
        assertThat(C3_V1.attributes().get("last_login")).isNull();
        assertThat(C3_V1.sourceTopic()).isNull();
    }

    @Test
    void historyOfAnUnknownKeyIsEmpty() throws SQLException {
        assertThat(queries.history(CUSTOMER, List.of("C99"))).isEmpty();
    }

    @Test
    void historyOfACompositeKeyTakesKeyValuesAsTextAndShowsDeleteAndResurrection() throws SQLException {
        assertThat(queries.history(ACCOUNT, List.of("EU", "1"))).containsExactly(EU1_V1, EU1_V2);
        assertThat(queries.history(ACCOUNT, List.of("US", 2L))).containsExactly(US2_V1, US2_DELETED, US2_V3);
    }

    @Test
    void historyRefusesAKeyOfTheWrongShape() {
        assertThatThrownBy(() -> queries.history(ACCOUNT, List.of("EU")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity rq_account: expected 2 key value(s) for [region, account_no], got 1");
        assertThatThrownBy(() -> queries.history(ACCOUNT, List.of("EU", "one")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity rq_account: key column account_no: expected bigint, got string \"one\"");
    }

    @Test
    void historyTreatsAHostileKeyAsAValue() throws SQLException {
        assertThat(queries.history(CUSTOMER, List.of(HOSTILE))).isEmpty();
    }

    @Test
    void allVersionsListsEveryRowOrderedByKeyThenValidFrom() throws SQLException {
        assertThat(queries.allVersions(CUSTOMER)).containsExactly(C1_V1, C1_V2, C2_V1, C2_DELETED, C3_V1, C4, C5, C6, C7);
    }

    @Test
    void allVersionsOfACompositeKeyOrdersByEveryKeyColumnInItsOwnTypeWithRenamedSystemColumns() throws SQLException {
        // account_no is a bigint: EU 2 before EU 10
        assertThat(queries.allVersions(ACCOUNT))
                .containsExactly(EU1_V1, EU1_V2, EU2, EU10, US1, US2_V1, US2_DELETED, US2_V3);
    }

    // ---- as of

    @Test
    void asOfExactlyAtABoundaryTakesTheVersionStartingThereAndNotTheOneEndingThere() throws SQLException {
        // C1_V1 ends at FEB1 (excluded), C1_V2 and C3_V1 start at FEB1 (included)
        assertThat(queries.asOf(CUSTOMER, FEB1, null, false, 0, 100))
                .isEqualTo(new Page(List.of(C1_V2, C2_V1, C3_V1, C4, C5, C6, C7), false));
    }

    @Test
    void asOfOneMicrosecondBeforeABoundaryTakesTheOlderVersion() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, FEB1.minus(1, ChronoUnit.MICROS), null, false, 0, 100))
                .isEqualTo(new Page(List.of(C1_V1, C2_V1, C4, C5, C6, C7), false));
    }

    @Test
    void asOfExcludesAKeyFromTheInstantOfItsDelete() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, MAR1, null, false, 0, 100))
                .isEqualTo(new Page(List.of(C1_V2, C3_V1, C4, C5, C6, C7), false));
    }

    @Test
    void asOfBeforeAnyVersionIsEmpty() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, JAN1.minusSeconds(1), null, false, 0, 100)).isEqualTo(new Page(List.of(), false));
    }

    @Test
    void asOfPagesThroughThreePagesByOffset() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, APR1, "C", false, 0, 2)).isEqualTo(new Page(List.of(C1_V2, C3_V1), true));
        assertThat(queries.asOf(CUSTOMER, APR1, "C", false, 2, 2)).isEqualTo(new Page(List.of(C4, C5), true));
        assertThat(queries.asOf(CUSTOMER, APR1, "C", false, 4, 2)).isEqualTo(new Page(List.of(C6, C7), false));
        assertThat(queries.asOf(CUSTOMER, APR1, "C", false, 6, 2)).isEqualTo(new Page(List.of(), false));
    }

    @Test
    void asOfPagesDescending() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, APR1, null, true, 0, 4)).isEqualTo(new Page(List.of(C7, C6, C5, C4), true));
        assertThat(queries.asOf(CUSTOMER, APR1, null, true, 4, 4)).isEqualTo(new Page(List.of(C3_V1, C1_V2), false));
    }

    @Test
    void asOfAfterPagesByKeysetBothWays() throws SQLException {
        Page p1 = queries.asOfAfter(CUSTOMER, APR1, "C", false, null, 2);
        assertThat(p1).isEqualTo(new Page(List.of(C1_V2, C3_V1), true));
        Page p2 = queries.asOfAfter(CUSTOMER, APR1, "C", false, List.copyOf(p1.lastKey().orElseThrow().values()), 2);
        assertThat(p2).isEqualTo(new Page(List.of(C4, C5), true));
        Page p3 = queries.asOfAfter(CUSTOMER, APR1, "C", false, List.copyOf(p2.lastKey().orElseThrow().values()), 2);
        assertThat(p3).isEqualTo(new Page(List.of(C6, C7), false));

        assertThat(queries.asOfAfter(CUSTOMER, APR1, null, true, List.of("C4"), 10)).isEqualTo(new Page(List.of(C3_V1, C1_V2), false));
        assertThat(queries.asOfAfter(ACCOUNT, FEB15, null, false, List.of("EU", 2L), 10)).isEqualTo(new Page(List.of(EU10, US1), false));
    }

    @Test
    void asOfOfACompositeKeyOrdersByEveryKeyColumnInItsOwnType() throws SQLException {
        // account_no is bigint: 2 before 10; US2 is deleted between FEB1 and MAR1
        assertThat(queries.asOf(ACCOUNT, FEB15, null, false, 0, 100))
                .isEqualTo(new Page(List.of(EU1_V2, EU2, EU10, US1), false));
        assertThat(queries.asOf(ACCOUNT, FEB15, "EU", true, 0, 100))
                .isEqualTo(new Page(List.of(EU10, EU2, EU1_V2), false));
        assertThat(queries.asOf(ACCOUNT, APR1, "US", false, 0, 100))
                .isEqualTo(new Page(List.of(US1, US2_V3), false));
    }

    @Test
    void keyPrefixTreatsPercentAndUnderscoreLiterally() throws SQLException {
        assertThat(queries.asOf(SKU, APR1, "P%", false, 0, 100)).isEqualTo(new Page(List.of(P_PERCENT), false));
        assertThat(queries.asOf(SKU, APR1, "P_", false, 0, 100)).isEqualTo(new Page(List.of(P_UNDERSCORE), false));
        assertThat(queries.asOf(SKU, APR1, "PA", false, 0, 100)).isEqualTo(new Page(List.of(PA1, PAB), false));
        assertThat(queries.findKeys(SKU, "P%", 10)).containsExactly(Map.of("sku", "P%1"));
        assertThat(queries.findKeys(SKU, "P_", 10)).containsExactly(Map.of("sku", "P_1"));
    }

    @Test
    void hostilePrefixIsAValueAndMatchesNothing() throws SQLException {
        assertThat(queries.asOf(CUSTOMER, APR1, HOSTILE, false, 0, 100)).isEqualTo(new Page(List.of(), false));
        assertThat(queries.asOfAfter(CUSTOMER, APR1, HOSTILE, true, List.of(HOSTILE), 100)).isEqualTo(new Page(List.of(), false));
        assertThat(queries.findKeys(CUSTOMER, HOSTILE, 100)).isEmpty();
        assertThat(queries.asOf(CUSTOMER, APR1, "C", false, 0, 100).rows()).hasSize(6);
    }

    @Test
    void pagingArgumentsAreChecked() {
        assertThatThrownBy(() -> queries.asOf(CUSTOMER, APR1, null, false, -1, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("offset must be >= 0, got -1");
        assertThatThrownBy(() -> queries.asOf(CUSTOMER, APR1, null, false, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be between 1 and 10000, got 0");
    }

    // ---- key search

    @Test
    void findKeysListsDistinctKeysInOrderIncludingDeletedOnes() throws SQLException {
        assertThat(queries.findKeys(CUSTOMER, "C", 3)).containsExactly(key("customer_id", "C1"), key("customer_id", "C2"),
                key("customer_id", "C3"));
        assertThat(queries.findKeys(CUSTOMER, null, 100)).containsExactly(key("customer_id", "C1"), key("customer_id", "C2"),
                key("customer_id", "C3"), key("customer_id", "C4"), key("customer_id", "C5"), key("customer_id", "C6"),
                key("customer_id", "C7"));
        assertThat(queries.findKeys(CUSTOMER, "C7", 100)).containsExactly(key("customer_id", "C7"));
    }

    @Test
    void findKeysOfACompositeKeyFiltersOnTheFirstColumn() throws SQLException {
        List<Map<String, Object>> keys = queries.findKeys(ACCOUNT, "EU", 10);
        assertThat(keys).containsExactly(key("region", "EU", "account_no", 1L), key("region", "EU", "account_no", 2L),
                key("region", "EU", "account_no", 10L));
        assertThat(keys.get(0).keySet()).containsExactly("region", "account_no");
        assertThat(queries.findKeys(ACCOUNT, "US", 10)).containsExactly(key("region", "US", "account_no", 1L),
                key("region", "US", "account_no", 2L));
    }

    // ---- streaming

    @Test
    void streamAsOfDeliversTheWholeSnapshotInKeyOrder() throws SQLException {
        List<VersionRow> seen = new ArrayList<>();
        long n = queries.streamAsOf(CUSTOMER, APR1, seen::add);
        assertThat(seen).containsExactly(C1_V2, C3_V1, C4, C5, C6, C7);
        assertThat(n).isEqualTo(6);
    }

    @Test
    void streamAsOfUsesACursorAcrossSeveralFetches() throws SQLException {
        // more rows than one fetch, so the cursor is really read in several round trips
        EntitySpec big = EntitySpec.builder()
                .name("rq_big")
                .table("rq_big")
                .key(List.of("n"))
                .tracked(List.of("label"))
                .columns(columns("n", ColumnType.BIGINT, "label", ColumnType.TEXT))
                .latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, big);
        Versions b = new Versions(big);
        int count = HistoryQueries.STREAM_FETCH_SIZE * 2 + 1;
        VersionRow[] rows = new VersionRow[count];
        for (int i = 0; i < count; i++) {
            rows[i] = b.version(List.of((long) i), values("n" + i), i, JAN1, null);
        }
        b.insert(ds, rows);
        List<VersionRow> seen = new ArrayList<>();
        assertThat(queries.streamAsOf(big, APR1, seen::add)).isEqualTo(count);
        assertThat(seen).containsExactly(rows);
    }

    // ---- diff

    @Test
    void diffListsAddedRemovedAndChangedKeysWithTheColumnsThatDiffer() throws SQLException {
        assertThat(queries.diff(CUSTOMER, JAN15, APR1)).isEqualTo(new Diff(JAN15, APR1,
                List.of(C3_V1),
                List.of(C2_V1),
                List.of(new Diff.Change(key("customer_id", "C1"), List.of("email", "last_login"), C1_V1, C1_V2)),
                false));
    }

    @Test
    void diffOfACompositeKeyReportsAResurrectionWithIdenticalValuesAsAChangeWithoutColumns() throws SQLException {
        assertThat(queries.diff(ACCOUNT, JAN15, APR1)).isEqualTo(new Diff(JAN15, APR1,
                List.of(US1),
                List.of(),
                List.of(new Diff.Change(key("region", "EU", "account_no", 1L), List.of("status"), EU1_V1, EU1_V2),
                        new Diff.Change(key("region", "US", "account_no", 2L), List.of(), US2_V1, US2_V3)),
                false));
    }

    // ---- diff summary

    @Test
    void diffSummaryCountsAddedRemovedAndChangedKeysPerColumn() throws SQLException {
        assertThat(queries.diffSummary(CUSTOMER, JAN15, APR1)).isEqualTo(new DiffSummary(JAN15, APR1, 1, 1, 1,
                ordered("email", 1L, "tier", 0L, "last_login", 1L)));
        // backwards: added and removed swap, the changed columns stay
        assertThat(queries.diffSummary(CUSTOMER, APR1, JAN15)).isEqualTo(new DiffSummary(APR1, JAN15, 1, 1, 1,
                ordered("email", 1L, "tier", 0L, "last_login", 1L)));
    }

    @Test
    void diffSummaryOfACompositeKeyCountsAResurrectionAsChangedInNoColumn() throws SQLException {
        assertThat(queries.diffSummary(ACCOUNT, JAN15, APR1)).isEqualTo(new DiffSummary(JAN15, APR1, 1, 0, 2,
                ordered("status", 1L)));
        // US/2 was deleted at FEB15 and is back at APR1: added, not changed
        assertThat(queries.diffSummary(ACCOUNT, FEB15, APR1)).isEqualTo(new DiffSummary(FEB15, APR1, 1, 0, 0,
                ordered("status", 0L)));
    }

    // ---- as-of steps

    @Test
    void stepsAroundAnInstantAreTheNeighbouringDistinctValidFroms() throws SQLException {
        Instant dec1 = Instant.parse("2024-12-01T00:00:00Z");
        assertThat(queries.steps(CUSTOMER, dec1)).isEqualTo(new AsOfSteps(dec1, JAN1, null, null, JAN1, MAR1));
        assertThat(queries.steps(CUSTOMER, JAN1)).isEqualTo(new AsOfSteps(JAN1, JAN1, null, JAN1, FEB1, MAR1));
        assertThat(queries.steps(CUSTOMER, FEB15)).isEqualTo(new AsOfSteps(FEB15, JAN1, JAN1, FEB1, MAR1, MAR1));
        assertThat(queries.steps(CUSTOMER, MAR1)).isEqualTo(new AsOfSteps(MAR1, JAN1, FEB1, MAR1, null, MAR1));
        assertThat(queries.steps(CUSTOMER, APR1)).isEqualTo(new AsOfSteps(APR1, JAN1, FEB1, MAR1, null, MAR1));
    }

    @Test
    void stepsUseTheRenamedValidFromAndCountDeleteRowsAsChanges() throws SQLException {
        // from_ts: JAN1, FEB1 (a version and a delete), MAR1 (the resurrection)
        assertThat(queries.steps(ACCOUNT, FEB1)).isEqualTo(new AsOfSteps(FEB1, JAN1, JAN1, FEB1, MAR1, MAR1));
        // one change only
        assertThat(queries.steps(SKU, FEB1)).isEqualTo(new AsOfSteps(FEB1, JAN1, null, JAN1, null, JAN1));
    }

    private static Map<String, Long> ordered(Object... kv) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Long) kv[i + 1]);
        }
        return m;
    }

    @Test
    void diffBackwardsSwapsAddedAndRemoved() throws SQLException {
        assertThat(queries.diff(CUSTOMER, APR1, JAN15)).isEqualTo(new Diff(APR1, JAN15,
                List.of(C2_V1),
                List.of(C3_V1),
                List.of(new Diff.Change(key("customer_id", "C1"), List.of("email", "last_login"), C1_V2, C1_V1)),
                false));
    }

    @Test
    void diffStopsAtTheLimitInKeyOrderAndSaysSo() throws SQLException {
        assertThat(queries.diff(CUSTOMER, JAN15, APR1, 2)).isEqualTo(new Diff(JAN15, APR1,
                List.of(),
                List.of(C2_V1),
                List.of(new Diff.Change(key("customer_id", "C1"), List.of("email", "last_login"), C1_V1, C1_V2)),
                true));
    }

    @Test
    void diffBetweenInstantsInsideTheSameVersionsIsEmpty() throws SQLException {
        assertThat(queries.diff(CUSTOMER, FEB1, FEB15)).isEqualTo(new Diff(FEB1, FEB15, List.of(), List.of(), List.of(), false));
    }

    // ---- the view and the function EntityTables creates

    @Test
    void currentViewHoldsExactlyTheCurrentRows() throws SQLException {
        Columns cols = new Columns(CUSTOMER);
        String sql = "SELECT " + cols.select(null) + " FROM " + Sql.table(CUSTOMER.currentView()) + " ORDER BY customer_id";
        assertThat(select(sql, cols, null)).containsExactly(C1_V2, C3_V1, C4, C5, C6, C7);
        Columns acols = new Columns(ACCOUNT);
        String asql = "SELECT " + acols.select(null) + " FROM " + Sql.table(ACCOUNT.currentView()) + " ORDER BY region, account_no";
        assertThat(select(asql, acols, null)).containsExactly(EU1_V2, EU2, EU10, US1, US2_V3);
    }

    @Test
    void asOfFunctionReturnsWhatAsOfReturns() throws SQLException {
        Columns cols = new Columns(CUSTOMER);
        String sql = "SELECT " + cols.select(null) + " FROM " + Sql.table(CUSTOMER.asOfFunction()) + "(?) ORDER BY customer_id";
        for (Instant t : List.of(JAN1.minusSeconds(1), JAN15, FEB1, MAR1, APR1)) {
            assertThat(select(sql, cols, t)).as("as of %s", t).isEqualTo(queries.asOf(CUSTOMER, t, null, false, 0, 100).rows());
        }
        assertThat(select(sql, cols, FEB1)).containsExactly(C1_V2, C2_V1, C3_V1, C4, C5, C6, C7);
        Columns acols = new Columns(ACCOUNT);
        String asql = "SELECT " + acols.select(null) + " FROM " + Sql.table(ACCOUNT.asOfFunction()) + "(?) ORDER BY region, account_no";
        assertThat(select(asql, acols, FEB15)).containsExactly(EU1_V2, EU2, EU10, US1);
    }

    private static List<VersionRow> select(String sql, Columns cols, Instant param) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (param != null) {
                ps.setObject(1, param.atOffset(ZoneOffset.UTC));
            }
            List<VersionRow> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(cols.read(rs, 1));
                }
            }
            return rows;
        }
    }

    static VersionRow closedAt(VersionRow r, Instant to) {
        return new VersionRow(r.key(), r.attributes(), r.surrogateKey(), r.validFrom(), to, false, r.deleted(), r.recordHash(),
                r.sourceTopic(), r.sourcePartition(), r.sourceOffset(), r.loadedAt());
    }

    static Map<String, Object> key(Object... namesAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    static Map<String, ColumnType> columns(Object... namesAndTypes) {
        Map<String, ColumnType> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndTypes.length; i += 2) {
            m.put((String) namesAndTypes[i], (ColumnType) namesAndTypes[i + 1]);
        }
        return m;
    }
}
