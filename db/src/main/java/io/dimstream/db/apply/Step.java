package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One step of a {@link BatchApplier} batch: what every source of changes (the streaming sink, a
 * replay job, {@code load}) turns its input into. A batch's steps run in order, in one transaction.
 */
public sealed interface Step {

    /** Events not validated yet: the writer validates them ({@code load}, replays, the admin's actions). */
    record Events(List<Event> events) implements Step {
        public Events {
            events = List.copyOf(events);
        }
    }

    /**
     * Events validated and hashed already for the shape the batch is applied with (the sink's
     * typed change records, validated once by the topology).
     */
    record TypedEvents(List<TypedEvent> events) implements Step {
        public TypedEvents {
            events = List.copyOf(events);
        }
    }

    /**
     * Deletes what is live at an instant: for each instant {@code when} gives (read in the batch's
     * transaction), every key live there with no remembered event at exactly that instant, among the
     * keys {@code keys} accepts, gets a delete at that instant through the writer, with arrival order
     * {@code seq} and lineage {@code lineage}. What a complete snapshot slice does to the keys it did not
     * carry, and a source table's truncate ({@code on-truncate: delete-all}) to every key.
     *
     * @param what names the step in logs and errors ("slice 2025-08-01T00:00:00Z", "truncate ...")
     */
    record DeleteLiveAt(LiveAt when, long seq, Source lineage, KeyFilter keys, String what) implements Step {
        public DeleteLiveAt {
            Objects.requireNonNull(when, "when");
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(what, "what");
        }
    }

    /** The instants a {@link DeleteLiveAt} judges, read in the batch's transaction (a slice's completion is recorded there). */
    @FunctionalInterface
    interface LiveAt {
        List<Instant> instants(Connection c) throws SQLException;

        /** One instant known beforehand (a truncate's time). */
        static LiveAt at(Instant t) {
            Objects.requireNonNull(t, "t");
            return c -> List.of(t);
        }
    }

    /** Which keys (typed values, in key order) a {@link DeleteLiveAt} may delete. */
    @FunctionalInterface
    interface KeyFilter {
        /** Every key of the table. */
        KeyFilter ALL = (shape, key) -> true;

        boolean accepts(EntitySpec shape, List<Object> key);
    }
}
