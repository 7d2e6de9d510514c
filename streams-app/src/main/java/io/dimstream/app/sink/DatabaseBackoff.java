package io.dimstream.app.sink;

import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Exponential backoff while PostgreSQL fails (initial, doubled per failure, capped), logging
 * once per change of state: the first failure, then the recovery with the number of retries.
 * A lost or refused connection is "PostgreSQL unavailable" (WARN); any other failure is retried
 * the same way, since skipping the batch would lose changes, but logged as an ERROR with its trace.
 * Not thread-safe: the sink's thread owns it.
 */
final class DatabaseBackoff {

    private final Duration initial;
    private final Duration max;
    private final Logger log;
    private int failures;
    private long retryAtNanos;

    DatabaseBackoff(Duration initial, Duration max, Logger log) {
        this.initial = initial;
        this.max = max;
        this.log = log;
    }

    /** Notes a failure; returns how long to wait before the next attempt. */
    Duration failed(String what, Exception e) {
        if (failures == 0) {
            String state = e instanceof SQLException se && se.getSQLState() != null ? " (SQL state " + se.getSQLState() + ")" : "";
            if (unavailable(e)) {
                log.warn("PostgreSQL unavailable: {} failed: {}{}, retrying", what, e.getMessage(), state);
                log.debug("the first failure in full", e);
            } else {
                // not a lost connection: retried all the same (skipping would lose changes), loudly
                log.error("{} failed: {}{}; retrying with backoff: nothing is skipped, the partition waits until this is fixed",
                        what, e.getMessage(), state, e);
            }
        }
        failures++;
        long ms = initial.toMillis() << Math.min(failures - 1, 20);
        Duration wait = Duration.ofMillis(Math.min(ms, max.toMillis()));
        retryAtNanos = System.nanoTime() + wait.toNanos();
        return wait;
    }

    /** Notes a success; logs the recovery when there were failures before. */
    void succeeded() {
        if (failures > 0) {
            // at the level of the failure it ends, so whoever saw the one sees the other
            log.warn("PostgreSQL back after {} retries", failures);
            failures = 0;
        }
    }

    boolean failing() {
        return failures > 0;
    }

    /** A lost or refused connection, or a server shutting down or out of resources. */
    static boolean unavailable(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLTransientConnectionException || t instanceof java.sql.SQLNonTransientConnectionException
                    || t instanceof java.sql.SQLRecoverableException || t instanceof java.net.ConnectException) {
                return true;
            }
            if (t instanceof SQLException se && se.getSQLState() != null) {
                String s = se.getSQLState();
                if (s.startsWith("08") || s.startsWith("57P") || s.startsWith("53")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Time left before the next attempt; zero when not failing or when it is due. */
    Duration remaining() {
        if (failures == 0) {
            return Duration.ZERO;
        }
        long left = retryAtNanos - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }
}
