/**
 * The streaming sink: a {@code read_committed} consumer of the changes topics that applies each
 * partition's batch to the SCD2 tables in one PostgreSQL transaction with that partition's offset
 * ({@code dimstream.sink_offsets}), fenced so an instance that lost a partition cannot commit a
 * stale batch; unusable records go to {@code dimstream.sink_rejects}. Entry point: {@link
 * io.dimstream.app.sink.ChangeSink}; settings: {@link io.dimstream.app.sink.SinkSettings}; topic
 * names: {@link io.dimstream.app.change.ChangeTopics}.
 */
package io.dimstream.app.sink;
