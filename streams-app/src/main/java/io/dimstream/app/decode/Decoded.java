package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import java.util.Objects;

/** What an {@link EventDecoder} made of one record: exactly one of an event, a skip, or a failure. */
public sealed interface Decoded {

    /** A decoded event, not yet validated against its entity. */
    record Ok(Event event) implements Decoded {
        public Ok {
            Objects.requireNonNull(event, "event");
        }
    }

    /** A record that carries no change and is dropped on purpose (e.g. the tombstone after a Debezium delete). */
    record Skipped(String reason) implements Decoded {
    }

    /**
     * A record that cannot be decoded; {@code reason} goes to the dead-letter topic's
     * {@code dimstream.error} header (and from there to PostgreSQL text), so it is made
     * {@link Rejection#printable printable}: a reason quoting a bad value carries no NUL.
     */
    record Failed(String reason) implements Decoded {
        public Failed {
            reason = Rejection.printable(reason);
        }
    }

    static Decoded ok(Event event) {
        return new Ok(event);
    }

    static Decoded skip(String reason) {
        return new Skipped(reason);
    }

    static Decoded error(String reason) {
        return new Failed(reason);
    }
}
