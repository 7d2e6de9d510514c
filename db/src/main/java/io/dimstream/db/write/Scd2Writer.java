package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.TypedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import io.dimstream.db.sql.SqlFailures;
import io.dimstream.db.sql.Transactions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Applies batches of events to an entity's SCD2 table, exactly as DESIGN section 3 defines
 * history, in ONE transaction per batch, set-based (COPY into a staging table, then a fixed
 * number of statements over the whole batch, never a statement per event).
 *
 * <p>How: every accepted event is remembered in {@code <table>_events} (one row per key and
 * event time, the latest arrival winning). For each key the batch touches, the writer finds the
 * remembered event just before the batch's earliest event for that key ({@code p}) and the version
 * holding it, recomputes the runs of equal state from {@code p} on over memory and batch together
 * (window functions), and makes the version rows of that region equal to the result: deleting rows
 * no longer produced, updating changed ones under an {@code IS DISTINCT FROM} guard, inserting new
 * ones. An in-order event's region is just the current version and the event, so the common case
 * is a close and an insert; a late event's region is the tail of history after it. Re-applying any
 * batch finds nothing distinct and writes nothing.
 *
 * <p>Events older than their key's newest event at their arrival by more than the lateness
 * horizon, or at/before the key's prune point, go to {@code dimstream.quarantine} with the reason.
 * Every event is judged at its arrival ({@code seq}), inside a batch too ({@link ArrivalOrder}):
 * any batching of the same input gives the same table, quarantine and counts.
 */
