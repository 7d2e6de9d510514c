/**
 * The one apply pipeline every source of changes composes on.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>Three sources, one pipeline.</b> The streaming sink (changes-topic records), a replay job
 *       (source-topic records) and {@code load} (lines, rows) only turn their input into
 *       {@link io.dimstream.db.apply.Step}s: events (untyped, or typed once by the topology) and
 *       {@link io.dimstream.db.apply.Step.DeleteLiveAt deletes of what is live at an instant} (a
 *       complete snapshot slice's absent keys, a source table's truncate), in arrival order. The
 *       {@link io.dimstream.db.apply.BatchApplier} does everything else once: the position's lock, the
 *       writer lock, the shape's evolution, the writer calls, the one retry that isolates values
 *       PostgreSQL refuses, the rejects with their SQL state, the position's advance, all in one
 *       transaction, and returns its counts as values ({@link io.dimstream.db.apply.Applied}).</li>
 *   <li><b>A source owns only its position.</b> {@link io.dimstream.db.apply.Position}: the sink's
 *       fenced offsets, a replay job's progress under its lease, or none for {@code load} (a re-run of
 *       a file is a no-op, so it needs none).</li>
 *   <li><b>Steps are made inside the transaction</b> ({@link io.dimstream.db.apply.Batch.Preparer}),
 *       after the shape evolved, so records typed for a shape are read with that shape, and a slice's
 *       completion is recorded and judged with the rows it judges.</li>
 *   <li><b>An erased key changes nothing.</b> A source names, with each new column of its
 *       {@link io.dimstream.db.apply.ShapeChange}, the events that carry it; the applier adds no column
 *       that only keys erased with a tombstone carry, and names a carrier that is not erased as its first
 *       source, before the writer drops those keys' events.</li>
 *   <li><b>Writers never recompute one key at once</b> ({@link io.dimstream.db.apply.WriterLock}):
 *       the sink's transactions share the table's writer lock, anything that crosses its partitions
 *       (a replay, a quarantine action, a {@code load} beside the service) takes it exclusive.</li>
 * </ul>
 * This package knows no Kafka: record bytes and topic positions reach it only as the sources'
 * {@link io.dimstream.db.sink.SinkReject}s and {@link io.dimstream.db.apply.Position}s.
 */
package io.dimstream.db.apply;
