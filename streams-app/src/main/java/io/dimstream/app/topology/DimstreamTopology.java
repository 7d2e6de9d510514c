package io.dimstream.app.topology;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The dimstream topology (DESIGN section 2), per entity:
 * <pre>
 * source topic (bytes) --[E-decode: decode + validate]--+-- bad --[E-dlq]--> &lt;app-id&gt;.E.dlq (original bytes + dimstream.* headers)
 *                                                       +-- valid, re-keyed by business key
 *   --[E-by-key: repartition]--> [E-classify: dedup + classify, store E-key-state] --[E-changes]--> &lt;app-id&gt;.E.changes
 * </pre>
 * The explicit repartition makes every event of a key meet in one task, whatever the source topic's
 * key. With {@code partitioned-by-key: true} the producers already guarantee that (every event of a
 * key on one source partition), so the step is skipped: one Kafka transaction less on the way, the
 * lowest latency. Were the promise broken, the table would still hold every event in its place (the
 * sink re-checks every change against PostgreSQL and places out-of-order events), but same-time ties
 * would go by arrival in the changes topic, and the topology's dedup and class counts would be off. A snapshot entity's end-of-slice markers take the same way: multicast to every classify task,
 * counted there until every source partition has delivered its marker, then one marker per changes
 * partition ({@link SlicePartitioners}, {@link ClassifyProcessor}); store {@code E-slice-ends}. With
 * {@code on-truncate: delete-all} a Debezium truncate takes the same way as a
 * {@link io.dimstream.app.change.TruncateMarker}: multicast to every classify task (no barrier: one
 * source partition carries it), each task writing one to its own changes partition; without the
 * repartition step the one task that reads it writes one that the changes partitioner sends to every
 * changes partition. Processor, store and internal topic names derive from the entity name, so they are stable
 * across releases: {@code <application.id>-E-by-key-repartition}, {@code <application.id>-E-key-state-changelog}.
 * The service runs each entity's topology on a Kafka Streams client of its own, whose application id is
 * {@link #streamsApplicationId} (so {@code <application-id>.E-E-by-key-repartition}); {@link #build} takes
 * several pipelines only for tests and tools that want one client for all.
 */
public final class DimstreamTopology {

    private static final Serde<byte[]> BYTES = Serdes.ByteArray();

    private DimstreamTopology() {
    }

    /**
     * @param pipelines one per entity; entity names and source topics must be distinct
     * @param metrics   receives {@code dimstream.events} counters tagged entity and class
     */
    public static Topology build(List<EntityPipeline> pipelines, MeterRegistry metrics) {
        if (pipelines.isEmpty()) {
            throw new IllegalArgumentException("no entity to process: at least one pipeline is required");
        }
        Set<String> names = new HashSet<>();
        Set<String> topics = new HashSet<>();
        StreamsBuilder builder = new StreamsBuilder();
        for (EntityPipeline p : pipelines) {
            if (!names.add(p.entity().name())) {
                throw new IllegalArgumentException("entity \"" + p.entity().name() + "\" has two pipelines");
            }
            if (!topics.add(p.sourceTopic())) {
                throw new IllegalArgumentException("entity \"" + p.entity().name() + "\": topic \"" + p.sourceTopic()
                        + "\" is already the source of another entity (one entity per source topic)");
            }
            add(builder, p, new EventCounters(metrics, p.entity().name()), new IgnoredFields(metrics, p.entity().name()));
        }
        return builder.build();
    }

    /**
     * The Kafka Streams application id of a client in deployment {@code deploymentId}:
     * {@code <application-id>.<streams-client>}, where a client is named after its entity unless
     * entities share one ({@link EntityPipeline#streamsClient}); like the entity's changes and DLQ
     * topics. It names the client's consumer group, its internal topics ({@link #repartitionTopic})
     * and its state directory.
     */
    public static String streamsApplicationId(String deploymentId, String streamsClient) {
        return deploymentId + "." + streamsClient;
    }

    /** The name of the store holding each key's {@link KeyState} for an entity. */
    public static String storeName(String entityName) {
        return entityName + "-key-state";
    }

    /** The name of the store of a snapshot entity's slices awaiting their end ({@link SliceBarrier}). */
    public static String sliceStoreName(String entityName) {
        return entityName + "-slice-ends";
    }

    /** The name of the repartition step; its topic is {@code <application.id>-<this>-repartition}. */
    public static String repartitionName(String entityName) {
        return entityName + "-by-key";
    }

    /**
     * The repartition topic Kafka Streams makes for an entity on a client of application id
     * {@code applicationId} ({@link #streamsApplicationId} in the service):
     * {@code <application.id>-<entity>-by-key-repartition}.
     */
    public static String repartitionTopic(String applicationId, String entityName) {
        return applicationId + "-" + repartitionName(entityName) + "-repartition";
    }

    private static void add(StreamsBuilder builder, EntityPipeline p, EventCounters counters, IgnoredFields ignored) {
        String e = p.entity().name();
        String store = storeName(e);
        // Caching built in but sized 0 by default (StreamsConfigFactory: it cost more CPU than it
        // saved for change feeds); with kafka.streams.statestore.cache.max.bytes > 0 a key's store
        // writes within one commit interval reach the changelog as one record.
        StoreBuilder<KeyValueStore<byte[], byte[]>> storeBuilder = Stores
                .keyValueStoreBuilder(Stores.persistentKeyValueStore(store), BYTES, BYTES)
                .withCachingEnabled();
        builder.addStateStore(storeBuilder);
        String sliceStore = p.snapshot() ? sliceStoreName(e) : null;
        if (sliceStore != null) {
            builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(sliceStore), BYTES, BYTES));
        }

        Map<String, KStream<byte[], DecodeOutput>> routes = builder
                .stream(p.sourceTopic(), Consumed.with(BYTES, BYTES).withName(e + "-source"))
                .process(() -> new DecodeProcessor(p, counters, ignored), Named.as(e + "-decode"))
                .split(Named.as(e + "-route-"))
                .branch((key, out) -> out instanceof DecodeOutput.ToClassify, Branched.as("valid"))
                .defaultBranch(Branched.as("rejected"));

        routes.get(e + "-route-rejected")
                .mapValues(DecodeOutput::bytes, Named.as(e + "-dlq-value"))
                .to(p.dlqTopic(), Produced.with(BYTES, BYTES).withName(e + "-dlq"));

        Repartitioned<byte[], byte[]> byKey = Repartitioned.with(BYTES, BYTES).withName(repartitionName(e));
        Produced<byte[], byte[]> toChanges = Produced.with(BYTES, BYTES).withName(e + "-changes");
        String[] stores = {store};
        if (p.carriesControlRecords()) {
            byKey = byKey.withStreamPartitioner(SlicePartitioners.repartition());
            toChanges = toChanges.withStreamPartitioner(SlicePartitioners.changes());
        }
        if (p.snapshot()) {
            stores = new String[] {store, sliceStore};
        }
        KStream<byte[], byte[]> valid = routes.get(e + "-route-valid").mapValues(DecodeOutput::bytes, Named.as(e + "-pending"));
        if (!p.partitionedByKey()) {
            valid = valid.repartition(byKey);
        }
        boolean repartitioned = !p.partitionedByKey();
        valid.process(() -> new ClassifyProcessor(store, sliceStore, repartitioned, counters), Named.as(e + "-classify"), stores)
                .to(p.changesTopic(), toChanges);
    }
}
