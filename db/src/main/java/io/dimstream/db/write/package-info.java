/**
 * The SCD2 writer: batches of events become version rows, exactly as DESIGN section 3 defines
 * history, in one PostgreSQL transaction per batch.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>Set-based.</b> A batch is COPYed into a per-session temp table ({@code ds_batch}); a
 *       fixed number of statements then handle the whole batch through the other work tables,
 *       each named by its role: {@code ds_winners} (the events that change memory),
 *       {@code ds_affected_keys} (the keys whose region is recomputed), {@code ds_region} (the
 *       region's events) and {@code ds_region_versions} (the versions the region must have)
 *       ({@link io.dimstream.db.write.WriterSql} lists the statements). Nothing runs per
 *       event.</li>
 *   <li><b>Erased keys stay erased.</b> After validation and before anything else, the events of
 *       keys erased with a tombstone ({@link io.dimstream.db.write.ErasedKeys}) are dropped and
 *       counted ({@code ApplyResult.erased}): every source of changes reaches the table through
 *       here, so none brings such a key back. One index probe per batch while the entity has no
 *       tombstone.</li>
 *   <li><b>Event memory.</b> The writer remembers one event per key and event time (the
 *       winning arrival). History is a function of these events, so the writer can recompute any
 *       part of it; the version table is the materialized result. Since 2026-12-03 the events live
 *       in two places ({@link io.dimstream.db.write.EventMemory}): an in-order event that starts a
 *       version is remembered by that version row alone (its arrival order in the system column
 *       {@code event_seq}), every other one by a row of {@code <table>_events}. The in-order
 *       change, the common case, then writes two rows instead of three (measured: the memory
 *       statement was 10-14% of such a batch). The price is paid where it is rare: before a
 *       region is recomputed, a re-assertion overwrites type-1 values or pruning anchors a key,
 *       the version starts involved are written into the memory from their rows; the probes that
 *       read the newest or a same-time event probe both places (both by primary key).</li>
 *   <li><b>Prune points.</b> The lateness pruning ({@link io.dimstream.db.write.MemoryPruner}) and
 *       history retention ({@code io.dimstream.db.retention}) cut a key's remembered history at an
 *       anchor and record a prune point on the key's oldest memory row; classify quarantines an event
 *       at or before it. Both walk the keys in key order a chunk at a time, each chunk its own short
 *       transaction ({@link io.dimstream.db.sql.KeyWalk}), so neither holds row locks the sink
 *       waits on for longer than a chunk; a key is cut by one statement of one chunk. Retention records its horizon, later than its anchor, and a prune point never
 *       moves back: the lateness pruning keeps a later one the key has. The quarantine reason says
 *       which cut it was (lateness, history-retention, history-grain-after).</li>
 *   <li><b>Arrival order, in every batching.</b> Each event is judged (duplicate, late, beyond the
 *       lateness horizon, its class) against what the events that arrived before it (lower
 *       {@code seq}) left, inside a batch too, so the table, the quarantine and the counts are those
 *       of the events applied one at a time, however the input was cut into batches
 *       ({@link io.dimstream.db.write.ArrivalOrder}). Before, an event arriving after a much newer one
 *       of its key in the same batch was neither late nor quarantined, and {@code load} gave
 *       another history by batch size (issue 30). A batch is applied in rounds: a key's events go
 *       to the next round where one meets an earlier event of the batch at the same time (in the
 *       round they would have been judged against the batch's first, not against each other), and
 *       each round's COPY carries, for an event with earlier arrivals of its key in the round, the
 *       newest of them (and the one just before it, for an event replacing the memory's newest).
 *       An in-order stream (a key's one event per batch) is one round with nothing more to carry:
 *       the fast path pays one hash lookup per event in Java, no SQL.</li>
 *   <li><b>Fast path.</b> An event that is its key's only one in the batch and newer than all the
 *       key remembers is handled against the key's newest remembered state: close the open
 *       version and insert the successor, or overwrite type-1 columns in place. The successor
 *       goes straight into the table: no version can start at a time newer than everything its
 *       key remembers, so it needs no existence probe. The close and the insert are one
 *       statement (the UPDATE's RETURNING feeds the INSERT row by row), so a key's successor is
 *       written while the pages its close touched are still in shared buffers: 1.11x on a table
 *       whose rows are in no key order (docs/benchmarks.md, issue 33).</li>
 *   <li><b>Plan shapes are pinned.</b> Every statement that joins the batch with a big table
 *       (entity or memory) runs with hash/merge joins, materialization, seq and bitmap scans off:
 *       one index probe per batch row, whatever the statistics of a fast-growing table say. Only
 *       the region statement that joins work tables with each other ({@code fillRegionVersions})
 *       may hash.</li>
 *   <li><b>Exact late placement.</b> For other keys the region from the remembered event just
 *       before the batch's earliest event on is recomputed over memory and batch together (LAG
 *       for run starts, a running sum for run numbers, LEAD for valid_to, whose default for a key's
 *       last version is the entity's open end, NULL or infinity: {@code EntitySpec.openEnd}) into
 *       {@code ds_region_versions}, and the table is made equal to it over that region: delete rows no longer produced, update rows whose content
 *       differs ({@code IS DISTINCT FROM}), insert new ones, in that order so the one-open-row
 *       index never sees two open rows. This follows the lessons of Spark's AUTO CDC SCD2
 *       processor (DESIGN 5b) with the fix of apache/spark#58209 built in: the region is computed
 *       over memory and versions as one timeline.</li>
 *   <li><b>Values the source did not send</b> ({@link io.dimstream.db.event.Unchanged}) are
 *       resolved before anything else, from the key's event before in the event memory or the
 *       batch ({@link io.dimstream.db.write.UnchangedValues}); the rest of the writer never sees
 *       one. Batches without them cost nothing more.</li>
 *   <li><b>Columns added while running</b> ({@link io.dimstream.db.entity.EntitySpec#evolved()}) are
 *       ordinary attributes to the writer: a spec with one more column is a new cache key, hence new
 *       statements and new work tables. {@code record_hash} leaves a NULL evolved column out
 *       ({@link io.dimstream.db.event.RecordHash}), so versions written before the column existed
 *       match later events whose column is NULL: no version is made by adding a column.</li>
 *   <li><b>Idempotent.</b> Re-delivered events match their remembered twin and are counted as
 *       duplicates; re-applying any batch writes nothing. Surrogate keys are a function of
 *       (entity, key, valid_from), so replays reproduce them.</li>
 *   <li><b>Names of its own.</b> The work tables are temporary, named {@code ds_<role>_<hash of the
 *       spec>} in the session's {@code pg_temp} schema, so no user table shares or shadows them. Their
 *       columns and the statements' derived columns use names no entity column may take
 *       ({@link io.dimstream.db.entity.EntitySpec#WORK_COLUMNS}, refused by the entity check); result
 *       columns are read by label ({@code ClassCounts}). A JSON object of the
 *       columns is built in pieces of 50, under PostgreSQL's 100 function arguments.</li>
 *   <li><b>Atomic with the caller's state.</b> {@link io.dimstream.db.write.Scd2Writer#apply(java.sql.Connection,
 *       io.dimstream.db.entity.EntitySpec, java.util.List, io.dimstream.db.write.ApplyOptions)} runs inside
 *       the caller's transaction so the streaming sink can commit its offsets with the rows.</li>
 *   <li><b>Two entry points, one path.</b> {@code apply(Connection, EntitySpec, List<Event>, ApplyOptions)}
 *       validates ({@link io.dimstream.db.event.EventValidator}) and then does what
 *       {@link io.dimstream.db.write.Scd2Writer#applyTyped} does with events validated already (the
 *       sink's, read typed from the changes topic): neither validates or hashes twice, and both give
 *       the same table ({@code Scd2WriterTypedTest}). {@link io.dimstream.db.write.ApplyOptions}
 *       holds the choices (isolating refused events) instead of an overload per choice.</li>
 * </ul>
 */
package io.dimstream.db.write;
