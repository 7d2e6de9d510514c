/**
 * Micrometer meters of the service and their Prometheus scrape: {@link
 * io.dimstream.app.metrics.SinkMetrics} (batch size, apply time, lag, rejects, quarantine, rows
 * changed, events by class, Kafka client metrics) and {@link
 * io.dimstream.app.metrics.MetricsHttpServer} (the Prometheus scrape at {@code /metrics}).
 */
package io.dimstream.app.metrics;
