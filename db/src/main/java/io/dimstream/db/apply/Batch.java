package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import java.sql.SQLException;
import java.util.Objects;

/**
 * What a source hands the {@link BatchApplier}: which entity, onto which table, the columns it needs
 * first, and how to make its {@link Step}s for the shape the batch is applied with.
 *
 * @param entity  the entity's name (its shape comes from {@link io.dimstream.db.schema.EntityShapes})
 * @param shadow  null for the entity's own table; else the other table of the entity it writes (a
 *                replay's shadow), which is made to hold the entity's shape first
 * @param change  columns to add and widen before anything is written ({@link ShapeChange#NONE}: none)
 * @param lock    how the transaction takes the table's {@link WriterLock}
 * @param prepare the source's steps for the shape, made inside the transaction
 * @param what    names the batch in logs ("3 records of customer-0")
 * @param horizonLifted the events are placed whatever their lateness (no lateness horizon; a prune
 *                point still holds): a repair rebuilding keys the live path judged already
 */
public record Batch<P extends Prepared>(String entity, EntitySpec shadow, ShapeChange change, WriterLock.Mode lock, Preparer<P> prepare,
                                        String what, boolean horizonLifted) {

    public Batch {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(prepare, "prepare");
        Objects.requireNonNull(what, "what");
    }

    /** A batch judged by the entity's lateness horizon. */
    public Batch(String entity, EntitySpec shadow, ShapeChange change, WriterLock.Mode lock, Preparer<P> prepare, String what) {
        this(entity, shadow, change, lock, prepare, what, false);
    }

    /** A batch onto the entity's own table, with no column changes. */
    public static <P extends Prepared> Batch<P> of(String entity, WriterLock.Mode lock, Preparer<P> prepare, String what) {
        return new Batch<>(entity, null, ShapeChange.NONE, lock, prepare, what);
    }

    /** Makes a source's steps for the shape the batch is applied with (its columns, and its table). */
    @FunctionalInterface
    public interface Preparer<P extends Prepared> {
        P prepare(EntitySpec shape) throws SQLException;
    }
}
