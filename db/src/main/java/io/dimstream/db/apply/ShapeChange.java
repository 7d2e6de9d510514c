package io.dimstream.db.apply;

import io.dimstream.db.schema.EvolvedColumns;
import java.util.List;

/**
 * Columns a batch needs that the entity does not have yet ({@code new-columns}), and widenings of
 * columns it has: made in the batch's transaction before anything is written
 * ({@link io.dimstream.db.schema.EntityShapes#evolve}).
 */
public record ShapeChange(List<EvolvedColumns.NewColumn> add, List<EvolvedColumns.Widening> widen) {

    public static final ShapeChange NONE = new ShapeChange(List.of(), List.of());

    public ShapeChange {
        add = List.copyOf(add);
        widen = List.copyOf(widen);
    }

    public boolean isEmpty() {
        return add.isEmpty() && widen.isEmpty();
    }
}
