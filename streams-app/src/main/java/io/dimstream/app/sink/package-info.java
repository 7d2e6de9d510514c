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
 *   <li>{@link io.dimstream.app.sink.SinkTransaction}: the sink as a source of the one apply pipeline
 *       ({@link io.dimstream.db.apply.BatchApplier}), a lone partition being a group of one: the
 *       group's records become steps ({@link io.dimstream.app.sink.SinkSteps}: typed events, validated
 *       once by the topology, only records of another shape of the entity validated here; markers as
 *       deletes of what is live at an instant over the partition's keys), the columns the records name
 *       a shape change, and the partitions' fenced offsets the position
 *       ({@link io.dimstream.app.sink.SinkPosition}: lock and fence every offset, advance them, the
 *       batch figures). The applier runs it all in one transaction and returns the counts as values:
 *       the sink's parallel groups share one {@code SinkTransaction} and nothing of a group is kept
 *       in its fields.</li>
 *   <li>{@link io.dimstream.app.sink.SinkMetrics}: the sink's meters (served by
 *       {@code io.dimstream.app.metrics}, which depends on this package, never the reverse).</li>
 *   <li>{@link io.dimstream.app.sink.CatchUp}: whether Kafka Streams has committed its inputs and the
 *       sink's stored offsets reach the changes topics' committed ends (for the demo, benchmarks
 *       and tests), its comparisons pure, each look's reads in an order that a commit between two
 *       of them cannot fool (the group's offsets before the inputs' ends).</li>
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
 * columns in {@code new_columns} or {@code widened} hands them to the applier as its shape change;
 * the entity's one shape owner ({@link io.dimstream.db.schema.EntityShapes}) adds and widens them in
 * the group's transaction before anything is written, and reads the catalog again once it commits.
 * Only records whose bytes hold {@code "new_columns":} or {@code "widened":} are read twice for it.
 * A change that is no safe widening throws before any DDL, so the partition retries, turns stuck
 * and says why until the column is changed by hand.
 *
 * <p><b>Snapshot feeds and truncates.</b> An end-of-slice marker, or a truncate marker
 * ({@code on-truncate: delete-all}), splits a batch: the events before it, then a
 * {@link io.dimstream.db.apply.Step.DeleteLiveAt} over this partition's keys (filtered with
 * {@link io.dimstream.app.change.ChangesPartitioner}; arrival order: the marker's offset), then the
 * events after it, in the same transaction. A slice is recorded complete on the partition in the
 * transaction and it and every complete slice after it are judged
 * ({@link io.dimstream.db.snapshot.SnapshotSlices}); a truncate is judged once, when it arrives (a
 * re-delivery finds its deletes remembered). A marker for another entity or partition is a reject.
 * Each run of events is followed by the judgement of the complete slices after its late slice rows,
 * for their keys ({@link io.dimstream.app.sink.LateSliceRows}: rows of a slice already complete on
 * the partition; one query when there are none).
 */
package io.dimstream.app.sink;
