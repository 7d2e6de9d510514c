package io.dimstream.bench;

import io.dimstream.app.load.LoadFields;
import io.dimstream.app.load.ParallelLoad;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The writer as the harnesses time it: a batch through the one apply pipeline on {@code parallel}
 * connections ({@link ParallelLoad}, what {@code load} runs), with the harness's own
 * {@link Scd2Writer} (its {@code work_mem}).
 */
record BenchWriter(DataSource ds, Scd2Writer writer) {

    ApplyResult apply(EntitySpec spec, List<Event> batch, int parallel) throws SQLException {
        return new ParallelLoad(ds, new BatchApplier(ds, writer, EntityShapes.of(ds, spec)), spec.name(), parallel, LoadFields.NONE, false)
                .apply(batch, "a bench batch");
    }
}
