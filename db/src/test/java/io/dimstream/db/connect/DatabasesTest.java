package io.dimstream.db.connect;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** {@link Databases#ping}: the service's PostgreSQL health probe. */
class DatabasesTest {

    @Test
    void pingReturnsWhenPostgresAnswers() {
        assertThatCode(() -> Databases.ping(TestPostgres.dataSource(), 3)).doesNotThrowAnyException();
    }

    @Test
    void pingThrowsTheDriversExceptionWhenNoConnectionCanBeHad() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestPostgres.jdbcUrl());
        cfg.setMaximumPoolSize(1);
        cfg.setPoolName("ping-test");
        HikariDataSource closed = new HikariDataSource(cfg);
        closed.close();
        assertThatThrownBy(() -> Databases.ping(closed, 3))
                .isInstanceOf(SQLException.class)
                .hasMessage("HikariDataSource HikariDataSource (ping-test) has been closed.");
    }

    @Test
    void pingRefusesATimeoutThatIsNotPositive() {
        assertThatThrownBy(() -> Databases.ping(TestPostgres.dataSource(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeoutSeconds must be positive, got 0");
    }
}
