/**
 * What the service's own bookkeeping says about it, for the admin dashboard: the counts of an
 * entity's table, pending quarantine and sink rejects ({@link io.dimstream.db.status.TableCounts});
 * and the integrity reports run from the admin ({@code dimstream.integrity_runs}, newest 20 per
 * entity, with who ran them); an entity's figures over time in buckets of a window
 * ({@link io.dimstream.db.status.EntityTrends}, the dashboard's charts) and the service's state as its
 * tables show it ({@link io.dimstream.db.status.ServiceActivity}). The sink's per-batch figures the dashboard also shows live with the
 * rest of the sink's state in {@code io.dimstream.db.sink} ({@code SinkBatches}).
 *
 * <p>Table counts are one scan of the entity's table (exact, not the planner's estimate): fine for
 * the tables this service keeps up to some millions of rows at the dashboard's 10-second refresh;
 * a larger deployment would cache them.
 */
package io.dimstream.db.status;
