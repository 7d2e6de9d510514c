/**
 * The streaming sink: a {@code read_committed} consumer of the changes topics that applies each
 * partition's batch to the SCD2 tables in one PostgreSQL transaction with that partition's offset
 * ({@code dimstream.sink_offsets}), fenced so an instance that lost a partition cannot commit a
 * stale batch; unusable records go to {@code dimstream.sink_rejects}. The due batches of several
 * partitions are applied at once, in groups on {@code sink.parallelism} connections, each group in
 * a transaction of its own with its partitions' offsets (a partition's keys are its own). Entry point: {@link
 * io.dimstream.app.sink.ChangeSink}; settings: {@link io.dimstream.app.sink.SinkSettings}; topic
 * names: {@link io.dimstream.app.change.ChangeTopics}.
 *
 * <p>Snapshot feeds: an end-of-slice marker splits a batch; after the events before it, in the same
 * transaction, the slice is recorded complete on the partition and it and every complete slice
 * after it are judged ({@link io.dimstream.db.snapshot.SnapshotSlices}): the keys live at the slice's
 * instant without an event there, filtered to this partition's keys with
 * {@link io.dimstream.app.change.ChangesPartitioner}, get delete events at that instant through the
 * writer (arrival: the marker's offset). A marker for another entity or partition is a reject.
 */
package io.dimstream.app.sink;
