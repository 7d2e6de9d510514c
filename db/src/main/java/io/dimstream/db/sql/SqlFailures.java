package io.dimstream.db.sql;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Optional;

/**
 * What a failed PostgreSQL call means for whoever retries it: the one definition the sink, the
 * replay worker and the admin jobs share.
 *
 * <ul>
 *   <li>{@link Kind#TRANSIENT}: the same statement can succeed later without anyone changing
 *       anything: the connection was lost or refused (SQLSTATE class 08, a pool timeout, an I/O
 *       error), the server is shutting down or restarting (57P01-57P03, 57P05), it is out of
 *       resources (class 53: disk full, out of memory, too many connections; 58030 I/O error),
 *       the transaction lost a race (40001 serialization failure, 40P01 deadlock, 40003
 *       completion unknown), a lock or statement timed out (55P03, 57014). Retried with backoff,
 *       forever: nothing is skipped.</li>
 *   <li>{@link Kind#DATA}: PostgreSQL refused a value (class 22: data exception, e.g. 22021
 *       invalid encoding, 22008 datetime out of range, 22003 numeric out of range; class 23:
 *       integrity constraint violation, e.g. a CHECK constraint or NOT NULL of a table altered by
 *       hand; class 54: program limit exceeded, e.g. 54000 an index entry too large). The same
 *       statement on the same values fails again: retrying cannot help, isolating the records
 *       that carry the values can.</li>
 *   <li>{@link Kind#OTHER}: anything else (a table or column missing: class 42; a permission;
 *       an internal error; a bug). Neither a retry nor a record is the cure: an operator is.
 *       Callers retry slowly and report it, so that the fix takes effect without a restart.</li>
 * </ul>
 * The cause chain is searched, so a failure wrapped by a pool or an executor is classified by
 * what PostgreSQL said.
 */
public final class SqlFailures {

    /** How to treat a failure; see the class comment. */
    public enum Kind { TRANSIENT, DATA, OTHER }

    private SqlFailures() {
    }

    public static Kind classify(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // the connection's own exception types first: a pool's timeout carries the SQL state of
            // the last refusal it met (55000 "database is not currently accepting connections")
            if (t instanceof java.sql.SQLTransientConnectionException || t instanceof java.sql.SQLNonTransientConnectionException) {
                return Kind.TRANSIENT;
            }
            Optional<Kind> k = byState(t);
            if (k.isPresent()) {
                return k.get();
            }
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException
                    || t instanceof java.sql.SQLNonTransientConnectionException
                    || t instanceof ConnectException || t instanceof SocketTimeoutException
                    || t instanceof java.io.EOFException) {
                return Kind.TRANSIENT;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Kind.OTHER;
    }

    public static boolean isTransient(Throwable e) {
        return classify(e) == Kind.TRANSIENT;
    }

    /** PostgreSQL gave up waiting for a lock ({@code lock_timeout}, SQL state 55P03): another transaction holds it. */
    public static boolean isLockTimeout(Throwable e) {
        return sqlState(e).filter("55P03"::equals).isPresent();
    }

    public static boolean isData(Throwable e) {
        return classify(e) == Kind.DATA;
    }

    /** The first SQLSTATE in the cause chain, if any. */
    public static Optional<String> sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException se && se.getSQLState() != null) {
                return Optional.of(se.getSQLState());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    private static Optional<Kind> byState(Throwable t) {
        if (!(t instanceof SQLException se) || se.getSQLState() == null || se.getSQLState().length() != 5) {
            return Optional.empty();
        }
        String s = se.getSQLState();
        String cls = s.substring(0, 2);
        switch (cls) {
            case "08":
            case "53":
                return Optional.of(Kind.TRANSIENT);
            case "22":
            case "23":
            case "54":
                return Optional.of(Kind.DATA);
            default:
                break;
        }
        return switch (s) {
            case "40001", "40P01", "40003", "57P01", "57P02", "57P03", "57P05", "55P03", "57014", "58030" -> Optional.of(Kind.TRANSIENT);
            default -> Optional.of(Kind.OTHER);
        };
    }
}
