package io.dimstream.app.sink;

import io.dimstream.db.sql.SqlFailures;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Exponential backoff while PostgreSQL is unavailable (initial, doubled per failure, capped),
 * logging once per change of state: the first failure, then the recovery with the number of
 * retries. Meant for transient failures ({@link SqlFailures.Kind#TRANSIENT}); a failure of another
 * kind reaching it (reading the stored offsets, say) is retried the same way but logged as an
 * ERROR with its trace. Not thread-safe: the sink's thread owns it.
 */
final class DatabaseBackoff {

    private final Duration initial;
    private final Duration max;
    private final Logger log;
    private int failures;
    private long retryAtNanos;
    private String lastFailure = "";

    DatabaseBackoff(Duration initial, Duration max, Logger log) {
        this.initial = initial;
        this.max = max;
        this.log = log;
    }

    /** Notes a failure; returns how long to wait before the next attempt. */
    Duration failed(String what, Exception e) {
        String state = SqlFailures.sqlState(e).map(s -> " (SQL state " + s + ")").orElse("");
        lastFailure = what + " failed: " + e.getMessage() + state;
        if (failures == 0) {
            if (SqlFailures.isTransient(e)) {
                log.warn("PostgreSQL unavailable: {} failed: {}{}, retrying", what, e.getMessage(), state);
                log.debug("the first failure in full", e);
            } else {
                log.error("{} failed: {}{}; retrying with backoff", what, e.getMessage(), state, e);
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
            lastFailure = "";
        }
    }

    boolean failing() {
        return failures > 0;
    }

    /** The last failure while failing, one line. */
    String lastFailure() {
        return lastFailure;
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
