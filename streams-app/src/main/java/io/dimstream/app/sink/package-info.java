/**
 * The streaming sink: a {@code read_committed} consumer of the changes topics that applies each
 * partition's batch to the SCD2 tables in one PostgreSQL transaction with that partition's offset
 * ({@code dimstream.sink_offsets}), fenced so an instance that lost a partition cannot commit a
 * stale batch. Entry point: {@link io.dimstream.app.sink.ChangeSink}; settings:
 * {@link io.dimstream.app.sink.SinkSettings}; its state for health: {@link io.dimstream.app.sink.SinkStatus}.
 *
 * <p>The parts, each on its own:
 * <ul>
 *   <li>{@link io.dimstream.app.sink.ChangeSink}: the poll loop and the rebalance listener, nothing else;</li>
 *   <li>{@link io.dimstream.app.sink.PartitionBuffers}: the batching policy (what is buffered, when a
 *       batch is due, the poll timeout, what must not fetch, a failing partition's backoff, "stuck"),
 *       pure, tested with a clock;</li>
 *   <li>{@link io.dimstream.app.sink.BatchPlanner}: which due batches go together: per entity, balanced
 *       groups over {@code sink.parallelism} connections (a partition's keys are its own, so groups
 *       never meet on a row); a batch holding a control record (end-of-slice or truncate marker), or of a partition retrying
 *       after a failure, goes alone;</li>
 *   <li>{@link io.dimstream.app.sink.ApplyExecutor}: a wave's transactions at once, every outcome read
 *       the same way;</li>
 *   <li>{@link io.dimstream.app.sink.SinkTransaction}: ONE transaction path, a lone partition being a
 *       group of one: lock and fence every offset, read the records into typed events (validated once,
 *       by the topology; only records of the older untyped form, or of another shape, are validated
 *       here), apply them ({@code Scd2Writer.applyTyped}), rejects, advance, batch figures.</li>
 *   <li>{@link io.dimstream.app.sink.SinkMetrics}: the sink's meters (served by
 *       {@code io.dimstream.app.metrics}, which depends on this package, never the reverse).</li>
 *   <li>{@link io.dimstream.app.sink.CatchUp}: whether Kafka Streams has committed its inputs and the
 *       sink's stored offsets reach the changes topics' committed ends (for the demo, benchmarks
 *       and tests), its comparisons pure.</li>
 * </ul>
 * The SQL of the sink's own tables is in {@code io.dimstream.db.sink}; what a failure means
 * (transient, a record's data, anything else) is {@link io.dimstream.db.sql.SqlFailures}.
 *
 * <p><b>Failures.</b> A record that cannot be applied (undecodable, invalid, or a value PostgreSQL
 * refuses: the transaction is run again with the refused records isolated under savepoints) goes
 * to {@code dimstream.sink_rejects} with the reason and SQL state; the rest lands. PostgreSQL
 * unavailable: every partition pauses, the batch is retried with backoff. Any other failure: only
 * that partition retries, alone, with backoff; it turns stuck after {@code sink.stuck-after}. A
 * stored offset no longer in the log stops the partition, or with {@code on-offset-out-of-range:
 * skip} moves past it with the gap recorded in {@code dimstream.sink_gaps}. Whatever ends the
 * thread is in {@link io.dimstream.app.sink.ChangeSink#failure()} and the status.
 *
 * <p><b>Columns added while running</b> ({@code new-columns:}): a group whose change records name
 * columns in {@code new_columns} that the entity does not have yet adds them first, in the group's
 * transaction and before anything is written ({@link io.dimstream.db.schema.EvolvedColumns#add}:
 * an advisory lock per entity, {@code ALTER TABLE} of the table and its event memory, the catalog
 * row), then applies the group with the extended spec; once committed, later groups use it. Only
 * records whose bytes hold {@code "new_columns":} are read twice for it. The first type wins.
 * Columns a record names in {@code "widened"} ({@code schema-evolution: lenient}: a value its type
 * refused, or a retype by the record's schema) are widened next, the same way
 * ({@link io.dimstream.db.schema.EvolvedColumns#widen}: {@code ALTER COLUMN ... TYPE}, the view made
 * again, the catalog row); a change that is no safe widening throws before any DDL, so the
 * partition retries, turns stuck and says why until the column is changed by hand. After a commit
 * that changed columns, the spec is read again from the catalog (two transactions may have
 * changed different columns).
 *
 * <p>Snapshot feeds: an end-of-slice marker splits a batch; after the events before it, in the same
 * transaction, the slice is recorded complete on the partition and it and every complete slice
 * after it are judged ({@link io.dimstream.db.snapshot.SnapshotSlices}): the keys live at the slice's
 * instant without an event there, filtered to this partition's keys with
 * {@link io.dimstream.app.change.ChangesPartitioner}, get delete events at that instant through the
 * writer (arrival: the marker's offset). A marker for another entity or partition is a reject.
 *
 * <p>Truncates ({@code on-truncate: delete-all}): a {@link io.dimstream.app.change.TruncateMarker}
 * splits a batch the same way; after the changes before it, every key of this partition live at the
 * truncate's time with no event at exactly that time gets a delete at that time through the writer
 * (the same query as a slice with no rows; lineage: the truncate's source record). Nothing is
 * recorded: a truncate is judged once, when it arrives, and judging it again (a re-delivery) finds
 * nothing, its deletes being remembered at its time.
 */
package io.dimstream.app.sink;
