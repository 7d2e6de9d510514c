/**
 * The service's HTTP endpoint for operators: {@link io.dimstream.app.metrics.MetricsHttpServer}
 * (the Prometheus scrape at {@code /metrics} and the health endpoints). The meters themselves are
 * registered where they are measured: the sink's in {@link io.dimstream.app.sink.SinkMetrics}
 * (batch size, apply time, lag, rejects, quarantine, rows changed, events by class, Kafka client
 * metrics). This package reads the sink and the health model and is read by neither.
 */
package io.dimstream.app.metrics;
