/**
 * Kafka infrastructure of the service itself: {@link io.dimstream.app.kafka.EmbeddedKafka}, the
 * single-node KRaft broker started inside the JVM for {@code kafka.bootstrap-servers: embedded},
 * the demo and the integration tests (127.0.0.1 only; restartable on the same log directory);
 * {@link io.dimstream.app.kafka.KafkaClients}, where every Kafka client of dimstream (Kafka Streams,
 * the sink, topic creation, the replay and DLQ workers, the re-drive and snapshot producers) takes
 * its bootstrap servers and the {@code kafka.client:} settings (SASL/SSL), so they are written once;
 * {@link io.dimstream.app.kafka.KafkaReachability}, the one check whether a cluster answers and,
 * when it does not, why (unknown host, refused, no TCP answer, not answering as Kafka for these
 * settings, a Kafka error) and what to check, which {@link io.dimstream.app.kafka.KafkaWait} repeats
 * for the commands that use Kafka ({@code run}, {@code replay}, {@code publish-snapshot}).
 */
package io.dimstream.app.kafka;
