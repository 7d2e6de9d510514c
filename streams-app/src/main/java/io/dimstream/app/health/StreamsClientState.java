package io.dimstream.app.health;

import io.dimstream.app.topology.StreamThreadSupervisor;
import java.util.List;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What the health endpoints read of one Kafka Streams client: its state and what its stream
 * threads' supervisor saw. Each entity runs on a client of its own unless entities name a shared
 * one ({@code streams-client}; a connector's tables share the connector's).
 *
 * @param client   the client's name ({@code streams-client}: the entity's name unless set)
 * @param entities the entities it runs
 * @param state    the client's state
 * @param threads  its stream threads' deaths
 */
public record StreamsClientState(String client, List<String> entities, KafkaStreams.State state, StreamThreadSupervisor.Health threads) {

    /** How many of a shared client's entities its label names before {@code +N more}. */
    private static final int NAMED = 3;

    public StreamsClientState {
        entities = List.copyOf(entities);
    }

    /**
     * The client as health details name it: its name alone when it runs the entity of that name
     * only, else with the entities it runs ({@code crm (customers, orders, payments, +12 more)}).
     */
    public String label() {
        if (entities.equals(List.of(client))) {
            return client;
        }
        String named = String.join(", ", entities.subList(0, Math.min(NAMED, entities.size())));
        return client + " (" + named + (entities.size() > NAMED ? ", +" + (entities.size() - NAMED) + " more" : "") + ")";
    }
}
