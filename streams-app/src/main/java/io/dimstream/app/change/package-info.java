/**
 * The changes topic between the Kafka Streams topology and the PostgreSQL sink: one JSON record
 * per classified event, keyed by the business key so a key's events share a partition.
 *
 * <p>The record carries the event in the typed form ({@link io.dimstream.app.change.ChangeCodec},
 * over {@code io.dimstream.db.event.TypedEventCodec}): the values as the topology's validator typed
 * them, the tracked hash, the entity's shape. The sink reads it straight into a
 * {@code TypedEvent} and applies it without a second validation or hash; typed records of another
 * shape of the entity (a column added in between) are validated by the sink again; a record without
 * the typed form is refused to the rejects. The {@code class} the topology gives each change is what the writer's own
 * classification in SQL (DESIGN section 2) is compared with: the writer counts classes per batch,
 * so the sink compares counts per class and exports the difference
 * ({@code dimstream_sink_class_disagreements_total}, {@code io.dimstream.app.sink.ClassDisagreement}).
 *
 * <p>Snapshot feeds add one control record, {@link io.dimstream.app.change.SliceMarker} (header
 * {@code dimstream.control=end-of-slice}, JSON value), used on the source topic and on the changes
 * topic alike. Entities with {@code on-truncate: delete-all} add another,
 * {@link io.dimstream.app.change.TruncateMarker} ({@code dimstream.control=truncate}), made by the
 * topology from a Debezium truncate and found only on the changes topic. {@link io.dimstream.app.change.ChangesPartitioner} is Kafka's key partitioning,
 * written once: the topology places a snapshot entity's keys with it and the sink asks it which keys
 * belong to the partition whose slice just ended, so the two cannot disagree. That is how "the keys
 * of a partition" is known exactly without storing it: the sink reads the candidate keys from
 * PostgreSQL and computes murmur2 over the same key bytes ({@link io.dimstream.app.change.ChangeCodec#key}).
 */
package io.dimstream.app.change;
