/**
 * Admin actions kept as rows in PostgreSQL, which the running service executes: the admin UI and
 * the CLI only ever talk to PostgreSQL, never to Kafka.
 *
 * <ul>
 *   <li>{@link io.dimstream.db.jobs.ReplayJobs}: replay jobs ({@code dimstream.replay_jobs}) and
 *       their per-partition progress ({@code dimstream.replay_progress}). Submit, list, find,
 *       cancel; the worker claims a job with {@code FOR UPDATE SKIP LOCKED} under a lease renewed
 *       by heartbeat, locks the job row at the start of every batch transaction (so a worker that
 *       lost its lease cannot commit), and writes positions in the same transaction as the rows.
 *       The range's end offsets are stored when the job starts, so a resumed job keeps its end.</li>
 *   <li>{@link io.dimstream.db.jobs.ReplayKeys}: a repair's keys (a list, or a prefix of a text
 *       key), stored with the job ({@code key_filter}); the clear of their rows and memory that
 *       precedes their rebuild from the range, and the match of a decoded event against them.</li>
 *   <li>{@link io.dimstream.db.jobs.ReplaySlices}: for a job of a {@code mode: snapshot} entity,
 *       what it read of each slice per source partition ({@code dimstream.replay_slices}, V012:
 *       whether its first record there was read after a boundary, its marker's offset), written
 *       in the batch transaction with the positions so a resumed job judges the same slices.</li>
 *   <li>{@link io.dimstream.db.jobs.ShadowTables}: a shadow job's fresh table and event memory,
 *       and the atomic swap: lock the live table, bring both tables to the entity's columns now
 *       (the catalog), merge the live memory into the shadow through the writer, then exchange
 *       CONTENTS ({@code ContentExchange}: the replaced rows copied to {@code <table>_replaced_<job>},
 *       the live table truncated and filled from the shadow by column name), so the live table keeps
 *       its identity and users' views (dbt view models), grants and comments on it and on
 *       {@code <table>_current} see the new rows. Only a rebuild that changes the partitioning
 *       renames the shadow in ({@code LayoutChange}, users' views made again over it from their
 *       definitions, grants and comments carried). The event memory, internal, is swapped by
 *       renaming ({@code TableRenames}: indexes, constraints, partitions along). A swap that cannot
 *       be made is refused ({@code SwapRefused}) with what to do.</li>
 *   <li>{@link io.dimstream.db.jobs.ShadowPreviews}: a previewed rebuild. A shadow job submitted
 *       with {@code no_swap} stops READY (V010); its preview merges the live events the shadow
 *       lacks exactly as the swap would, compares with {@link io.dimstream.db.read.ShadowDiff},
 *       and rolls the merge back; swap (the same {@code ShadowTables.swap}, under the job row's
 *       lock, SUCCEEDED) and discard (shadow dropped, CANCELLED) refuse a job that is not READY and
 *       are audited ({@code replay.swap}, {@code replay.discard}) in their transaction.</li>
 *   <li>{@link io.dimstream.db.jobs.QuarantineActions}: apply a quarantined event anyway (the
 *       horizon lifted for that event; refused when it is at or before its key's prune point, as
 *       it could not be placed exactly) or discard it.</li>
 *   <li>{@link io.dimstream.db.jobs.DlqRecords}: the mirror of the dead-letter topics and re-drive
 *       requests; pages for the admin cut keys, values and headers to a preview in SQL, and one
 *       record's whole key or value is read on its own.</li>
 *   <li>{@link io.dimstream.db.jobs.AuditLog}: {@code dimstream.admin_audit}, written in the same
 *       transaction as each action, with the user (the integrity runs of
 *       {@code io.dimstream.db.status.IntegrityRuns} too); read newest first, filtered by user and
 *       action prefix.</li>
 * </ul>
 */
package io.dimstream.db.jobs;
