/**
 * History retention: {@code history-retention} and {@code history-grain} (docs/semantics.md,
 * "Retention"), run by {@link io.dimstream.db.retention.HistoryRetainer} on the prune schedule.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>The prune point is the guard.</b> What retention deletes can no longer be recomputed
 *       from the event memory, so each key that lost a version gets the horizon as its prune point
 *       (the {@code pruned_to} of its oldest memory row, the lateness pruning's mechanism, DESIGN
 *       5b): the writer quarantines an event at or before it. The anchor is the key's latest
 *       remembered event at or before the horizon; memory rows before it go and the versions
 *       before it lose {@code event_seq}, exactly as a lateness pruning to that anchor would do, so
 *       the writer's region recompute of any event after the horizon starts from a complete
 *       timeline. The prune point recorded is the horizon itself (later than the anchor): the
 *       lateness pruning keeps a later prune point a key already has
 *       ({@code io.dimstream.db.write.MemorySql#prune}), and the writer records
 *       {@code last_pruned_at} in the same transaction so it reads prune points at all.</li>
 *   <li><b>Bounded transactions.</b> Keys are worked a batch at a time in key order (a keyset walk
 *       over the primary key, {@link io.dimstream.db.retention.RetentionSql}), each batch one
 *       transaction with the table's writer lock EXCLUSIVE ({@link io.dimstream.db.apply.WriterLock}),
 *       so neither the sink nor another writer recomputes a key while its history is cut, and
 *       {@code SET LOCAL dimstream.forget = 'on'} so the transaction-time trigger keeps nothing of
 *       it. The superseded table ({@code <table>_superseded}, when it exists: {@code to_regclass})
 *       is emptied of rows ended before the horizon in deletes of the same bound.</li>
 *   <li><b>The grain keeps as-of exact at its instants.</b> A version valid at no grain instant
 *       (1970-01-01T00:00Z + n x grain; {@code date_bin}) that ended before the grain horizon is
 *       deleted; the version before it is extended to the next one kept, so the rows valid at each
 *       grain instant are the same rows. Calendar grains (months, years) are refused at config
 *       time: their instants are not a fixed stride.</li>
 *   <li><b>Horizons from one clock.</b> A run computes H and G once from the database's
 *       {@code now()} on the UTC calendar ({@link io.dimstream.db.entity.IsoSpan#before}), so
 *       every batch of a run cuts at the same instant; the quarantine reason compares with the
 *       same arithmetic.</li>
 * </ul>
 */
package io.dimstream.db.retention;
