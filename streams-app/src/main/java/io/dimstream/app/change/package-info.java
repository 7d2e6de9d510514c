/**
 * The changes topic between the Kafka Streams topology and the PostgreSQL sink: one JSON record
 * per classified event, keyed by the business key so a key's events share a partition.
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
