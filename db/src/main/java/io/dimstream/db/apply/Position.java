package io.dimstream.db.apply;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where a source stands in its input, kept in the batch's transaction: the sink's offsets (fenced),
 * a replay job's progress (under its lease), or nothing ({@code load}, {@link #NONE}).
 *
 * @param <S> why a batch was not applied (the sink: fenced off a partition; a replay: lease lost or cancelled)
 */
public interface Position<S> {

    /** No position: the batch is applied and committed, nothing else is written. */
    Position<Void> NONE = new Position<>() {
        @Override
        public Void lock(Connection c) {
            return null;
        }

        @Override
        public Void advance(Connection c, Applied<?> applied) {
            return null;
        }
    };

    /**
     * First in the transaction: locks the position's row and checks this writer still holds it.
     *
     * @return null to go on, else why the batch must not be applied (the transaction is then rolled
     *         back, or committed when {@link #commitsOnStop} says so)
     */
    S lock(Connection c) throws SQLException;

    /**
     * Last in the transaction: moves the position past the batch ({@code applied}).
     *
     * @return null when moved, else why not (the transaction is rolled back)
     */
    S advance(Connection c, Applied<?> applied) throws SQLException;

    /** Whether the transaction commits what {@link #lock} did when it stopped the batch (a replay's cancel); false: rolled back. */
    default boolean commitsOnStop(S stop) {
        return false;
    }

    /**
     * {@link #lock} at the start of a transaction, and when it stops the transaction: ends it, committing
     * or rolling back as {@link #commitsOnStop} says. Null to go on.
     */
    default S lockOrEnd(Connection c) throws SQLException {
        S stop = lock(c);
        if (stop != null) {
            if (commitsOnStop(stop)) {
                c.commit();
            } else {
                c.rollback();
            }
        }
        return stop;
    }

    /** Under which {@code consumer_group} refused records are kept in {@code dimstream.sink_rejects}; null: not kept there. */
    default String rejectsGroup() {
        return null;
    }
}
