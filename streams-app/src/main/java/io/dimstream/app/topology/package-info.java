/**
 * The Kafka Streams topology: per entity, decode and validate the source topic (bad records to
 * {@code <topic>.dlq} with their original bytes and reason headers), re-key by business key, drop
 * exact duplicates and classify each event (NEW, CHANGED, DELETED, UNCHANGED, LATE) against a
 * per-key state store, and emit {@link io.dimstream.app.change.ChangeRecord}s to
 * {@code dimstream.<entity>.changes} for the sink.
 *
 * <p>Entry points: {@link io.dimstream.app.topology.DimstreamTopology#build},
 * {@link io.dimstream.app.topology.StreamsConfigFactory#create},
 * {@link io.dimstream.app.topology.TopicPlanner#plan}, and
 * {@link io.dimstream.app.topology.EntityPipeline#fromConfig} to go from the config to pipelines.
 */
package io.dimstream.app.topology;
