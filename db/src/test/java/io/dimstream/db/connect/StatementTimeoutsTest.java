package io.dimstream.db.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin's statement timeout, on a pool of ONE connection shared by the limited and the raw
 * data source (as {@code dimstream demo} shares its pool with the pipeline): the limit holds while
 * the admin borrows the connection and is gone when the pipeline borrows it next.
 */
class StatementTimeoutsTest {

    private HikariDataSource pool;
    private DataSource limited;

    @BeforeEach
    void pool() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestPostgres.jdbcUrl());
        cfg.setMaximumPoolSize(1);
        pool = new HikariDataSource(cfg);
        limited = StatementTimeouts.wrap(pool, Duration.ofMillis(200));
    }

    @AfterEach
    void close() {
        pool.close();
    }

    private static String show(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void aStatementLongerThanTheTimeoutIsCancelledWithSqlState57014() throws SQLException {
        try (Connection c = limited.getConnection(); Statement s = c.createStatement()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> s.execute("SELECT pg_sleep(5)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("57014");
                        assertThat(e.getMessage()).startsWith("ERROR: canceling statement due to statement timeout");
                        assertThat(StatementTimeouts.isTimeout(new IllegalStateException("wrapped", e))).isTrue();
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void theTimeoutHoldsForTheBorrowAndIsResetWhenTheConnectionGoesBack() throws SQLException {
        try (Connection c = limited.getConnection()) {
            assertThat(show(c)).isEqualTo("200ms");
        }
        try (Connection c = pool.getConnection()) {
            assertThat(show(c)).isEqualTo("0");
        }
    }

    @Test
    void evenAConnectionClosedInsideAFailedTransactionGoesBackWithoutTheTimeout() throws SQLException {
        try (Connection c = limited.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("SELECT 1/0")).isInstanceOf(SQLException.class);
            }
            // closed without rollback, the transaction aborted: the RESET must not be rolled back with it
        }
        try (Connection c = pool.getConnection()) {
            assertThat(List.of(show(c), c.getAutoCommit())).isEqualTo(List.of("0", true));
        }
    }

    @Test
    void aTimeoutOutsideOneMillisecondToIntMaxIsRefused() {
        assertThatThrownBy(() -> StatementTimeouts.wrap(pool, Duration.ZERO))
                .hasMessage("statement timeout must be between 1 ms and 2147483647 ms, got PT0S");
    }
}
