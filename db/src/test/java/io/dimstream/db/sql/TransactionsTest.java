package io.dimstream.db.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransactionsTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @BeforeEach
    void table() throws SQLException {
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS tx_test");
            s.execute("CREATE TABLE tx_test (v int)");
        }
    }

    @Test
    void aBodyThatFailsLeavesNothingAndItsFailureIsRethrownUnchanged() throws SQLException {
        IllegalStateException failure = new IllegalStateException("boom");
        assertThatThrownBy(() -> Transactions.run(DS, c -> {
            insert(c, 1);
            throw failure;
        })).isSameAs(failure).hasNoSuppressedExceptions();
        SQLException sqlFailure = new SQLException("refused", "23514");
        assertThatThrownBy(() -> Transactions.inTransaction(DS, c -> {
            insert(c, 2);
            throw sqlFailure;
        })).isSameAs(sqlFailure);
        String result = Transactions.inTransaction(DS, c -> {
            insert(c, 3);
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(values()).containsExactly(3);
    }

    @Test
    void onABorrowedConnectionTheAutoCommitModeIsGivenBackAfterACommitAndAFailure() throws SQLException {
        try (Connection c = DS.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            int inserted = Transactions.inTransaction(c, tx -> insert(tx, 4));
            assertThat(inserted).isEqualTo(1);
            assertThat(c.getAutoCommit()).isTrue();
            RuntimeException failure = new RuntimeException("boom");
            assertThatThrownBy(() -> Transactions.inTransaction(c, tx -> {
                insert(tx, 5);
                throw failure;
            })).isSameAs(failure).hasNoSuppressedExceptions();
            assertThat(c.getAutoCommit()).isTrue();
            c.setAutoCommit(false);
            Transactions.inTransaction(c, tx -> insert(tx, 6));
            assertThat(c.getAutoCommit()).isFalse();
            c.commit();
        }
        assertThat(values()).containsExactly(4, 6);
    }

    @Test
    void aFailedRollbackIsAddedToTheFailureAsSuppressed() throws SQLException {
        SQLException failure = new SQLException("the body failed");
        Throwable thrown;
        try (Connection c = DS.getConnection()) {
            try {
                Transactions.inTransaction(c, tx -> {
                    insert(tx, 7);
                    tx.close(); // rollback and restoring auto-commit then fail: the connection is closed
                    throw failure;
                });
                thrown = null;
            } catch (SQLException e) {
                thrown = e;
            }
        }
        assertThat(thrown).isSameAs(failure);
        assertThat(thrown.getSuppressed()).hasSize(2).allSatisfy(s -> assertThat(s).isInstanceOf(SQLException.class));
        assertThat(values()).isEmpty();
    }

    private static int insert(Connection c, int v) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("INSERT INTO tx_test VALUES (" + v + ")");
        }
    }

    private static List<Integer> values() throws SQLException {
        List<Integer> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM tx_test ORDER BY v")) {
            while (rs.next()) {
                out.add(rs.getInt(1));
            }
        }
        return out;
    }
}
