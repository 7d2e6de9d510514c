/**
 * Kafka infrastructure of the service itself: {@link io.dimstream.app.kafka.EmbeddedKafka}, the
 * single-node KRaft broker started inside the JVM for {@code kafka.bootstrap-servers: embedded},
 * the demo and the integration tests (127.0.0.1 only; restartable on the same log directory).
 */
package io.dimstream.app.kafka;
