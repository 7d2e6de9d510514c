package io.dimstream.db.connect;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that passes everything to another and lets a subclass wrap the connections it
 * hands out ({@link #wrap}): the one home of the delegation that {@link StatementTimeouts} and
 * {@link HungServerWatch} share (and the tests' fault-injecting ones). Hand-written because the JDK has no forwarding DataSource and
 * HikariCP's is its pool, not a wrapper around one.
 */
public abstract class ForwardingDataSource implements DataSource {

    private final DataSource target;

    protected ForwardingDataSource(DataSource target) {
        this.target = Objects.requireNonNull(target, "target");
    }

    /** What a connection of the target becomes before it is handed out. */
    protected abstract Connection wrap(Connection c) throws SQLException;

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(target.getConnection(username, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }
}
