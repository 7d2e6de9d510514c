package io.dimstream.db.sql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * One transaction on a connection of its own: auto-commit off, the body, commit; any failure rolls
 * back (a failed rollback is added to the failure as suppressed) and is rethrown unchanged. The
 * body may end the transaction itself (commit or roll back, e.g. after a failed fence); the
 * commit that follows is then a no-op.
 */
public final class Transactions {

    /** A unit of work on a connection inside a transaction. */
    @FunctionalInterface
    public interface Body<T> {
        T run(Connection c) throws SQLException;
    }

    private Transactions() {
    }

    public static <T> T inTransaction(DataSource ds, Body<T> body) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
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
    }
}
