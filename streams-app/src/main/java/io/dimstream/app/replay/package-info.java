/**
 * The service's executors of admin actions kept in PostgreSQL (the admin UI and {@code dimstream
 * replay} only write rows; they never talk to Kafka). Started by
 * {@link io.dimstream.app.service.DimstreamService} for the entities it serves when
 * {@link io.dimstream.app.service.ServiceOptions#adminWorkers()} is on (the default).
 *
 * <ul>
 *   <li>{@link io.dimstream.app.replay.ReplayWorker}: claims replay jobs (each finished one counted
 *       in {@code dimstream.replay.jobs{entity,outcome}}, {@link io.dimstream.app.replay.ReplayWorker#metrics}):
 *       a QUEUED job (or a RUNNING one whose lease expired) under a lease renewed by heartbeat,
 *       released when this instance stops; {@link io.dimstream.app.replay.ReplayRun} runs one: stores
 *       the range (end offsets taken when the job first starts, so a resumed job keeps the same end),
 *       reads it with {@code assign()} (no consumer group), and hands each poll to the one apply
 *       pipeline ({@link io.dimstream.db.apply.BatchApplier}) as a batch
 *       ({@link io.dimstream.app.replay.ReplayPoll}: records decoded with the entity's own decoder,
 *       undecodable ones rejects, a Debezium truncate with {@code on-truncate: delete-all} a delete of
 *       what is live at its time over the whole target table, as the sink does per partition) whose
 *       position is the job's progress under its lease ({@link io.dimstream.app.replay.ReplayPosition}:
 *       a crash resumes exactly; a worker that lost its lease cannot commit; a cancel request ends the
 *       job there). Live target: batches take the table's {@link io.dimstream.db.apply.WriterLock}
 *       exclusive so they never recompute a key beside a sink batch; replayed events carry
 *       {@link io.dimstream.db.event.ArrivalSeq#ofReplay} seqs so they never win a same-time tie
 *       against what the table remembers. Shadow target: a fresh table made to hold the entity's shape
 *       at every batch (a column added while it runs is added to it), swapped in by
 *       {@link io.dimstream.db.jobs.ShadowTables#swap}, or, for a job submitted with {@code no_swap},
 *       left READY at its end offsets for a user to preview, swap or discard through
 *       {@link io.dimstream.db.jobs.ShadowPreviews}. A repair (a live job restricted to keys,
 *       {@link io.dimstream.db.jobs.ReplayKeys}) clears its keys' rows and memory first, then applies
 *       their events only.</li>
 *   <li>{@link io.dimstream.app.replay.ReplayMeters}: replay gauges (jobs by state; running jobs'
 *       events read, rows changed, lag) read from {@code dimstream.replay_jobs} every 10 s by a
 *       daemon thread, never on a scrape.</li>
 *   <li>{@link io.dimstream.app.replay.SnapshotReplay}: the slice side of a job of a {@code mode:
 *       snapshot} entity, called at three points (a marker taken out of the read
 *       records, the batch's reads noted, the batch's transaction; a shadow's slices are recorded by the swap). The rows
 *       are applied as any events; a slice complete in the range (every partition's marker read,
 *       none of its rows before the range's start: its first record on each partition read after
 *       another slice's marker, or the range starts at offset 0) is judged in the batch's
 *       transaction (a {@link io.dimstream.db.apply.Step.DeleteLiveAt} of the poll's batch), the same
 *       deletions by absence as {@code load --slice-at}, with every complete slice after it. A slice
 *       not whole in the range deletes nothing (its rows in the range still land). What a job read
 *       of each slice is {@link io.dimstream.db.jobs.ReplaySlices}, kept with the positions, so a
 *       resume is exact. Why not commit positions only at slice boundaries: slices span every
 *       partition, and a slice can be larger than a batch should be.</li>
 *   <li>{@link io.dimstream.app.replay.DlqMirror}: copies {@code <application-id>.<entity>.dlq}
 *       records into {@code dimstream.dlq_records} (own consumer group, idempotent insert, Kafka
 *       offsets committed after PostgreSQL); once at start, what it had not mirrored of a DLQ topic's
 *       former name, {@code <source topic>.dlq}.</li>
 *   <li>{@link io.dimstream.app.replay.RedriveExecutor}: produces re-drive requests back to the
 *       source topic (original key, value and headers minus {@code dimstream.*}), at least once.</li>
 * </ul>
 */
package io.dimstream.app.replay;
