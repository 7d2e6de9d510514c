/**
 * The streaming sink's own state in PostgreSQL, and the SQL that reads and writes it (the sink
 * itself, in streams-app, holds no SQL text):
 * <ul>
 *   <li>{@link io.dimstream.db.sink.SinkOffsets}: {@code dimstream.sink_offsets}, per consumer group
 *       and changes-topic partition the next offset to apply; locked ({@code FOR UPDATE}) and
 *       advanced with the update count checked in every batch transaction, so an instance that
 *       lost a partition cannot commit a stale batch (the fence);</li>
 *   <li>{@link io.dimstream.db.sink.SinkRejects}: {@code dimstream.sink_rejects}, records set aside
 *       with the reason and, when PostgreSQL refused a value, its SQLSTATE;</li>
 *   <li>{@link io.dimstream.db.sink.SinkBatches}: {@code dimstream.sink_batches}, one row per
 *       committed batch for the admin dashboard (pruned to a day per partition);</li>
 *   <li>{@link io.dimstream.db.sink.SinkGaps}: {@code dimstream.sink_gaps}, offset ranges skipped
 *       after they left the changes topic's log (only when configured to skip).</li>
 * </ul>
 * Every write takes the caller's connection: it belongs to the batch's own transaction, so a
 * rolled-back batch leaves nothing behind. Partitions are {@link io.dimstream.db.sink.PartitionRef}s:
 * this module knows nothing of Kafka's types.
 */
package io.dimstream.db.sink;
