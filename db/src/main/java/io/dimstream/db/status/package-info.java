/**
 * What the service's own bookkeeping says about it, for the admin dashboard: per-batch figures
 * the streaming sink records in {@code dimstream.sink_batches} (migration V004; one row per
 * committed batch, written in the batch's own transaction, so a rolled-back batch leaves no row;
 * bounded by deleting the partition's rows older than a day in the same transaction), and the
 * counts of an entity's table, pending quarantine and sink rejects; and the integrity reports run
 * from the admin ({@code dimstream.integrity_runs}, newest 20 per entity, with who ran them).
 *
 * <p>Queries: the last hour's sums are an index range scan of {@code (entity, finished_at)}; the
 * newest batch is the same index read backwards; the lag is the newest row per partition
 * ({@code DISTINCT ON}). Table counts are one scan of the entity's table (exact, not the
 * planner's estimate): fine for the tables this service keeps up to some millions of rows at the
 * dashboard's 10-second refresh; a larger deployment would cache them.
 */
package io.dimstream.db.status;
