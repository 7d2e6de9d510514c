package io.dimstream.app.decode;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import java.time.Instant;
import io.dimstream.db.entity.ColumnType;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an {@link EventDecoder} made of one record: exactly one of an event, a skip, a truncate of
 * the source table, or a failure.
 */
public sealed interface Decoded {

    /**
     * A decoded event, not yet validated against its entity.
     *
     * @param sourceTypes the column types the record's own schema gives its fields (a Debezium
     *                    record with its schema), empty when it has none: what a field new to the
     *                    entity becomes ({@link ColumnInference})
     * @param ignored     the fields of the record that are no column of the entity and were dropped
     *                    from {@code event} ({@code undeclared-columns: ignore}, the default, with
     *                    {@code new-columns: ignore}): the topology counts and logs them
     */
    record Ok(Event event, Map<String, ColumnType> sourceTypes, Set<String> ignored) implements Decoded {
        public Ok {
            Objects.requireNonNull(event, "event");
            sourceTypes = Map.copyOf(sourceTypes);
            ignored = Set.copyOf(ignored);
        }

        public Ok(Event event, Map<String, ColumnType> sourceTypes) {
            this(event, sourceTypes, Set.of());
        }

        public Ok(Event event) {
            this(event, Map.of());
        }

        /** Another event of the same record: its schema's types and its ignored fields still apply. */
        public Ok with(Event other) {
            return new Ok(other, sourceTypes, ignored);
        }

        /** {@code other}, from which these fields of the record were dropped (and those dropped before). */
        public Ok withIgnored(Event other, Set<String> fields) {
            Set<String> all = new TreeSet<>(ignored);
            all.addAll(fields);
            return new Ok(other, sourceTypes, all);
        }
    }

    /**
     * A record that carries no change and is dropped on purpose (e.g. the tombstone after a Debezium
     * delete), counted under {@code kind}: {@value #SKIPPED}, or {@value #TRUNCATE} (a Debezium
     * truncate with {@code on-truncate: ignore}) and {@value #MESSAGE} (a Debezium message event),
     * which have counters of their own.
     */
    record Skipped(String reason, String kind) implements Decoded {

        public static final String SKIPPED = "skipped";
        public static final String TRUNCATE = "truncate";
        public static final String MESSAGE = "message";

        public Skipped {
            Objects.requireNonNull(kind, "kind");
        }

        public Skipped(String reason) {
            this(reason, SKIPPED);
        }
    }

    /**
     * A truncate of the source table (Debezium {@code op: t}) with {@code on-truncate: delete-all}:
     * every key live at {@code time} is to be deleted at {@code time}. It has no key and no row;
     * {@code source} is the record's lineage.
     */
    record Truncated(Instant time, Source source) implements Decoded {
        public Truncated {
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(source, "source");
        }
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

    static Decoded skip(String reason, String kind) {
        return new Skipped(reason, kind);
    }

    static Decoded truncated(Instant time, Source source) {
        return new Truncated(time, source);
    }

    static Decoded error(String reason) {
        return new Failed(reason);
    }
}
