package io.dimstream.app.load;

import io.dimstream.db.apply.Batch;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.apply.Outcome;
import io.dimstream.db.apply.Position;
import io.dimstream.db.apply.Prepared;
import io.dimstream.db.apply.ShapeChange;
import io.dimstream.db.apply.Step;
import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * {@code load} as a source of the one apply pipeline: a batch of a file's events, validated once
 * here, applied by the {@link BatchApplier} with no position (loading the same input again is a
 * no-op), values PostgreSQL refuses isolated and reported, the rest landing.
 *
 * <p><b>On several connections.</b> The apply is CPU-bound in the PostgreSQL backend, so with
 * {@code parallelism} above 1 a batch's events are split by key ({@link #part}) into that many
 * parts, each applied in a transaction of its own on its own connection. The batch is then atomic
 * per part, not as a whole; loading the same input again converges. While the parts run, one more
 * connection holds the table's writer lock EXCLUSIVE ({@link WriterLock}): the running service's
 * sink (and any replay) waits for the whole batch instead of recomputing a key beside it, and the
 * parts, whose keys are disjoint, take none. With one connection the batch's own transaction takes
 * it.
 */
public final class ParallelLoad {

    /** A batch's slice validated on a thread of its own has at least this many events: fewer are not worth a thread. */
    static final int MIN_EVENTS_PER_SLICE = 1_000;

    private final DataSource ds;
    private final BatchApplier applier;
    private final String entity;
    private final int parallelism;
    private final LoadFields fields;
    private final boolean judgesLoadedSlices;

    /**
     * A load of {@code entity} (as the config declares it; its catalog's columns are loaded too) on
     * {@code parallelism} connections, each event's fields as {@code fields} says (and the slices
     * loaded after its events judged again when {@code judgesLoadedSlices}, as below).
     */
    public ParallelLoad(DataSource ds, EntitySpec entity, int parallelism, LoadFields fields, boolean judgesLoadedSlices) {
        this(ds, new BatchApplier(ds, new Scd2Writer(ds), EntityShapes.of(ds, entity)), entity.name(), parallelism, fields,
                judgesLoadedSlices);
    }

