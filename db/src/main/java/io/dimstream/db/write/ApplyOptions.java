package io.dimstream.db.write;

/**
 * How {@link Scd2Writer} applies a batch inside the caller's transaction: one record instead of an
 * overload per choice ({@link Scd2Writer#apply(java.sql.Connection, io.dimstream.db.entity.EntitySpec,
 * java.util.List, ApplyOptions)} for events still to validate,
 * {@link Scd2Writer#applyTyped} for events validated already).
 *
 * @param isolate apply the events under savepoints, isolating those PostgreSQL refuses for a data
 *                reason and returning them as rejections while the rest lands (see
 *                {@link Scd2Writer}'s comment on isolating); for a batch that already failed without
 *                it, since a savepoint per writer call makes every batch a subtransaction
 */
public record ApplyOptions(boolean isolate) {

    /** One set-based apply; a value PostgreSQL refuses fails the whole call. */
    public static final ApplyOptions DEFAULT = new ApplyOptions(false);

    /** Refused events isolated under savepoints and rejected, the rest applied. */
    public static final ApplyOptions ISOLATING = new ApplyOptions(true);

    public static Builder builder() {
        return new Builder();
    }

    /** Options built by name: {@code ApplyOptions.builder().isolate(true).build()}. */
    public static final class Builder {
        private boolean isolate;

        public Builder isolate(boolean v) {
            this.isolate = v;
            return this;
        }

        public ApplyOptions build() {
            return new ApplyOptions(isolate);
        }
    }
}
