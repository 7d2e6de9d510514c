package io.dimstream.db.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The one transaction block: auto-commit off, the body, commit; any failure rolls back (a failed
 * rollback is added to the failure as suppressed) and is rethrown unchanged. The body may end the
 * transaction itself (commit or roll back, e.g. after a failed fence or a lost lease); the commit
 * that follows is then a no-op.
 *
 * <p>{@link #inTransaction(DataSource, Body)} and {@link #run(DataSource, VoidBody)} take a
 * connection of their own and close it; {@link #inTransaction(Connection, Body)} works on a
 * connection the caller already holds and gives it back in the auto-commit mode it had.
 */
public final class Transactions {

    /** A unit of work on a connection inside a transaction. */
    @FunctionalInterface
    public interface Body<T> {
        T run(Connection c) throws SQLException;
    }

    /** A unit of work with no result. */
    @FunctionalInterface
    public interface VoidBody {
        void run(Connection c) throws SQLException;
    }

    private Transactions() {
    }

    /** {@code body} in one transaction on a connection of its own; its result once committed. */
    public static <T> T inTransaction(DataSource ds, Body<T> body) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            return commitOrRollBack(c, body);
        }
    }

    /** {@code body} in one transaction on a connection of its own. */
    public static void run(DataSource ds, VoidBody body) throws SQLException {
        inTransaction(ds, c -> {
            body.run(c);
            return null;
        });
    }

    /**
     * {@code body} in one transaction on {@code c}, which the caller holds (and closes); {@code c}
     * is left in the auto-commit mode it had (a failure to restore it, after a failed body, is
     * added to that failure as suppressed).
     */
    public static <T> T inTransaction(Connection c, Body<T> body) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        T result;
        try {
            result = commitOrRollBack(c, body);
        } catch (SQLException | RuntimeException | Error e) {
            if (autoCommit) {
                try {
                    c.setAutoCommit(true);
                } catch (SQLException r) {
                    e.addSuppressed(r);
                }
            }
            throw e;
        }
        if (autoCommit) {
            c.setAutoCommit(true);
        }
        return result;
    }

    private static <T> T commitOrRollBack(Connection c, Body<T> body) throws SQLException {
        try {
            T result = body.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            try {
                c.rollback();
            } catch (SQLException r) {
                e.addSuppressed(r);
            }
            throw e;
        }
    }

    /**
     * For the rest of the caller's transaction, a wait for any lock (a table lock, a row lock, an
     * advisory lock) longer than {@code wait} fails with SQL state 55P03 ({@link SqlFailures#isLockTimeout})
     * instead of waiting on: PostgreSQL's {@code lock_timeout}, set local. Statements that run are not cut.
     */
    public static void limitLockWaits(Connection c, Duration wait) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
            s.setString(1, wait.toMillis() + "ms");
            s.execute();
        }
    }
}
