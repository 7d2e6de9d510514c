package io.dimstream.app.health;

import io.dimstream.app.topology.StreamThreadSupervisor;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What the health endpoints read of one entity's Kafka Streams client (every entity runs on a
 * client of its own): its state and what its stream threads' supervisor saw.
 *
 * @param entity  the entity's name
 * @param state   the client's state
 * @param threads its stream threads' deaths
 */
public record EntityStreamsState(String entity, KafkaStreams.State state, StreamThreadSupervisor.Health threads) {
}
