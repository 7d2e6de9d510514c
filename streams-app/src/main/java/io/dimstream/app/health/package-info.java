/**
 * The service's health for {@code /health/live} and {@code /health/ready}
 * ({@link io.dimstream.app.health.HealthMonitor}): the sink's thread and partitions, each entity's
 * Kafka Streams client's state and its stream threads' deaths (its supervisor; the check names the
 * entities that are down), PostgreSQL and the Kafka cluster probed on
 * a thread of their own. Served on the metrics port by {@code MetricsHttpServer}.
 */
package io.dimstream.app.health;
