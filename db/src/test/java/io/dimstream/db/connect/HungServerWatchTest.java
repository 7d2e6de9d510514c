package io.dimstream.db.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

/**
 * {@link HungServerWatch} on the real PostgreSQL behind a proxy that can freeze (a server whose
 * processes stopped: sockets open, nothing answered), with short bounds: a long statement of a
 * server that answers is left alone; a statement in flight on the frozen one ends at once with a
 * connection failure instead of waiting for the session's socket timeout (300 s; here the pool's
 * default, forever).
 */
class HungServerWatchTest {

    private FreezableProxy proxy;
    private HikariDataSource pool;
    private HungServerWatch watch;

    @BeforeEach
    void start() throws Exception {
        Properties real = Driver.parseURL(TestPostgres.jdbcUrl(), null);
        proxy = new FreezableProxy(real.getProperty("PGHOST"), Integer.parseInt(real.getProperty("PGPORT")));
        String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + real.getProperty("PGDBNAME") + "?user=" + real.getProperty("user")
                + "&password=" + real.getProperty("password");
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setMaximumPoolSize(2);
        pool = new HikariDataSource(cfg);
        watch = new HungServerWatch(pool, url, null, null, Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofSeconds(1));
    }

    @AfterEach
    void close() throws Exception {
        watch.close();
        proxy.close();
        pool.close();
    }

    private static List<Object> row(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return List.of(rs.getString(1), rs.getString(2));
        }
    }

    @Test
    void aLongStatementOfAServerThatAnswersIsNeverCut() throws SQLException {
        try (Connection c = watch.getConnection()) {
            // four times the watch's bound, probed about six times meanwhile: the server answers each probe
            assertThat(row(c, "SELECT pg_sleep(4)::text, 'done'")).isEqualTo(List.of("", "done"));
        }
    }

    @Test
    void aStatementInFlightOnAFrozenServerEndsWithAConnectionFailureAtOnce() throws Exception {
        Connection c = watch.getConnection();
        assertThat(row(c, "SELECT 'before', 'freeze'")).isEqualTo(List.of("before", "freeze"));
        proxy.freeze();
        long start = System.nanoTime();
        CompletableFuture<List<Object>> inFlight = CompletableFuture.supplyAsync(() -> {
            try {
                return row(c, "SELECT 'after', 'freeze'");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            inFlight.get(15, TimeUnit.SECONDS);
            throw new AssertionError("the statement on the frozen server returned");
        } catch (ExecutionException e) {
            SQLException cause = (SQLException) e.getCause().getCause();
            assertThat(List.of(cause.getSQLState(), cause.getMessage()))
                    .isEqualTo(List.of("08006", "An I/O error occurred while sending to the backend."));
        }
        // after the bound (1 s), a probe round (0.5 s) and a probe's timeout (1 s), well before any socket timeout
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }
}
