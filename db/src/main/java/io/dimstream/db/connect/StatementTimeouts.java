package io.dimstream.db.connect;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose every connection runs with PostgreSQL's {@code statement_timeout}
 * set: a statement running (or waiting for a lock) longer is cancelled with SQL state
 * {@value #QUERY_CANCELED}. For the admin UI ({@code admin.statement-timeout}), so no request of a
 * viewer can keep PostgreSQL busy for long.
 *
 * <p><b>Per borrowed connection, not per pool or per transaction.</b> The timeout is set at
 * session level when a connection is taken ({@code set_config('statement_timeout', ms, false)},
 * in autocommit mode so it holds for the whole borrow) and {@code RESET} when it is given back.
 * Not per pool, because the admin is handed whatever {@code DataSource} its launcher has, and
 * {@code dimstream demo} shares one with the pipeline, whose writer must not inherit a viewer's
 * timeout; not per transaction ({@code SET LOCAL}), because most of the admin's queries run in
 * autocommit and would each need a transaction of their own. The cost is two short round trips per
 * borrow, nothing next to a page.
 */
public final class StatementTimeouts {

    /** PostgreSQL's SQL state for a statement cancelled by statement_timeout (or by a user's cancel). */
    public static final String QUERY_CANCELED = "57014";

    private StatementTimeouts() {
    }

    /** {@code ds}, each connection limited to {@code timeout} per statement (at least 1 ms). */
    public static DataSource wrap(DataSource ds, Duration timeout) {
        Objects.requireNonNull(ds, "ds");
        long ms = timeout.toMillis();
        if (ms < 1 || ms > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("statement timeout must be between 1 ms and " + Integer.MAX_VALUE + " ms, got " + timeout);
        }
        return new Limited(ds, ms);
    }

    /** Whether {@code e} (or a cause) is PostgreSQL cancelling a statement ({@value #QUERY_CANCELED}). */
    public static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s && QUERY_CANCELED.equals(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private static final class Limited extends ForwardingDataSource {
        private final long ms;

        Limited(DataSource ds, long ms) {
            super(ds);
            this.ms = ms;
        }

        @Override
        protected Connection wrap(Connection c) throws SQLException {
            try {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                }
                try (PreparedStatement s = c.prepareStatement("SELECT set_config('statement_timeout', ?, false)")) {
                    s.setString(1, Long.toString(ms));
                    s.execute();
                }
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    new Handler(c));
        }
    }

    /** Passes everything to the connection; {@code close} first gives the session its default timeout back. */
    private static final class Handler implements InvocationHandler {
        private final Connection c;
        private boolean closed;

        Handler(Connection c) {
            this.c = c;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            if (m.getName().equals("close") && m.getParameterCount() == 0) {
                close();
                return null;
            }
            if (m.getName().equals("isClosed") && m.getParameterCount() == 0 && closed) {
                return true;
            }
            try {
                return m.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private void close() throws SQLException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (!c.isClosed()) {
                    // leave any open transaction first: a RESET inside it would be rolled back with it
                    // when the pool takes the connection back, and the next borrower (the pipeline's
                    // writer, in the demo) would inherit the timeout
                    if (!c.getAutoCommit()) {
                        c.rollback();
                        c.setAutoCommit(true);
                    }
                    try (Statement s = c.createStatement()) {
                        s.execute("RESET statement_timeout");
                    }
                }
            } finally {
                c.close();
            }
        }
    }
}
