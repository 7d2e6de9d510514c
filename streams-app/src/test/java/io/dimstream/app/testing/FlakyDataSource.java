package io.dimstream.app.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import io.dimstream.db.connect.ForwardingDataSource;
import javax.sql.DataSource;

/**
 * A DataSource that plays PostgreSQL being down: the next N {@code getConnection} calls fail as a
 * refused connection does (SQL state 08001), and the next M {@code commit}s fail as a connection
 * lost at commit does (08006, nothing committed), or every connection after the next N is refused.
 * Everything else goes to the real one.
 */
public final class FlakyDataSource extends ForwardingDataSource {

    private final AtomicInteger failConnects = new AtomicInteger();
    private final AtomicInteger failCommits = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger allowed = new AtomicInteger(-1);
    private volatile Error die;

    public FlakyDataSource(DataSource real) {
        super(real);
    }

    public void failNextConnections(int n) {
        failConnects.set(n);
    }

    /** The next {@code n} {@code getConnection} calls succeed; every one after them is refused (08001). */
    public void refuseConnectionsAfter(int n) {
        allowed.set(n);
    }

    /** The next {@code getConnection} throws this Error, as a JVM out of memory would, and every one after it. */
    public void dieWith(Error e) {
        die = e;
    }

    public void failNextCommits(int n) {
        failCommits.set(n);
    }

    /** Connection attempts and commits still to fail. */
    public int pendingFailures() {
        return failConnects.get() + failCommits.get();
    }

    /** How many connection attempts and commits were refused so far. */
    public int refused() {
        return refused.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (die != null) {
            throw die;
        }
        if (failConnects.getAndUpdate(n -> Math.max(0, n - 1)) > 0 || allowed.getAndUpdate(n -> n > 0 ? n - 1 : n) == 0) {
            refused.incrementAndGet();
            throw new SQLNonTransientConnectionException("Connection to 127.0.0.1:5432 refused (test)", "08001");
        }
        return super.getConnection();
    }

    @Override
    protected Connection wrap(Connection c) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("commit") && failCommits.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        refused.incrementAndGet();
                        throw new SQLException("An I/O error occurred while sending to the backend (test)", "08006");
                    }
                    try {
                        return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
