package io.dimstream.db.read;

import static io.dimstream.db.read.Versions.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole-table figures of {@link TableSummary} over rows inserted by hand, renamed system columns included. */
class TableSummaryTest {

    static final Instant JAN1 = Instant.parse("2025-01-01T00:00:00Z");
    static final Instant FEB1 = Instant.parse("2025-02-01T00:00:00Z");
    static final Instant MAR1 = Instant.parse("2025-03-01T00:00:00Z");

    /** A "tier" column that only some versions hold, and renamed system columns. */
    static final EntitySpec MEMBER = EntitySpec.builder()
            .name("ts_member")
            .table("ts_member")
            .key(List.of("member_id"))
            .tracked(List.of("email", "tier"))
            .type1(List.of("last_login"))
            .columns(HistoryQueriesTest.columns("member_id", ColumnType.TEXT, "email", ColumnType.TEXT, "tier", ColumnType.TEXT, "last_login", ColumnType.BIGINT))
            .latenessHorizon(Optional.empty())
            .system(new SystemColumns("sk", "from_ts", "to_ts", "current_flag", "deleted_flag", "row_hash", "src_topic", "src_partition", "src_offset", "load_ts"))
            .build();

    static final EntitySpec EMPTY = EntitySpec.builder()
            .name("ts_empty")
            .table("ts_empty")
            .key(List.of("id"))
            .tracked(List.of("label"))
            .columns(HistoryQueriesTest.columns("id", ColumnType.TEXT, "label", ColumnType.TEXT))
            .latenessHorizon(Optional.empty())
            .build();

    static final Versions M = new Versions(MEMBER);
    static final VersionRow M1_V1 = M.version(List.of("M1"), values("m1@example", null, 1L), 11, JAN1, FEB1);
    static final VersionRow M1_V2 = M.version(List.of("M1"), values("m1@example", "gold", 2L), 12, FEB1, null);
    static final VersionRow M2_V1 = M.version(List.of("M2"), values("m2@example", "silver", 3L), 21, JAN1, MAR1);
    static final VersionRow M2_DELETED = M.deleted(M2_V1, 22, MAR1);
    static final VersionRow M3 = M.version(List.of("M3"), values("m3@example", null, null), 31, FEB1, null);

    static DataSource ds;
    static TableSummary summary;

    @BeforeAll
    static void createTables() throws SQLException {
        ds = TestPostgres.dataSource();
        EntityTables.ensure(ds, MEMBER);
        EntityTables.ensure(ds, EMPTY);
        // inserted out of key order
        M.insert(ds, M3, M2_DELETED, M1_V2, M2_V1, M1_V1);
        summary = new TableSummary(ds);
    }

    @Test
    void shapeCountsVersionsCurrentRowsAndKeysWhoseNewestRowIsADelete() throws SQLException {
        assertThat(summary.shape(MEMBER)).isEqualTo(new TableSummary.Shape(5, 2, 1));
        assertThat(summary.shape(EMPTY)).isEqualTo(new TableSummary.Shape(0, 0, 0));
    }

    @Test
    void versionsWithValueCountsNonNullValuesDeletedRowsIncluded() throws SQLException {
        // M1_V2, M2_V1 and the delete carrying M2_V1's attributes
        assertThat(summary.versionsWithValue(MEMBER, "tier")).isEqualTo(3);
        assertThat(summary.versionsWithValue(MEMBER, "last_login")).isEqualTo(4);
    }

    @Test
    void versionsWithValueRefusesAColumnThatIsNoAttribute() {
        assertThatThrownBy(() -> summary.versionsWithValue(MEMBER, "member_id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'member_id' is not an attribute column of entity ts_member (its attributes: [email, tier, last_login])");
        assertThatThrownBy(() -> summary.versionsWithValue(MEMBER, "\" OR 1=1 --"))
                .isInstanceOf(IllegalArgumentException.class);
    }

}
