package io.dimstream.app.topology;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where the exception handlers send a record they dead-letter: for every topic the topology reads or
 * writes (an entity's source, repartition, changes and DLQ topics), the entity and its DLQ topic, and
 * the entity's event counters (a dead-lettered record counts as {@code dlq}, as in the decode step, so
 * every source record is counted once whatever refused it).
 *
 * <p>Kafka Streams creates its exception handlers by class name and hands them the Streams config
 * ({@code configure}); {@link StreamsConfigFactory} puts one instance of this class there under
 * {@value #CONFIG}, the only way to give a handler objects of the running application.
 */
final class DeadLetterRoutes {

    /** The Streams config key holding the instance (not a Kafka setting: Kafka Streams passes it through). */
    static final String CONFIG = "dimstream.dead-letter.routes";

    /** One entity's way to its DLQ. */
    record Route(String entity, String dlqTopic, EventCounters counters) {
    }

    private final Map<String, Route> byTopic;

    private DeadLetterRoutes(Map<String, Route> byTopic) {
        this.byTopic = Map.copyOf(byTopic);
    }

    static DeadLetterRoutes of(String applicationId, List<EntityPipeline> pipelines, MeterRegistry registry) {
        Map<String, Route> byTopic = new HashMap<>();
        for (EntityPipeline p : pipelines) {
            Route route = new Route(p.entity().name(), p.dlqTopic(), new EventCounters(registry, p.entity().name()));
            byTopic.put(p.sourceTopic(), route);
            byTopic.put(DimstreamTopology.repartitionTopic(applicationId, p.entity().name()), route);
            byTopic.put(p.changesTopic(), route);
            byTopic.put(p.dlqTopic(), route);
        }
        return new DeadLetterRoutes(byTopic);
    }

    /** The instance {@link StreamsConfigFactory} put in the config a handler was configured with. */
    static DeadLetterRoutes from(Map<String, ?> configs) {
        Object routes = configs.get(CONFIG);
        if (!(routes instanceof DeadLetterRoutes r)) {
            throw new ConfigException(CONFIG, routes, "dimstream's exception handlers need the dead-letter routes "
                    + "StreamsConfigFactory.create puts in the Streams config");
        }
        return r;
    }

    /** The route of an entity's source, repartition, changes or DLQ topic. */
    Optional<Route> forTopic(String topic) {
        return Optional.ofNullable(topic == null ? null : byTopic.get(topic));
    }

    @Override
    public String toString() {
        return "DeadLetterRoutes" + byTopic.keySet();
    }
}
