/**
 * The service's HTTP endpoint for operators: {@link io.dimstream.app.metrics.MetricsHttpServer}
 * (the Prometheus scrape at {@code /metrics} and the health endpoints). The meters themselves are
 * registered where they are measured: the sink's in {@link io.dimstream.app.sink.SinkMetrics}
 * (batch size, apply time, lag, rejects, quarantine, rows changed, events by class, Kafka client
 * metrics), the topology's {@code dimstream.events} ({@code EventCounters}), {@code dimstream.fields.ignored}
 * ({@code IgnoredFields}) and stream-thread
 * failures, the replay worker's {@code dimstream.replay.jobs}, and, bound by
 * {@code DimstreamService}, the health gauges {@code dimstream.health.ready}/{@code .live}, the
 * JVM's binders and Kafka Streams' own metrics. This package reads the sink and the health model
 * and is read by neither.
 *
 * <p>The Grafana dashboard and Prometheus alert rules built on these names live in
 * {@code deploy/grafana/} and {@code deploy/prometheus/}; {@code MonitoringFilesIT} (tests of this
 * package) fails when either names a metric a real scrape of the running service lacks, so
 * renaming a meter means updating them (docs/operations.md, "Monitoring").
 */
package io.dimstream.app.metrics;
