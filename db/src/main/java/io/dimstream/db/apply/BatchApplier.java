package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.sink.SinkRejects;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.sql.SqlFailures;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.write.ApplyOptions;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one apply pipeline: every source of changes (the streaming sink, a replay job, {@code load})
 * hands it a {@link Batch} and its {@link Position}, and it does, in ONE PostgreSQL transaction:
 * <ol>
 *   <li>lock and check the position ({@link Position#lock}: the sink's fence, a replay's lease);</li>
 *   <li>take the table's writer lock ({@link WriterLock}) in the batch's mode, before any DDL;</li>
 *   <li>evolve the entity's shape ({@link EntityShapes#evolve}: columns added, types widened) before
 *       anything is written, and make a shadow target hold it ({@link EntityShapes#conform});</li>
 *   <li>let the source make its {@link Step}s for that shape ({@link Batch#prepare});</li>
 *   <li>run them in order through the writer: events, and deletes of what is live at an instant
 *       ({@link Step.DeleteLiveAt}, the one place that judges slice ends and truncates);</li>
 *   <li>keep the refused records in {@code dimstream.sink_rejects} with the SQL state, mapped back to
 *       their origins by the source ({@link Prepared#refused});</li>
 *   <li>advance the position ({@link Position#advance});</li>
 * </ol>
 * and commits; what it did comes back as a value ({@link Applied}), never kept in fields. When
 * PostgreSQL refuses the batch for a data reason (a value it cannot store, a constraint of a table
 * altered by hand, an index entry too large), the whole transaction is rolled back and run once more
 * with the events applied under savepoints ({@link ApplyOptions#ISOLATING}): the refused events are
 * isolated and kept in the rejects, everything else lands in the same transaction as the position.
 * Any other failure rolls back and is rethrown: the source retries (transient) or stops.
 *
 * <p>Thread-safe: it holds no per-batch state; the sink runs several groups at once through one.
 */
public final class BatchApplier {

    private static final Logger LOG = LoggerFactory.getLogger(BatchApplier.class);

    private final DataSource ds;
    private final Scd2Writer writer;
    private final EntityShapes shapes;

    public BatchApplier(DataSource ds, Scd2Writer writer, EntityShapes shapes) {
        this.ds = ds;
        this.writer = writer;
        this.shapes = shapes;
    }

    /** The shapes this applier evolves and applies with. */
    public EntityShapes shapes() {
        return shapes;
    }

    /**
     * Applies {@code batch} and advances {@code position} in one transaction (see the class
     * comment); once more isolating the refused events when PostgreSQL refused it for a data reason.
     */
    public <P extends Prepared, S> Outcome<P, S> apply(Batch<P> batch, Position<S> position) throws SQLException {
        try {
            return attempt(batch, position, false);
        } catch (SQLException e) {
            if (!SqlFailures.isData(e)) {
                throw e;
            }
            LOG.info("{}: PostgreSQL refused a value of {} (SQL state {}); applying it again, isolating the refused records",
                    batch.entity(), batch.what(), SqlFailures.sqlState(e).orElse("?"));
            return attempt(batch, position, true);
        }
    }

    private <P extends Prepared, S> Outcome<P, S> attempt(Batch<P> batch, Position<S> position, boolean isolate) throws SQLException {
        EntitySpec before = shapes.current(batch.entity());
        Outcome<P, S> out = Transactions.inTransaction(ds, c -> {
            S stop = position.lockOrEnd(c);
            if (stop != null) {
                return new Outcome.Stopped<>(stop);
            }
            // before any DDL: an ALTER TABLE waits for the table's other writers, which must not wait for this one's lock
            WriterLock.take(c, batch.shadow() == null ? before : batch.shadow(), batch.lock());
            ShapeChange change = batch.change().withoutErasedCarriers(c, batch.entity());
            EntitySpec shape = shapes.evolve(c, before, change.add(), change.widen());
            EntitySpec conformed = batch.shadow() == null ? shape : shapes.conform(c, shape, batch.shadow());
            EntitySpec target = batch.horizonLifted() ? conformed.withLatenessHorizon(Optional.empty()) : conformed;
            P prepared = batch.prepare().prepare(target);
            Applied<P> applied = run(c, target, prepared, isolate);
            if (position.rejectsGroup() != null && !applied.rejects().isEmpty()) {
                SinkRejects.insert(c, position.rejectsGroup(), applied.rejects());
            }
            S late = position.advance(c, applied);
            if (late != null) {
                c.rollback();
                return new Outcome.Stopped<>(late);
            }
            return new Outcome.Done<>(applied);
        });
        if (out instanceof Outcome.Done<P, S> done && !(done.applied().shape().columns().equals(before.columns())
                && done.applied().shape().modifiers().equals(before.modifiers()))) {
            // a column added, or widened (a type, or only its length or precision: varchar(10) to varchar(40))
            shapes.committed(done.applied().shape().withTable(before.table()).withLatenessHorizon(before.latenessHorizon()));
        }
        return out;
    }

    /** The steps in order, the rejects collected. */
    private <P extends Prepared> Applied<P> run(Connection c, EntitySpec target, P prepared, boolean isolate) throws SQLException {
        ApplyOptions options = new ApplyOptions(isolate);
        ApplyResult events = ApplyResult.empty();
        ApplyResult deletes = ApplyResult.empty();
        for (Step step : prepared.steps()) {
            if (step instanceof Step.Events ev && !ev.events().isEmpty()) {
                events = events.plus(writer.apply(c, target, ev.events(), options));
            } else if (step instanceof Step.TypedEvents te && !te.events().isEmpty()) {
                events = events.plus(writer.applyTyped(c, target, te.events(), options));
            } else if (step instanceof Step.DeleteLiveAt d) {
                deletes = deletes.plus(deleteLiveAt(c, target, d));
            }
        }
        List<SinkReject> rejects = new ArrayList<>(prepared.rejects());
        for (Rejection r : events.rejected()) {
            rejects.addAll(prepared.refused(r));
        }
        return new Applied<>(prepared, target, events, deletes, rejects, isolate);
    }

    /**
     * Deletes, at each instant of {@code d}, each key of {@code target} live there with no remembered
     * event at exactly that instant that {@code d}'s filter accepts, through the writer; each instant
     * sees the deletes of the one before. Holds one instant's keys at a time.
     */
    private ApplyResult deleteLiveAt(Connection c, EntitySpec target, Step.DeleteLiveAt d) throws SQLException {
        ApplyResult result = ApplyResult.empty();
        for (Instant t : d.when().instants(c)) {
            List<Event> deletes = new ArrayList<>();
            SnapshotSlices.forEachLiveWithoutEventAt(c, target, t, key -> {
                if (d.keys().accepts(target, key)) {
                    Map<String, Object> data = new LinkedHashMap<>();
                    for (int i = 0; i < key.size(); i++) {
                        data.put(target.key().get(i), key.get(i));
                    }
                    deletes.add(Event.delete(t, data, d.seq(), d.lineage()));
                }
            });
            LOG.info("{} of {}: {} keys live at {} deleted", d.what(), target.table(), deletes.size(), t);
            if (deletes.isEmpty()) {
                continue;
            }
            ApplyResult r = writer.apply(c, target, deletes);
            if (!r.rejected().isEmpty()) {
                throw new IllegalStateException("the writer refused a delete made for " + d.what() + " of " + target.name() + " at " + t
                        + ": " + r.rejected().get(0).reason());
            }
            result = result.plus(r);
        }
        return result;
    }
}
