package io.dimstream.db.apply;

import io.dimstream.db.event.Rejection;
import io.dimstream.db.sink.SinkReject;
import java.util.List;

/**
 * A source's input made into {@link Step}s for the shape the batch is applied with, with the records
 * it refused itself (undecodable, invalid), and the way back from an event the writer refused to the
 * records it came from. Made by the source inside the batch's transaction, after the shape was
 * evolved; a source's own implementation carries whatever else it wants back in
 * {@link Applied#prepared()} (the sink: the topology's classes of its records).
 */
public interface Prepared {

    /** The steps, in arrival order. */
    List<Step> steps();

    /** Records the source refused before the writer saw them, kept in the rejects with the batch. */
    List<SinkReject> rejects();

    /**
     * The records of an event the writer (PostgreSQL) refused, to keep in the rejects; a source
     * without records (a file) returns none and reads {@link Applied#refused()} instead.
     */
    List<SinkReject> refused(Rejection rejection);

    /**
     * Steps of a source without records of its own (a file's events, a slice's absences): nothing
     * refused on the way, and an event the writer refuses comes back in {@link Applied#refused()}.
     */
    static Prepared of(List<Step> steps) {
        List<Step> copy = List.copyOf(steps);
        return new Prepared() {
            @Override
            public List<Step> steps() {
                return copy;
            }

            @Override
            public List<SinkReject> rejects() {
                return List.of();
            }

            @Override
            public List<SinkReject> refused(Rejection rejection) {
                return List.of();
            }
        };
    }
}
