package io.dimstream.db.connect;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.Driver;

/**
 * How the service's pool makes a PostgreSQL connection: pgjdbc with timeouts, because pgjdbc waits
 * forever by default and a hung (not dead) server, one whose processes stopped while its kernel
 * still accepts TCP, then holds the pool's connection adder and every thread in a statement (DESIGN
 * section 6). Each bound applies unless the URL sets the same pgjdbc parameter itself:
 *
 * <ul>
 *   <li>{@code connectTimeout} {@value #CONNECT_SECONDS} s: the TCP connect to one host;</li>
 *   <li>a login read bound of {@value #LOGIN_READ_SECONDS} s per host: pgjdbc applies its
 *       {@code socketTimeout} to the startup and authentication exchange too, so the connection is
 *       made with this short one; a host that accepts the TCP connection and never answers the
 *       startup message is given up after it and a multi-host URL ({@code targetServerType=primary})
 *       goes on to the next host, which is how a promoted standby is found;</li>
 *   <li>{@code loginTimeout} {@value #LOGIN_SECONDS} s: the whole attempt over every host of the
 *       URL, longer than one hung host plus a live one (pgjdbc gives the attempt up as a whole at this
 *       bound, so it must not be shorter than the per-host bounds);</li>
 *   <li>then, for the session, {@code socketTimeout} {@value #SESSION_SECONDS} s
 *       ({@link Connection#setNetworkTimeout}): the longest any one round trip may take, that is the
 *       longest statement dimstream runs (a batch of the sink or of a replay, an index build at start,
 *       a shadow swap, an integrity check over a large table) must finish within it; a longer one is
 *       cut as if the server were gone. The pool's validation sets its own shorter bound while it
 *       checks a connection and restores this one.</li>
 * </ul>
 * And {@code tcpKeepAlive=true}, so a host that vanished (not hung) is noticed by the kernel's
 * keepalive on idle connections.
 */
final class PgConnector implements DataSource {

    static final int CONNECT_SECONDS = 10;
    static final int LOGIN_READ_SECONDS = 10;
    static final int LOGIN_SECONDS = 30;
    static final int SESSION_SECONDS = 300;

    private final Driver driver = new Driver();
    private final String url;
    private final Properties props;
    private final int sessionMillis;
    private final boolean urlSetsSocketTimeout;
    private volatile int loginTimeout;

    /**
     * @param user     null when the URL carries it
     * @param password null when the URL carries it
     * @param session  the session's socket timeout (the URL's {@code socketTimeout} wins)
     */
    PgConnector(String url, String user, String password, Duration session) {
        Properties fromUrl = Driver.parseURL(url, null);
        if (fromUrl == null) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)");
        }
        this.url = url;
        this.urlSetsSocketTimeout = fromUrl.containsKey("socketTimeout");
        this.sessionMillis = Math.toIntExact(session.toMillis());
        Properties p = new Properties();
        // the URL's own parameters win over these: pgjdbc reads the URL after the properties
        p.setProperty("connectTimeout", Integer.toString(CONNECT_SECONDS));
        p.setProperty("socketTimeout", Integer.toString(LOGIN_READ_SECONDS));
        p.setProperty("loginTimeout", Integer.toString(LOGIN_SECONDS));
        p.setProperty("tcpKeepAlive", "true");
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        this.props = p;
    }

    /** The properties a connection is made with before the URL's own (for tests and the log). */
    Properties properties() {
        Properties copy = new Properties();
        copy.putAll(props);
        copy.remove("password");
        return copy;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = driver.connect(url, props);
        if (c == null) {
            throw new SQLException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)", "08001");
        }
        if (!urlSetsSocketTimeout) {
            try {
                c.setNetworkTimeout(Runnable::run, sessionMillis);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        }
        return c;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the user is set when the pool is made");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // pgjdbc logs through java.util.logging
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("pgjdbc logs through its own loggers");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper of " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
