package io.dimstream.app.service;

import io.dimstream.app.health.StreamsClientState;
import io.dimstream.app.topology.DimstreamTopology;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.app.topology.StreamThreadSupervisor;
import io.dimstream.app.topology.StreamsConfigFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every entity on a Kafka Streams client of its own: what keeps one entity's outage from delaying
 * another. A stream thread runs its tasks one after the other, so on one shared client a record
 * whose decode waits (a schema registry that answers 500 or hangs, asked again with backoff for up
 * to 20 s, then the thread replaced) held every other entity's tasks on that thread too: a JSON
 * event of another entity took 66 s to land during a 40 s registry outage. Each client here has its
 * own application id ({@link DimstreamTopology#streamsApplicationId}, hence its own consumer group,
 * internal topics and state directory), its own stream thread and producer, and its own
 * {@link StreamThreadSupervisor}, so a registry outage pauses exactly the entities that need the
 * registry for their records, and the others keep their latency ({@code EntityIsolationIT}).
 *
 * <p>What it costs, per entity, on top of one shared client: the threads of a client (its stream
 * thread, the consumer's heartbeat thread, the producer's sender, the admin client's thread and the
 * state cleaner: docs/operations.md gives the count measured), a consumer group on the broker, and a
 * producer and consumer with their buffers (the producer's 32 MiB {@code buffer.memory} is a bound,
 * filled only by what is in flight). RocksDB's memory is bounded for the whole process whatever the
 * number of clients ({@code BoundedRocksDbConfig}). Kafka Streams settings ({@code kafka.streams:},
 * {@code kafka.client:}) apply to every client; {@code num.stream.threads} is per entity.
 */
final class EntityStreamsClients implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EntityStreamsClients.class);

    /** One client, the entities it runs, its meters and the supervisor of its threads. */
    record Client(String name, List<String> entities, KafkaStreams streams, KafkaStreamsMetrics metrics, StreamThreadSupervisor supervisor) {
        StreamsClientState state() {
            return new StreamsClientState(name, entities, streams.state(), supervisor.health());
        }
    }

    private final List<Client> clients;
    private final CloseOptions closeOptions;

    private EntityStreamsClients(List<Client> clients, CloseOptions closeOptions) {
        this.clients = List.copyOf(clients);
        this.closeOptions = closeOptions;
    }

    /**
     * The pipelines by the client they run on ({@link EntityPipeline#streamsClient}), in the order
     * each client's first entity comes in.
     */
    static Map<String, List<EntityPipeline>> byClient(List<EntityPipeline> pipelines) {
        Map<String, List<EntityPipeline>> by = new LinkedHashMap<>();
        pipelines.forEach(p -> by.computeIfAbsent(p.streamsClient(), c -> new ArrayList<>()).add(p));
        return by;
    }

    /**
     * A client per {@code streams-client} name (per entity unless entities share one), each
     * started; when one cannot be made or started, those made are closed.
     *
     * @param deploymentId the deployment's application id; each client's is derived from it and the client's name
     * @param stateDir     the parent of the clients' state directories (Kafka Streams puts each under its application id)
     * @param overrides    Kafka Streams settings applied last to every client ({@link StreamsConfigFactory#create})
     */
    static EntityStreamsClients start(String deploymentId, String bootstrap, Path stateDir, List<EntityPipeline> pipelines,
            MeterRegistry registry, Map<String, Object> overrides, CloseOptions closeOptions) {
        List<Client> made = new ArrayList<>();
        try {
            for (Map.Entry<String, List<EntityPipeline>> c : byClient(pipelines).entrySet()) {
                String applicationId = DimstreamTopology.streamsApplicationId(deploymentId, c.getKey());
                Properties props = StreamsConfigFactory.create(applicationId, bootstrap, stateDir, c.getValue(), registry, overrides);
                KafkaStreams streams = new KafkaStreams(DimstreamTopology.build(c.getValue(), registry), props);
                // transient causes: replaced with backoff; anything else: the client stops (health names it)
                StreamThreadSupervisor supervisor = new StreamThreadSupervisor(registry, c.getKey());
                streams.setUncaughtExceptionHandler(supervisor);
                KafkaStreamsMetrics metrics = new KafkaStreamsMetrics(streams);
                metrics.bindTo(registry);
                made.add(new Client(c.getKey(), c.getValue().stream().map(p -> p.entity().name()).toList(), streams, metrics, supervisor));
            }
            made.forEach(c -> c.streams().start());
        } catch (RuntimeException e) {
            new EntityStreamsClients(made, closeOptions).close();
            throw e;
        }
        return new EntityStreamsClients(made, closeOptions);
    }

    /** Each client as the health endpoints read it. */
    List<StreamsClientState> states() {
        return clients.stream().map(Client::state).toList();
    }

    /**
     * Closes every client at once (each waits up to the close options' timeout for its last commit),
     * then unbinds their meters: closing them one after the other would make a stop take the sum.
     */
    @Override
    public void close() {
        // a thread each (not the common pool, which has one thread on two cores)
        List<Thread> closing = clients.stream().map(c -> new Thread(() -> closeClient(c), "dimstream-close-" + c.name())).toList();
        closing.forEach(Thread::start);
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void closeClient(Client c) {
        try {
            c.streams().close(closeOptions);
        } catch (RuntimeException e) {
            LOG.warn("closing the Kafka Streams client {} failed: {}", c.name(), e.getMessage(), e);
        }
        c.metrics().close();
    }
}
