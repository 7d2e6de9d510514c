package io.dimstream.app.topology;

import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import java.util.Optional;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Which failures are transient by nature: they say nothing about the record being processed, and
 * the same work succeeds once they pass. Such a failure must never send a record to the DLQ: the
 * processing exception handler answers FAIL for it, and the stream thread supervisor replaces the
 * thread with backoff, so the record is read again.
 *
 * <ul>
 *   <li>{@link SchemaRegistryUnavailableException}: the registry is unreachable, timing out, answering
 *       5xx, or refusing the credentials (after the deserializer's own retries);</li>
 *   <li>Kafka's {@link RetriableException}s (timeouts, a leader moving, not enough replicas), which
 *       reach a stream thread when an outage outlasts {@code task.timeout.ms}.</li>
 * </ul>
 */
public final class TransientFailures {

    private TransientFailures() {
    }

    public static boolean isTransient(Throwable failure) {
        return transientCause(failure).isPresent();
    }

    /** The first transient exception in the cause chain of {@code failure}, if any. */
    public static Optional<Throwable> transientCause(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof SchemaRegistryUnavailableException || t instanceof RetriableException) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
