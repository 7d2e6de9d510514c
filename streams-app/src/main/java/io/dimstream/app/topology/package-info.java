/**
 * The Kafka Streams topology: per entity, decode and validate the source topic (bad records to
 * {@code <topic>.dlq} with their original bytes and reason headers), re-key by business key, drop
 * exact duplicates and classify each event (NEW, CHANGED, DELETED, UNCHANGED, LATE) against a
 * per-key state store, and emit {@link io.dimstream.app.change.ChangeRecord}s to
 * {@code dimstream.<entity>.changes} for the sink.
 *
 * <p>Cost per event, where it matters: the decode step writes the change record's JSON once,
 * without its class ({@link io.dimstream.app.topology.PendingChange}); the classify step reads
 * only the binary header (event time, hash, fingerprint) and splices the class into the JSON,
 * never parsing it. The key-state store is cached (one changelog record per key and commit) and
 * its RocksDB memory is bounded for the whole process ({@link io.dimstream.app.topology.BoundedRocksDbConfig}).
 *
 * <p>Snapshot feeds ({@code mode: snapshot}): end-of-slice markers are checked by the decode step
 * (bad ones to the DLQ), multicast to every classify task by the repartition step
 * ({@link io.dimstream.app.topology.SlicePartitioners}), counted per source partition in the store
 * {@code <entity>-slice-ends} ({@link io.dimstream.app.topology.SliceBarrier}) and, once every
 * source partition's marker has passed a task, emitted once to that task's changes partition. The
 * barrier makes the order exact whatever partition the producer put each row on: every row of the
 * slice a task will see came from some source partition before that partition's marker.
 *
 * <p>Entry points: {@link io.dimstream.app.topology.DimstreamTopology#build},
 * {@link io.dimstream.app.topology.StreamsConfigFactory#create},
 * {@link io.dimstream.app.topology.TopicPlanner#plan}, and
 * {@link io.dimstream.app.topology.EntityPipeline#fromConfig} to go from the config to pipelines.
 */
package io.dimstream.app.topology;