public final class Scd2Writer {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Scd2Writer.class);

    /**
     * Plan shape for the statements that join the batch to the big tables (entity and memory):
     * one index probe per batch row. Left to itself the planner hashes the whole table for every
     * batch (it under-estimates the unanalyzed work tables and over-prices cached index pages),
     * which made each batch cost a scan of the table: measured 0.7 s per statement at 1M rows
     * for a batch that matched nothing. With stale statistics of a fast-growing table (a backfill)
     * it looped over a materialized scan of the table's open rows per batch row instead
     * (2.4M row comparisons for 900 closes); no seq, bitmap or materialized inner side either.
     */
    private static final String PROBES = "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; "
            + "SET LOCAL enable_material = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off";
    /**
     * Plan shape for the two region statements that join work tables with each other (the
     * counts and the versions): hashing is right there, where a nested loop over an unindexed
     * work table is quadratic. They reach no big table but through a LATERAL probe, and seq
     * and bitmap scans stay off. Every statement that joins a big table runs under PROBES: with
     * hashing allowed, the planner took a region's update through a sequential scan of the whole
     * entity table (55 ms of 94 ms for 1,670 rows, every batch) and, with the table's statistics
     * behind its growth, its delete and the region's read of the memory through full index
     * scans (0.4-0.5 s per 5,000-event batch).
     */
    private static final String JOINS = "SET LOCAL enable_hashjoin = on; SET LOCAL enable_mergejoin = on";

    private final DataSource ds;
    private final Map<EntitySpec, WriterSql> sqlCache = new ConcurrentHashMap<>();
    private final String workMem;

    public Scd2Writer(DataSource ds) {
        this(ds, "64MB");
    }

    /** @param workMem PostgreSQL {@code work_mem} for the apply transaction (joins and sorts of a big batch) */
    public Scd2Writer(DataSource ds, String workMem) {
        this.ds = ds;
        if (!workMem.matches("\\d+\\s*(kB|MB|GB)?")) {
            throw new IllegalArgumentException("work-mem: not a PostgreSQL memory size: " + workMem);
        }
        this.workMem = workMem;
    }

    /** Applies a batch in its own transaction (committed on success, rolled back on failure). */
    public ApplyResult apply(EntitySpec entity, List<Event> batch) throws SQLException {
        return Transactions.inTransaction(ds, c -> apply(c, entity, batch));
    }

    /**
     * Applies a batch inside the caller's transaction ({@code c} must have auto-commit off) with the
     * {@link ApplyOptions#DEFAULT default options}; the caller commits, so it can write its own state
     * (sink offsets) atomically with the rows.
     */
    public ApplyResult apply(Connection c, EntitySpec entity, List<Event> batch) throws SQLException {
        return apply(c, entity, batch, ApplyOptions.DEFAULT);
    }

    /**
     * Validates a batch ({@link EventValidator}: what it refuses comes back in
     * {@link ApplyResult#rejected()}), then applies the valid events as {@link #applyTyped} does,
     * inside the caller's transaction. For events that are not validated yet: a load, a replay, the
     * admin's actions, and changes-topic records in the older, untyped form.
     */
    public ApplyResult apply(Connection c, EntitySpec entity, List<Event> batch, ApplyOptions options) throws SQLException {
        Validated v = validate(entity, batch);
        List<Rejection> rejected = ErasedKeys.notErased(c, entity, batch, v.rejected());
        int erasedInvalid = v.rejected().size() - rejected.size();
        ApplyResult applied = applyValid(c, entity, v.events(), rejected, batch.size() - erasedInvalid, options);
        return erasedInvalid == 0 ? applied : applied.plus(ApplyResult.builder().received(erasedInvalid).erased(erasedInvalid).build());
    }

    /**
     * Applies events validated already (by {@link EventValidator}, for this entity's spec: values
     * typed, hash computed), inside the caller's transaction ({@code c} must have auto-commit off),
     * without validating or hashing them again: the streaming sink reads them so from the changes
     * topic ({@link io.dimstream.db.event.TypedEventCodec}). {@link #apply(Connection, EntitySpec, List, ApplyOptions)}
     * is this after its validation, so both give the same table.
     */
    public ApplyResult applyTyped(Connection c, EntitySpec entity, List<TypedEvent> events, ApplyOptions options) throws SQLException {
        return applyValid(c, entity, events, List.of(), events.size(), options);
    }

    /**
     * Drops the events of erased keys ({@link ErasedKeys#keep}: one probe per batch when the entity has
     * no tombstone), resolves unchanged values, applies in arrival order ({@link ArrivalOrder}): at once, or with the
     * refused events isolated ({@link ApplyOptions#isolate()}).
     *
     * <p><b>Isolating.</b> For a batch PostgreSQL refused for a data reason ({@link SqlFailures.Kind#DATA}:
     * a value it cannot store, a constraint of a table altered by hand, an index entry too large): the
     * events are split in {@value #SPLIT} parts, each applied under a savepoint; a refused part rolls
     * back to its savepoint and is split again, until the refused events stand alone. Those come back
     * in {@link ApplyResult#rejected()} with the SQLSTATE and PostgreSQL's message; everything else is
     * applied, exactly as if the refused events had never been there (the parts are cut from the
     * events in arrival order, so applying them one after the other judges each event as the whole
     * batch would, a batching giving what any other gives). k refused events among n cost about {@code 16 k log16(n)} writer calls and
     * one more pass over the batch. Any other failure is thrown as without it. Callers apply a batch
     * without isolating first and isolate only after it failed (the one apply pipeline,
     * {@code io.dimstream.db.apply.BatchApplier}): a savepoint per writer call makes every batch a subtransaction, which
     * cost a third more time over the thousands of small batches of WriterPropertyTest.
     */
    private ApplyResult applyValid(Connection c, EntitySpec entity, List<TypedEvent> valid, List<Rejection> rejected, int received,
                                   ApplyOptions options) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("apply(Connection, ...) needs a connection with auto-commit off");
        }
        ErasedKeys.Kept kept = ErasedKeys.keep(c, entity, valid);
        ApplyResult erased = ApplyResult.builder().erased(kept.erased()).build();
        Prepared prep = prepareValid(c, entity, kept.events(), rejected);
        if (options.isolate()) {
            ApplyResult set = ApplyResult.builder()
                    .received(received - prep.events().size())
                    .rejected(prep.rejected())
                    .build();
            return set.plus(split(c, entity, prep.events())).plus(erased);
        }
        if (prep.events().isEmpty()) {
            return ApplyResult.builder().received(received).rejected(prep.rejected()).build().plus(erased);
        }
        return applyPrepared(c, entity, prep.events(), received, prep.rejected()).plus(erased);
    }

    /**
     * A refused batch is split in this many parts, each tried under its own savepoint, the refused
     * parts split again. Halves re-apply the batch about log2(n) times over where refused records
     * are spread out (each level's failing halves cover most of the batch); sixteenths re-apply
     * about 1 + 16k/n of it, at more, small writer calls.
     */
    private static final int SPLIT = 16;

    /** The events in arrival order ({@code seq}), in {@value #SPLIT} parts, each applied by {@link #isolating}. */
    private ApplyResult split(Connection c, EntitySpec entity, List<TypedEvent> unordered) throws SQLException {
        List<TypedEvent> events = new ArrayList<>(unordered);
        events.sort(Comparator.comparingLong(TypedEvent::seq));
        int parts = Math.min(SPLIT, events.size());
        ApplyResult result = ApplyResult.empty();
        for (int i = 0; i < parts; i++) {
            result = result.plus(isolating(c, entity, events.subList(events.size() * i / parts, events.size() * (i + 1) / parts)));
        }
        return result;
    }

    /** Applies validated events under a savepoint, isolating those PostgreSQL refuses ({@link ApplyOptions#isolate()}). */
    private ApplyResult isolating(Connection c, EntitySpec entity, List<TypedEvent> events) throws SQLException {
        if (events.isEmpty()) {
            return ApplyResult.empty();
        }
        Savepoint sp = c.setSavepoint();
        try {
            freshWorkTables(c, entity);
            ApplyResult result = applyPrepared(c, entity, events, events.size(), List.of());
            c.releaseSavepoint(sp);
            return result;
        } catch (SQLException e) {
            if (!SqlFailures.isData(e)) {
                throw e;
            }
            c.rollback(sp);
            if (events.size() == 1) {
                TypedEvent only = events.get(0);
                String m = String.valueOf(e.getMessage());
                String line = m.lines().findFirst().orElse(m);
                String state = SqlFailures.sqlState(e).orElse(null);
                LOG.warn("{} of {}: PostgreSQL refused the event (SQL state {}): {}", only.source(), entity.name(), state, line);
                return ApplyResult.builder()
                        .received(1)
                        .rejected(List.of(new Rejection(only.source(), "PostgreSQL refused the event: " + line, state)))
                        .build();
            }
            LOG.debug("PostgreSQL refused a part of {} events of {} (SQL state {}); isolating the refused events",
                    events.size(), entity.name(), SqlFailures.sqlState(e).orElse("?"));
            return split(c, entity, events);
        }
    }

    /**
     * Empties the entity's work tables for good inside the caller's transaction (TRUNCATE, where an
     * apply empties them with DELETE): before each of many applies in one transaction, so that none
     * scans the dead rows of the ones before it (or of one rolled back to a savepoint).
     */
    private void freshWorkTables(Connection c, EntitySpec entity) throws SQLException {
        WriterSql sql = sqlCache.computeIfAbsent(entity, WriterSql::new);
        try (Statement s = c.createStatement()) {
            s.execute(sql.truncateWork);
        }
    }

    /** Validated events, unchanged values resolved, with what was set aside. */
    private record Prepared(List<TypedEvent> events, List<Rejection> rejected) {
    }

    /** The batch validated, and what the validator refused. */
    private record Validated(List<TypedEvent> events, List<Rejection> rejected) {
    }

    /** Each event through {@link EventValidator}: the one validation of events that arrive untyped. */
    private static Validated validate(EntitySpec entity, List<Event> batch) {
        EventValidator validator = new EventValidator(entity);
        List<Rejection> rejected = new ArrayList<>();
        List<TypedEvent> valid = new ArrayList<>(batch.size());
        for (Event ev : batch) {
            EventValidator.Result vr = validator.validate(ev);
            if (vr.ok()) {
                valid.add(vr.event());
            } else {
                rejected.add(vr.rejection());
            }
        }
        return new Validated(valid, rejected);
    }

    /**
     * Resolves values the source did not send ({@link UnchangedValues}, reading the event memory on
     * {@code c}, which may be null for a batch without them). Every event is kept: several events of
     * a key at one time are judged one after the other, in arrival order ({@link ArrivalOrder}), as
     * if they had come in batches of their own; keeping only the latest here would lose an earlier
     * one that stays when the later is quarantined or a duplicate.
     */
    private static Prepared prepareValid(Connection c, EntitySpec entity, List<TypedEvent> valid, List<Rejection> rejected)
            throws SQLException {
        return new Prepared(UnchangedValues.resolve(c, entity, valid), rejected);
    }

    /**
     * Applies prepared events in their arrival order: round by round ({@link ArrivalOrder}), each
     * judged against what the memory and the rounds before it remember, so the batch gives what its
     * events applied one at a time would.
     */
    private ApplyResult applyPrepared(Connection c, EntitySpec entity, List<TypedEvent> events, int received, List<Rejection> rejected)
            throws SQLException {
        WriterSql sql = sqlCache.computeIfAbsent(entity, WriterSql::new);
        ApplyResult result = ApplyResult.builder().received(received - events.size()).rejected(rejected).build();
        for (List<ArrivalOrder.Arrived> round : ArrivalOrder.rounds(entity, events)) {
            if (!round.isEmpty()) {
                result = result.plus(applyRound(c, entity, sql, round));
            }
        }
        return result;
    }

    /** What the classify statement found in a round: quarantined, winners, winners off the fast path, fast deletes, the winners' classes. */
    private record Classified(int quarantined, int winners, int slow, int fastDeletes, int fastStarts, ClassCounts classes) {
    }

    /** One round: COPY, classify, write the winners. */
    private ApplyResult applyRound(Connection c, EntitySpec entity, WriterSql sql, List<ArrivalOrder.Arrived> round) throws SQLException {
        try (Statement s = c.createStatement()) {
            // the transaction's settings, the work tables (created once per session) and their
            // emptying, in one round trip. JIT compiling these big one-shot statements cost ~0.6 s
            // per 100k-event batch, more than it saved.
            timed("prepare", () -> s.execute("SET LOCAL TimeZone = 'UTC'; SET LOCAL work_mem = '" + workMem + "'; SET LOCAL jit = off; "
                    + PROBES + ";\n" + sql.createTemp + ";\n" + sql.clearWork));
        }
        // Key order. Only a hint: the classify statement sorts by the columns' collation anyway,
        // but PostgreSQL's quicksort checks for presorted input first, so a batch already in that
        // order (Java's natural order agrees with C-like collations) costs one pass of comparisons
        // (auto_explain, 100k events: the sort node took 125 ms instead of 169 ms).
        List<ArrivalOrder.Arrived> ordered = new ArrayList<>(round);
        Comparator<TypedEvent> byKey = keyOrder(entity.key().size());
        ordered.sort((a, b) -> byKey.compare(a.event(), b.event()));
        timed("copy", () -> {
            RoundCopy.copy(c, entity, sql, ordered);
            return 0;
        });
        Classified k = classify(c, entity, sql);
        int duplicates = round.size() - k.quarantined() - k.winners();
        if (k.winners() == 0) {
            return ApplyResult.builder().received(round.size()).duplicates(duplicates).quarantined(k.quarantined()).build();
        }
        int[] rows = write(c, sql, k);
        ClassCounts classes = k.classes();
        if (classes.total() != k.winners()) {
            throw new IllegalStateException("classification of " + k.winners() + " events does not add up: late " + classes.late() + ", new "
                    + classes.newKeys() + ", changed " + classes.changed() + ", deleted " + classes.deleted() + ", unchanged " + classes.unchanged());
        }
        return ApplyResult.builder()
                .received(round.size())
                .newKeys(classes.newKeys())
                .changed(classes.changed())
                .deleted(classes.deleted())
                .unchanged(classes.unchanged())
                .late(classes.late())
                .duplicates(duplicates)
                .quarantined(k.quarantined())
                .rowsInserted(rows[0])
                .rowsUpdated(rows[1])
                .rowsDeleted(rows[2])
                .build();
    }

    /** The classify statement over the COPYed round: quarantines, fills ds_winners, counts. */
    private Classified classify(Connection c, EntitySpec entity, WriterSql sql) throws SQLException {
        String horizon = entity.latenessHorizon().map(Object::toString).orElse(null);
        try (PreparedStatement p = c.prepareStatement(everPruned(c, entity) ? sql.classifyPruned : sql.classify)) {
            p.setString(1, horizon);
            p.setString(2, entity.name());
            p.setString(3, horizon);
            p.setString(4, entity.retention().retention().map(Object::toString).orElse(null));
            p.setString(5, entity.retention().grainAfter().map(Object::toString).orElse(null));
            try (ResultSet rs = timed("classify", p::executeQuery)) {
                rs.next();
                return new Classified(rs.getInt("quarantined"), rs.getInt("winners"), rs.getInt("slow_winners"), rs.getInt("fast_deletes"),
                        rs.getInt("fast_starts"), ClassCounts.read(rs));
            }
        }
    }

    /** The round's winners into the memory and the table; returns the rows inserted, updated, deleted. */
    private static int[] write(Connection c, WriterSql sql, Classified k) throws SQLException {
        int rowsDeleted = 0;
        int rowsUpdated = 0;
        int rowsInserted;
        try (Statement s = c.createStatement()) {
            int slowKeys = 0;
            if (k.slow() > 0) {
                // true row counts for the region's joins: without them the planner may loop over
                // the whole table for every batch row (seen: 0.36 s for 1,800 closes on a 10k-row
                // table). The fast path's statements need none: PROBES fixes their plan shape
                // (an index probe per batch row), and skipping it saves ~0.3 s per 100k events.
                timed("analyze winners", () -> s.execute(sql.analyzeWinners));
                // their version starts the memory has no row of go into it first: the region reads one timeline
                timed("remember starts", () -> s.executeUpdate(sql.rememberSlowStarts));
                // keys with late or several events: their region is recomputed (ds_affected_keys must see the memory before this batch)
                slowKeys = timed("affected keys", () -> s.executeUpdate(sql.fillAffectedKeys));
            }
            timed("memory", () -> s.executeUpdate(sql.insertMemory));
            if (k.slow() > 0) {
                timed("memory upsert", () -> s.executeUpdate(sql.upsertMemory));
            }
            // each close with its successor; one row each in the table
            int successors = timed("fast close and new", () -> s.executeUpdate(sql.fastCloseAndNew));
            rowsUpdated += successors;
            // fast deletes (also those of keys with no version, which close nothing)
            boolean deletes = k.fastDeletes() > 0;
            if (deletes) {
                try (ResultSet rs = timed("fast close deleted", () -> s.executeQuery(sql.fastCloseDeleted))) {
                    rs.next();
                    rowsUpdated += rs.getInt(1);
                }
            }
            rowsInserted = successors + timed("fast new keys", () -> s.executeUpdate(sql.fastNewKeys));
            if (rowsInserted < k.fastStarts()) {
                rowsInserted += timed("fast new rest", () -> s.executeUpdate(sql.fastNewRest));
            }
            if (sql.fastType1 != null) {
                timed("remember type-1 starts", () -> s.executeUpdate(sql.rememberType1Starts));
                rowsUpdated += timed("fast type-1", () -> s.executeUpdate(sql.fastType1));
            }
            if (slowKeys > 0) {
                timed("analyze affected keys", () -> s.execute(sql.analyzeAffectedKeys));
                timed("region", () -> s.executeUpdate(sql.fillRegion));
                // this one joins work tables with each other: hashing is right there
                s.execute(JOINS);
                timed("versions", () -> s.executeUpdate(sql.fillRegionVersions));
                s.execute(PROBES);
                timed("analyze region versions", () -> s.execute(sql.analyzeRegionVersions));
                rowsDeleted = timed("delete", () -> s.executeUpdate(sql.deleteRows));
                rowsUpdated += timed("update", () -> s.executeUpdate(sql.updateRows));
            }
            if (deletes || slowKeys > 0) {
                // ds_region_versions holds the is_deleted rows of fast deletes and the region's versions
                rowsInserted += timed("insert", () -> s.executeUpdate(sql.insertRows));
            }
        }
        return new int[] {rowsInserted, rowsUpdated, rowsDeleted};
    }

    private static boolean everPruned(Connection c, EntitySpec entity) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT last_pruned_at IS NOT NULL FROM dimstream.entities WHERE name = ?")) {
            p.setString(1, entity.name());
            try (ResultSet rs = p.executeQuery()) {
                // an entity not registered (tables made by hand) is treated as possibly pruned
                return !rs.next() || rs.getBoolean(1);
            }
        }
    }

    /** A SQL step whose duration is logged at DEBUG (logger io.dimstream.db.write.Scd2Writer). */
    @FunctionalInterface
    private interface Step<T> {
        T run() throws SQLException;
    }

    private static <T> T timed(String name, Step<T> step) throws SQLException {
        if (!LOG.isDebugEnabled()) {
            return step.run();
        }
        long t = System.nanoTime();
        T r = step.run();
        LOG.debug("apply step {}: {} ms", name, (System.nanoTime() - t) / 1_000_000);
        return r;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Comparator<TypedEvent> keyOrder(int nKey) {
        return (a, b) -> {
            for (int i = 0; i < nKey; i++) {
                Object x = a.values().get(i);
                Object y = b.values().get(i);
                // bytea's byte[] is not Comparable: unsigned bytes, as PostgreSQL orders bytea
                int cmp = x instanceof byte[] xb ? Arrays.compareUnsigned(xb, (byte[]) y) : ((Comparable) x).compareTo(y);
                if (cmp != 0) {
                    return cmp;
                }
            }
            return 0;
        };
    }
}
