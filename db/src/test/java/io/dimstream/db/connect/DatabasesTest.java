package io.dimstream.db.connect;

import static org.assertj.core.api.Assertions.assertThat;
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
    void aLoginTheServerRefusesForGoodFailsAtOnceNamingTheReasonAndAWaitableOneIsWaitedFor() {
        String url = TestPostgres.jdbcUrl();
        // no such role: refused as class 28 whether the server asks for a password (28P01) or trusts (28000)
        String wrongLogin = url.replaceAll("([?&])user=[^&]*", "$1user=no_such_role_here").replaceAll("([?&])password=[^&]*",
                "$1password=wrong-password");
        long t = System.nanoTime();
        assertThatThrownBy(() -> Databases.open(wrongLogin, null, null, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot connect to PostgreSQL at " + io.dimstream.db.secrets.Secrets.mask(wrongLogin) + " as null: ")
                .hasMessageContaining("no_such_role_here")
                .hasMessageMatching("(?s).*\\(SQL state 28(000|P01)\\)");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - t)).isLessThan(java.time.Duration.ofSeconds(15));

        String noDatabase = url.replaceFirst("(//[^/]+/)[^?]*", "$1no_such_db_here");
        assertThatThrownBy(() -> Databases.open(noDatabase, null, null, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("(SQL state 3D000)");
        // a refused TCP connection (nothing listening yet: a database still starting) is not final
        assertThat(Databases.refusedForGood(new SQLException("Connection to 127.0.0.1:1 refused", "08001"))).isFalse();
        assertThat(Databases.refusedForGood(new java.sql.SQLTransientConnectionException("dimstream - Connection is not available",
                "28000", new SQLException("no pg_hba.conf entry", "28000")))).isTrue();
    }

    @Test
    void pingRefusesATimeoutThatIsNotPositive() {
        assertThatThrownBy(() -> Databases.ping(TestPostgres.dataSource(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeoutSeconds must be positive, got 0");
    }
}
