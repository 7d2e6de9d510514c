package io.dimstream.db.apply;

import java.util.Objects;

/**
 * A batch's end: applied and committed, or stopped by its {@link Position} before anything of it was
 * kept.
 */
public sealed interface Outcome<P extends Prepared, S> {

    /** Committed: the rows, the rejects and the position, together. */
    record Done<P extends Prepared, S>(Applied<P> applied) implements Outcome<P, S> {
        public Done {
            Objects.requireNonNull(applied, "applied");
        }
    }

    /** Not applied: the position said why ({@link Position#lock} or {@link Position#advance}). */
    record Stopped<P extends Prepared, S>(S why) implements Outcome<P, S> {
        public Stopped {
            Objects.requireNonNull(why, "why");
        }
    }
}