    /**
     * A load of {@code entity} through {@code applier} (its writer and shapes) on {@code parallelism} connections.
     *
     * @param judgesLoadedSlices whether each transaction judges the slices loaded after its events for their
     *                           keys ({@link LoadedSlicesAfter}); not for a slice's own rows, whose completion
     *                           judges every later slice for every key
     */
    public ParallelLoad(DataSource ds, BatchApplier applier, String entity, int parallelism, LoadFields fields, boolean judgesLoadedSlices) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
        }
        this.ds = ds;
        this.applier = applier;
        this.entity = entity;
        this.parallelism = parallelism;
        this.fields = fields;
        this.judgesLoadedSlices = judgesLoadedSlices;
    }

    /** Applies {@code events} (see the class comment); what was refused comes back in the result's rejections. */
    public ApplyResult apply(List<Event> events, String what) throws SQLException {
        LoadFields.Shaped shaped = fields.apply(applier.shapes().current(entity), events);
        if (!shaped.change().isEmpty()) {
            // new columns (new-columns:): added once, in the transaction of this batch, on one
            // connection; the writer validates the events for the shape with them
            return applyOne(new Step.Events(shaped.events()), shaped.change(), WriterLock.Mode.EXCLUSIVE, what);
        }
        events = shaped.events();
        EntitySpec shape = shaped.shape();
        List<Rejection> invalid = new ArrayList<>();
        List<List<TypedEvent>> parts = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            parts.add(new ArrayList<>());
        }
        for (EventValidator.Result v : validate(new EventValidator(shape), events)) {
            if (v.ok()) {
                parts.get(part(v.event(), shape.key().size(), parallelism)).add(v.event());
            } else {
                invalid.add(v.rejection());
            }
        }
        ApplyResult total = ApplyResult.builder().received(invalid.size()).rejected(invalid).build();
        if (parallelism == 1) {
            return total.plus(applyPart(parts.get(0), WriterLock.Mode.EXCLUSIVE, what));
        }
        try (Connection leader = ds.getConnection()) {
            leader.setAutoCommit(false);
            try {
                WriterLock.take(leader, shape, WriterLock.Mode.EXCLUSIVE);
                total = total.plus(applyParts(parts, what));
            } finally {
                leader.rollback(); // it wrote nothing: ending it releases the lock
            }
        }
        return total;
    }

    /**
     * The events validated, the results in the events' order. With several connections the batch is
     * cut into as many contiguous slices, each validated on a thread of its own (the first on this
     * one): validation types every value and hashes the tracked ones (SHA-256, which the C1-only JIT
     * that {@code ./dimstream} gives commands that end runs without the CPU's SHA instructions), and
     * while it runs PostgreSQL has nothing to do yet, so the cores the load's connections would use
     * are idle. Measured on 2 cores against the loader before it: 1.05x for 100,000 changes (faster in 4
     * runs of 5), no difference for 1,000,000 (docs/benchmarks.md).
     * {@link EventValidator} holds only the entity's shape, so one serves every slice.
     */
    private List<EventValidator.Result> validate(EventValidator validator, List<Event> events) throws SQLException {
        int slices = Math.min(parallelism, Math.max(1, events.size() / MIN_EVENTS_PER_SLICE));
        int size = (events.size() + slices - 1) / slices;
        List<Task<List<EventValidator.Result>>> tasks = new ArrayList<>();
        for (int from = 0; from < events.size(); from += size) {
            List<Event> slice = events.subList(from, Math.min(events.size(), from + size));
            tasks.add(() -> validateSlice(validator, slice));
        }
        List<EventValidator.Result> results = new ArrayList<>(events.size());
        for (List<EventValidator.Result> slice : onThreads(tasks)) {
            results.addAll(slice);
        }
        return results;
    }

    private static List<EventValidator.Result> validateSlice(EventValidator validator, List<Event> slice) {
        List<EventValidator.Result> results = new ArrayList<>(slice.size());
        for (Event e : slice) {
            results.add(validator.validate(e));
        }
        return results;
    }

    private ApplyResult applyParts(List<List<TypedEvent>> parts, String what) throws SQLException {
        List<Task<ApplyResult>> tasks = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            List<TypedEvent> part = parts.get(i);
            String partWhat = what + " (part " + (i + 1) + " of " + parts.size() + ")";
            tasks.add(() -> applyPart(part, WriterLock.Mode.NONE, partWhat));
        }
        ApplyResult total = ApplyResult.empty();
        for (ApplyResult r : onThreads(tasks)) {
            total = total.plus(r);
        }
        return total;
    }

    /** One of the tasks {@link #onThreads} runs. */
    @FunctionalInterface
    private interface Task<T> {
        T run() throws SQLException;
    }

    /**
     * Runs the tasks at once, the first on this thread and each other one on a thread of its own,
     * and returns their results in the tasks' order. It returns or throws only when every task has
     * ended, so nothing of a failed batch still runs when the caller ends the transaction that holds
     * the writer lock; the first failure in task order is thrown as the task threw it, the others
     * suppressed in it.
     */
    private static <T> List<T> onThreads(List<Task<T>> tasks) throws SQLException {
        if (tasks.size() <= 1) {
            return tasks.isEmpty() ? List.of() : List.of(tasks.get(0).run());
        }
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size() - 1);
        try {
            List<CompletableFuture<T>> later = new ArrayList<>();
            for (Task<T> task : tasks.subList(1, tasks.size())) {
                later.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return task.run();
                    } catch (SQLException e) {
                        throw new CompletionException(e);
                    }
                }, pool));
            }
            List<T> results = new ArrayList<>(tasks.size());
            Throwable failure = null;
            try {
                results.add(tasks.get(0).run());
            } catch (SQLException | RuntimeException | Error e) {
                failure = e;
            }
            for (CompletableFuture<T> f : later) {
                try {
                    results.add(f.join());
                } catch (CompletionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            if (failure instanceof SQLException e) {
                throw e;
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure != null) {
                throw new IllegalStateException("a task failed", failure); // no task throws anything else
            }
            return results;
        } finally {
            pool.shutdown();
        }
    }

    private ApplyResult applyPart(List<TypedEvent> part, WriterLock.Mode lock, String what) throws SQLException {
        return part.isEmpty() ? ApplyResult.empty() : applyOne(new Step.TypedEvents(part), ShapeChange.NONE, lock, what);
    }

    /** One step in a transaction of its own, the shape changed first, with no position (a load needs none). */
    private ApplyResult applyOne(Step step, ShapeChange change, WriterLock.Mode lock, String what) throws SQLException {
        Step.DeleteLiveAt judged = judgesLoadedSlices ? LoadedSlicesAfter.of(applier.shapes().current(entity), step, what) : null;
        Prepared steps = Prepared.of(judged == null ? List.of(step) : List.of(step, judged));
        Outcome<Prepared, Void> out = applier.apply(new Batch<>(entity, null, change, lock, shape -> steps, what), Position.NONE);
        return ((Outcome.Done<Prepared, Void>) out).applied().result();
    }

    /** The part of a batch an event goes to: by its key ({@link TypedEvent#keyIdentity}), so one key's events are in one part. */
    static int part(TypedEvent e, int keyColumns, int parts) {
        return Math.floorMod(e.keyIdentity(keyColumns).hashCode(), parts);
    }
}
