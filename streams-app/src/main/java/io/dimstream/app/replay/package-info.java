/**
 * The service's executors of admin actions kept in PostgreSQL (the admin UI and {@code dimstream
 * replay} only write rows; they never talk to Kafka). Started by
 * {@link io.dimstream.app.service.DimstreamService} for the entities it serves when
 * {@link io.dimstream.app.service.ServiceOptions#adminWorkers()} is on (the default).
 *
 * <ul>
 *   <li>{@link io.dimstream.app.replay.ReplayWorker}: runs replay jobs (each finished one counted
 *       in {@code dimstream.replay.jobs{entity,outcome}}, {@link io.dimstream.app.replay.ReplayWorker#metrics}). Claims a QUEUED job (or a
 *       RUNNING one whose lease expired) under a lease renewed by heartbeat; stores the range
 *       (end offsets taken when the job first starts, so a resumed job keeps the same end); reads
 *       it with {@code assign()} (no consumer group); decodes with the entity's own decoder
 *       (undecodable records counted, not re-sent to the DLQ; a Debezium truncate with
 *       {@code on-truncate: delete-all} applied where it was read, over the whole target table,
 *       as the sink applies it per partition); applies each poll through the
 *       writer with the per-partition positions in the SAME transaction, under the job row's lock
 *       (a crash resumes exactly; a worker that lost its lease cannot commit). Live target:
 *       batches take {@link io.dimstream.db.jobs.WriterLock} so they never recompute a key beside a
 *       sink batch; replayed events carry {@link io.dimstream.db.event.ArrivalSeq#ofReplay} seqs so they never
 *       win a same-time tie against what the table remembers. Shadow target: a fresh table swapped
 *       in by {@link io.dimstream.db.jobs.ShadowTables#swap}. Cancel is honoured between batches. A
 *       repair (a live job restricted to keys, {@link io.dimstream.db.jobs.ReplayKeys}) clears its
 *       keys' rows and memory first, then applies their events only.</li>
 *   <li>{@link io.dimstream.app.replay.ReplayMeters}: replay gauges (jobs by state; running jobs'
 *       events read, rows changed, lag) read from {@code dimstream.replay_jobs} every 10 s by a
 *       daemon thread, never on a scrape.</li>
 *   <li>{@link io.dimstream.app.replay.DlqMirror}: copies {@code <topic>.dlq} records into
 *       {@code dimstream.dlq_records} (own consumer group, idempotent insert, Kafka offsets committed
 *       after PostgreSQL).</li>
 *   <li>{@link io.dimstream.app.replay.RedriveExecutor}: produces re-drive requests back to the
 *       source topic (original key, value and headers minus {@code dimstream.*}), at least once.</li>
 * </ul>
 */
package io.dimstream.app.replay;
