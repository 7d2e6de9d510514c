/**
 * The whole service, what {@code dimstream run} (and the demo, the benchmarks, the ITs) start:
 * {@link io.dimstream.app.service.DimstreamService#start} with a config and
 * {@link io.dimstream.app.service.ServiceOptions} (the config's {@code service:} section plus the
 * data directory and {@code --instance-id}). It wires the parts of the other packages and holds no
 * logic of its own; one entity's wiring is {@link io.dimstream.app.topology.EntityPipeline}.
 *
 * <p>Start order: (embedded broker,) PostgreSQL and its migrations, each entity's table created or
 * validated (with the columns added while running), the topics ({@link io.dimstream.app.service.TopicSetup}
 * creates what {@link io.dimstream.app.topology.TopicPlanner} plans and has the partition counts of
 * control-record entities checked; every topic is named after the application id, and
 * {@link io.dimstream.app.service.ChangesTopicUpgrade} queues, once, the replay a deployment whose
 * changes topics had another name before needs for what its sink had not applied of them), Kafka
 * Streams (a client per entity, each with its supervisor: {@link io.dimstream.app.service.EntityStreamsClients}), the sink, the memory pruning and history retention
 * ({@link io.dimstream.app.service.MemoryPruning}: a schedule over {@code MemoryPruner} and
 * {@code HistoryRetainer}, whose SQL is db's), the admin workers (replay, DLQ mirror, re-drive), the health monitor. A failing step
 * closes what started before it, in reverse order; {@code close()} does the same.
 *
 * <p>With {@code connectors:} the start first resolves the config: the tables found behind each
 * connector, new ones looked for once ({@link io.dimstream.app.connect.ConnectorDiscovery}), become
 * entities after the hand-declared ones. {@code run} starts a
 * {@link io.dimstream.app.service.SupervisedService}: the service plus the watch for new tables, a
 * table found restarting the service inside the process (the health and metrics endpoints follow it).
 *
 * <p>Catch-up for the demo, benchmarks and tests ({@code awaitCaughtUp}) is
 * {@link io.dimstream.app.sink.CatchUp}. No SQL here: the service reaches PostgreSQL only through
 * db's classes.
 */
package io.dimstream.app.service;
