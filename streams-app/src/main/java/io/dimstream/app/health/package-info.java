/**
 * The service's health for {@code /health/live} and {@code /health/ready}
 * ({@link io.dimstream.app.health.HealthMonitor}): the sink's thread and partitions, Kafka Streams'
 * state and its stream threads' deaths (the supervisor), PostgreSQL and the Kafka cluster probed on
 * a thread of their own. Served on the metrics port by {@code MetricsHttpServer}.
 */
package io.dimstream.app.health;
