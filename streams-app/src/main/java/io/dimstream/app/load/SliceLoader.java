package io.dimstream.app.load;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *       {@code t'} through the same writer. So a slice loaded after newer ones re-judges them, and
 *       the result equals loading the slices in time order.</li>
 * </ol>
 * If the rows fail part-way, nothing is judged (like a slice whose end-of-slice marker never
 * came): loading the slice again completes it. Loading a slice again changes nothing: its rows
 * match their remembered twins and its absent keys have their deletes remembered.
 *
 * <p>Differences from the sink, all deliberate: every key is judged at once (a load knows no
 * changes-topic partitions; the slice is recorded under {@link SnapshotSlices#LOADED}, which the
 * sink's own judgements include); the deletes' arrival order is {@link ArrivalSeq#LOADED_ABSENCE},
 * so a row of that key at that instant arriving later (a corrected slice loaded again, a feed's
 * slice still being published) wins over them; their lineage is the input's name (as the rows'), row 0. The absent
 * keys of one judged slice are held in memory (keys only) before they are applied, as in the sink.
 */
public final class SliceLoader {

    private static final Logger LOG = LoggerFactory.getLogger(SliceLoader.class);

    private final DataSource ds;
    private final EntitySpec entity;
    private final EventFileLoader rows;
    private final Scd2Writer writer;

    public SliceLoader(DataSource ds, EntitySpec entity, int batchSize, int parallelism) {
        this.ds = ds;
        this.entity = entity;
        this.rows = new EventFileLoader(ds, entity, batchSize, parallelism);
        this.writer = new Scd2Writer(ds);
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

    private ApplyResult judge(String name, Instant slice) throws SQLException {
        Source lineage = new Source(name, null, 0L);
        return Transactions.inTransaction(ds, c -> judgeAbsences(c, writer, entity, SnapshotSlices.completeLoaded(c, entity.name(), slice),
                lineage));
    }

    /**
     * Judges each complete slice of {@code slices} (ascending) for every key of {@code entity}'s
     * table, in the caller's transaction: each key live at its instant {@code t} with no
     * remembered event at {@code t} gets a delete at {@code t} through {@code writer}, with the
     * arrival order {@link ArrivalSeq#LOADED_ABSENCE} (a row of that key at {@code t} arriving later
     * wins) and {@code lineage}. Each judgement sees the deletes of the one before. Only one
     * slice's absent keys are held in memory at a time. Shared with the replay of a snapshot feed
     * ({@code io.dimstream.app.replay.SnapshotReplay}).
     */
    public static ApplyResult judgeAbsences(java.sql.Connection c, Scd2Writer writer, EntitySpec entity, List<Instant> slices,
                                            Source lineage) throws SQLException {
        ApplyResult result = ApplyResult.empty();
        for (Instant t : slices) {
            List<Event> deletes = new ArrayList<>();
            SnapshotSlices.forEachLiveWithoutEventAt(c, entity, t, key -> {
                Map<String, Object> data = new LinkedHashMap<>();
                for (int i = 0; i < key.size(); i++) {
                    data.put(entity.key().get(i), key.get(i));
                }
                deletes.add(Event.delete(t, data, ArrivalSeq.LOADED_ABSENCE, lineage));
            });
            LOG.debug("slice {} of {} ({}): {} absent keys deleted", t, entity.name(), lineage, deletes.size());
            if (deletes.isEmpty()) {
                continue;
            }
            ApplyResult r = writer.apply(c, entity, deletes);
            if (!r.rejected().isEmpty()) {
                throw new IllegalStateException("the writer refused a delete made for slice " + t + " of " + entity.name() + ": "
                        + r.rejected().get(0).reason());
            }
            result = result.plus(r);
        }
        return result;
    }
}
