/**
 * The Kafka Streams topology: per entity, decode and validate the source topic (bad records to
 * {@code <application-id>.<entity>.dlq} with their original bytes and reason headers), re-key by
 * business key, drop exact duplicates and classify each event (NEW, CHANGED, DELETED, UNCHANGED,
 * LATE) against a per-key state store, and emit {@link io.dimstream.app.change.ChangeRecord}s to
 * {@code <application-id>.<entity>.changes} for the sink.
 *
 * <p>Every topic the topology writes besides the source's begins with the deployment's application
 * id: the changes and DLQ topics ({@link io.dimstream.app.change.ChangeTopics},
 * {@link io.dimstream.app.topology.EntityPipeline#dlqTopicOf}) as Kafka Streams' own repartition and
 * changelog topics do ({@link io.dimstream.app.topology.DimstreamTopology#repartitionTopic}): the service
 * runs each entity on a Kafka Streams client of its own, whose application id is
 * {@code <application-id>.<entity>} ({@link io.dimstream.app.topology.DimstreamTopology#streamsApplicationId}),
 * so that one entity's outage (a schema registry that does not answer) holds no other entity's
 * tasks. Two deployments on one cluster with entities of the same name (staging and production with
 * one config) so share nothing but the source topics they both read.
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
 * <p>Debezium truncates with {@code on-truncate: delete-all}: the decode step turns one into a
 * {@link io.dimstream.app.change.TruncateMarker}, which takes the same way without a barrier (one
 * source partition carries it): multicast to every classify task, each writing it for its own
 * changes partition after the changes before it; without the repartition step
 * ({@code partitioned-by-key: true}) the one task that reads it writes it for every changes
 * partition ({@link io.dimstream.app.topology.SlicePartitioners}). Ignored truncates and Debezium
 * message events are counted (classes {@code truncate}, {@code message}) and dropped, never
 * dead-lettered.
 * A field the source starts sending that the entity does not declare never dead-letters its record
 * by default: the decode step makes it a column of its task's spec ({@code new-columns}, named in the
 * change record for the sink to add) or, when the decoder dropped it or no column may take its name,
 * counts it in {@code dimstream.fields.ignored} and logs it once ({@link io.dimstream.app.topology.IgnoredFields});
 * only {@code undeclared-columns: reject} leaves it for the validator to refuse.
 *
 * <p>Failures (DESIGN section 6: no record can stop or loop a stream thread): the decode step
 * dead-letters what it can judge itself (bad bytes, invalid events, a change that cannot be built,
 * a change over the size limit of {@link io.dimstream.app.topology.RecordLimits}, which it checks
 * before sending because with exactly-once a refused send aborts the whole transaction), cutting a
 * DLQ copy to fit ({@link io.dimstream.app.topology.DeadLetters}). Behind it,
 * {@link io.dimstream.app.topology.DeadLetterProcessingHandler} dead-letters any record a step throws
 * for and {@link io.dimstream.app.topology.DeadLetterProductionHandler} any record a send is refused
 * for; both route through {@link io.dimstream.app.topology.DeadLetterRoutes}, which
 * {@link io.dimstream.app.topology.StreamsConfigFactory#create} puts in the Streams config. Failures
 * that say nothing about the record ({@link io.dimstream.app.topology.TransientFailures}: the schema
 * registry away, Kafka timeouts) are not dead-lettered: the thread fails, and
 * {@link io.dimstream.app.topology.StreamThreadSupervisor} replaces it with backoff (any other cause
 * stops the client), counting and exposing what happened for health checks.
 *
 * <p>Entry points: {@link io.dimstream.app.topology.DimstreamTopology#build},
 * {@link io.dimstream.app.topology.StreamsConfigFactory#create},
 * {@link io.dimstream.app.topology.StreamThreadSupervisor} (the stream threads' uncaught exception handler),
 * {@link io.dimstream.app.topology.TopicPlanner} (the topics dimstream creates, and which partition
 * counts must agree: pure planning, the service makes the Admin calls), and
 * {@link io.dimstream.app.topology.EntityPipeline#fromConfig} to go from the config to pipelines.
 */
package io.dimstream.app.topology;
