package io.dimstream.app.load;

import io.dimstream.db.apply.Batch;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.apply.Outcome;
import io.dimstream.db.apply.Position;
import io.dimstream.db.apply.Prepared;
import io.dimstream.db.apply.Step;
import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * Applies one complete snapshot slice of a {@code mode: snapshot} entity without Kafka
 * ({@code dimstream load --slice-at}), with the semantics a slice published by
 * {@code publish-snapshot} gets from the sink ({@link io.dimstream.db.snapshot}):
 * <ol>
 *   <li>every row is an upsert at the slice's instant {@code t}, applied in batches by
 *       {@link EventFileLoader} (bad rows refused with their row number, the rest lands);</li>
 *   <li>then, in one transaction, the slice is recorded complete for every key
 *       ({@link SnapshotSlices#completeLoaded}) and it and every complete slice after it are judged:
 *       each key live at such an instant {@code t'} with no remembered event there gets a delete at
 *       {@code t'} ({@link Step.DeleteLiveAt}, the step the sink and replays use too). So a slice
 *       loaded after newer ones re-judges them, and the result equals loading the slices in time
 *       order.</li>
 * </ol>
 * If the rows fail part-way, nothing is judged (like a slice whose end-of-slice marker never
 * came): loading the slice again completes it. Loading a slice again changes nothing: its rows
 * match their remembered twins and its absent keys have their deletes remembered.
 *
 * <p>Differences from the sink, all deliberate: every key is judged at once (a load knows no
 * changes-topic partitions; the slice is recorded under {@link SnapshotSlices#LOADED}, which the
 * sink's own judgements include); the deletes' arrival order is {@link ArrivalSeq#LOADED_ABSENCE},
 * so a row of that key at that instant arriving later (a corrected slice loaded again, a feed's
 * slice still being published) wins over them; their lineage is the input's name (as the rows'), row 0.
 */
public final class SliceLoader {

    private final DataSource ds;
    private final EntitySpec entity;
    private final EventFileLoader rows;
    private final BatchApplier applier;

    /** A slice's rows loaded as {@link EventFileLoader} loads them, each row's fields as {@code fields} says. */
    public SliceLoader(DataSource ds, EntitySpec entity, int batchSize, int parallelism, LoadFields fields) {
        this.ds = ds;
        this.entity = entity;
        this.rows = new EventFileLoader(ds, entity, batchSize, parallelism, Runtime.getRuntime().maxMemory() / 6, fields, false);
        this.applier = new BatchApplier(ds, new Scd2Writer(ds), EntityShapes.of(ds, entity));
    }

    /**
     * Applies {@code source} (whose rows must all be upserts at {@code slice}, as
     * {@link TabularSource.Mapping#slice} makes them) as the complete slice at {@code slice}.
     * The report's result includes the deletes of every slice judged; its batches the judging
     * transaction.
     */
    public LoadReport load(RowSource source, String name, Instant slice) throws LoadException {
        LoadReport applied = rows.load(source, name);
        try {
            ApplyResult judged = judge(name, slice);
            return new LoadReport(applied.result().plus(judged), applied.parseRejections(), applied.lines(), applied.batches() + 1);
        } catch (SQLException e) {
            throw new LoadException("the rows of slice " + slice + " landed, but judging the keys absent from it failed: " + e.getMessage()
                    + " (SQL state " + e.getSQLState() + "); load the slice again to complete it", applied, e);
        }
    }

    /**
     * Records the slice complete for every key and judges it and every complete slice after it, in
     * one transaction of the one apply pipeline holding the table's writer lock.
     */
    private ApplyResult judge(String name, Instant slice) throws SQLException {
        Step.DeleteLiveAt absent = new Step.DeleteLiveAt(c -> SnapshotSlices.completeLoaded(c, entity.name(), slice),
                ArrivalSeq.LOADED_ABSENCE, new Source(name, null, 0L), Step.KeyFilter.ALL, "slice " + slice + " of " + name);
        Prepared steps = Prepared.of(List.of(absent));
        Outcome<Prepared, Void> out = applier.apply(Batch.of(entity.name(), WriterLock.Mode.EXCLUSIVE, shape -> steps,
                "the absences of slice " + slice), Position.NONE);
        return ((Outcome.Done<Prepared, Void>) out).applied().result();
    }
}
