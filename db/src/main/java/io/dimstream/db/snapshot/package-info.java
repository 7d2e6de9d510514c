/**
 * Snapshot feeds ({@code mode: snapshot}), database side: the complete slices per entity and
 * changes-topic partition ({@code dimstream.snapshot_slices}, migration V005) and the keys a
 * complete slice judges absent.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>Absence is a delete event.</b> A key live at a complete slice's instant {@code t} that
 *       the slice did not carry gets a delete event at {@code t}, applied through the ordinary
 *       {@link io.dimstream.db.write.Scd2Writer}: placement (in order or late), the event memory,
 *       idempotence and the lateness horizon are the writer's, nothing is special-cased.</li>
 *   <li><b>"Did not carry" = no remembered event at exactly {@code t}.</b> Slice records are
 *       upserts at {@code t}, so the event memory ({@code <table>_events}) already tells which keys
 *       a slice carried; a key deleted there earlier has its delete remembered, so judging a slice
 *       again (a re-delivered marker, a reload) finds nothing. Keys whose memory is pruned at or past
 *       {@code t} are not judged (their events there are forgotten; an event there would be
 *       quarantined anyway).</li>
 *   <li><b>Re-judging later slices.</b> An older slice completed after newer ones can make a key
 *       live at a newer slice's instant that that slice did not carry (the key was in the old slice
 *       only). So completing slice {@code t} judges {@code t} and then every complete slice after it,
 *       in order; each judgement sees the deletes of the one before. The result equals loading the
 *       slices in time order.</li>
 *   <li><b>Late rows and changes.</b> A slice's row reaching the sink after the slice completed on
 *       its partition makes the sink judge the complete slices after it for the row's key
 *       ({@link io.dimstream.db.snapshot.SnapshotSlices#completeAmong},
 *       {@link io.dimstream.db.snapshot.SnapshotSlices#completeAfter}, {@code LateSliceRows}); a
 *       change {@code load}ed into a snapshot entity is judged by the slices loaded after it
 *       ({@link io.dimstream.db.snapshot.SnapshotSlices#loadedAfter}, {@code LoadedSlicesAfter}).
 *       A loaded change before slices a feed completed is not judged until a slice is judged again
 *       ({@code load} cannot tell a key's partition; docs/formats.md says so).</li>
 *   <li><b>Which partition a key belongs to</b> is not stored: the caller (the sink) computes it
 *       with the changes topic's partitioner for the candidate keys this class returns.</li>
 *   <li><b>Slices loaded without Kafka</b> ({@code dimstream load --slice-at}) are recorded under
 *       partition {@link io.dimstream.db.snapshot.SnapshotSlices#LOADED} (-1): complete for every
 *       key. A load judges every later slice, whatever its partition, for every key
 *       ({@link io.dimstream.db.snapshot.SnapshotSlices#completeLoaded}); the sink's
 *       {@link io.dimstream.db.snapshot.SnapshotSlices#complete} includes loaded slices, so a feed's
 *       older slice re-judges them for its own partition's keys. A load's deletes lose every tie
 *       ({@code ArrivalSeq.LOADED_ABSENCE}), so a feed slice still being published when an older
 *       slice is loaded gets its rows back as they arrive.</li>
 *   <li><b>Replays of a snapshot topic</b> ({@code io.dimstream.app.replay.SnapshotReplay}) judge a
 *       slice complete in their range like a loaded one: for every key, with
 *       {@code ArrivalSeq.LOADED_ABSENCE} deletes; a live job records it under {@link
 *       io.dimstream.db.snapshot.SnapshotSlices#LOADED} as it judges it, a shadow job in the swap's
 *       transaction (before it, the recorded slices describe the live table, which the shadow's
 *       judgements did not touch).</li>
 *   <li><b>Truncates are empty slices.</b> A Debezium truncate with {@code on-truncate: delete-all}
 *       deletes what a slice with no rows at its time would: the sink and replays use
 *       {@link io.dimstream.db.snapshot.SnapshotSlices#forEachLiveWithoutEventAt} for it, but record
 *       nothing in {@code dimstream.snapshot_slices} (a truncate only deletes, so no later judgement
 *       depends on it, and judging it again finds its deletes remembered).</li>
 * </ul>
 */
package io.dimstream.db.snapshot;
