package io.dimstream.app.service;

import io.dimstream.app.connect.ConnectorDiscovery;
import io.dimstream.app.health.HealthMonitor;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.sink.CatchUp;
import io.dimstream.app.sink.ChangeSink;
import io.dimstream.app.sink.SinkMetrics;
import io.dimstream.app.sink.SinkSettings;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.app.topology.StreamsConfigFactory;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.retention.HistoryRetainer;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.write.MemoryPruner;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running dimstream instance: (an embedded broker,) (an embedded PostgreSQL,) the Kafka
 * Streams topology of every entity, the PostgreSQL sink, the periodic memory pruning and (unless
 * {@link ServiceOptions#adminWorkers()} is off) the executors of admin actions kept in
 * PostgreSQL: the replay worker, the DLQ mirror and the DLQ re-drive (package
 * {@code io.dimstream.app.replay}).
 * {@link #close()} stops them in reverse order. This is the thin launcher DESIGN section 1 asks
 * for: it wires the parts, it holds no logic of its own; {@link #start} takes the steps of
 * {@link StartSteps} one after the other. The topics are planned by
 * {@link io.dimstream.app.topology.TopicPlanner} and created by {@link TopicSetup}; the memory
 * pruning runs on {@link MemoryPruning}'s schedule; {@link #awaitCaughtUp} is {@link CatchUp}'s.
 */
public final class DimstreamService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DimstreamService.class);

    private final EmbeddedKafka embeddedKafka;
    private final Databases.Handle db;
    private final EntityStreamsClients streams;
    private final ChangeSink sink;
    private final MemoryPruning pruning;
    private final KafkaClients clients;
    private final List<EntityPipeline> pipelines;
    private final MeterRegistry registry;
    private final CatchUp catchUp;
    private final List<AutoCloseable> adminWorkers;
    private final HealthMonitor health;
    private final Admin healthAdmin;
    private AutoCloseable jvmGc = () -> { };

    /** Connections the service takes from the pool besides the sink's, at most at once. */
    static final int OTHER_CONNECTIONS = 3;

    private DimstreamService(EmbeddedKafka embeddedKafka, Databases.Handle db, EntityStreamsClients streams,
                     ChangeSink sink, MemoryPruning pruning, KafkaClients clients, List<EntityPipeline> pipelines,
                     MeterRegistry registry, CatchUp catchUp, List<AutoCloseable> adminWorkers,
                     HealthMonitor health, Admin healthAdmin) {
        this.health = health;
        this.healthAdmin = healthAdmin;
        this.embeddedKafka = embeddedKafka;
        this.db = db;
        this.streams = streams;
        this.sink = sink;
        this.pruning = pruning;
        this.clients = clients;
        this.pipelines = pipelines;
        this.registry = registry;
        this.catchUp = catchUp;
        this.adminWorkers = adminWorkers;
    }

    /**
     * Starts the parts one step after the other: (the embedded broker, or a check that the
     * config's Kafka answers, {@link StartSteps#checkKafka}: within 10 s instead of a client's
     * "Timed out waiting for a node assignment" after a minute or more,) the database and the
     * entities' shapes and tables, the topics (and the upgrade of older changes topics), Kafka
     * Streams, the sink and the memory pruning, the admin workers, the health monitor. When a step
     * fails, what had started is closed in reverse order.
     */
    public static DimstreamService start(DimstreamConfig config, ServiceOptions options, MeterRegistry registry) {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            Files.createDirectories(options.dataDir());
            EmbeddedKafka kafka = null;
            KafkaConfig kafkaConfig = checkSettings(config);
            String bootstrap = kafkaConfig.bootstrapServers();
            if (kafkaConfig.embedded()) {
                kafka = EmbeddedKafka.start(options.dataDir().resolve("kafka"));
                started.add(kafka);
                bootstrap = kafka.bootstrapServers();
            } else {
                StartSteps.checkKafka(KafkaClients.of(bootstrap, kafkaConfig));
            }
            long t0 = System.nanoTime();
            Databases.Handle db = StartSteps.openDatabase(config.postgres(), options, started);
            DataSource ds = db.dataSource();
            KafkaClients clients = KafkaClients.of(bootstrap, kafkaConfig);
            // a connector's tables are entities as if declared by hand, found tables added after the declared ones
            config = ConnectorDiscovery.resolve(config, clients, ds);
            if (config.entities().isEmpty()) {
                throw new IllegalStateException("no entity yet: the connectors (" + config.connectors().stream()
                        .map(c -> c.name()).collect(Collectors.joining(", ")) + ") have no table with a record on " + bootstrap);
            }
            long tMigrated = System.nanoTime();
            // each entity as the config declares it plus the columns added while running (the catalog):
            // one owner of the shapes, for the tables' check, the topology, the sink, replays and the pruner alike
            EntityShapes shapes = shapes(config, ds);
            Map<String, EntitySpec> merged = StartSteps.ensureTables(shapes, ds);
            long tTables = System.nanoTime();

            // every topic the deployment owns is named after its application id (EntityPipeline, ChangeTopics)
            List<EntityPipeline> pipelines = EntityPipeline.fromConfig(config, options.applicationId()).stream()
                    .map(p -> p.withEntity(merged.get(p.entity().name()))).toList();
            SinkSettings sinkSettings = StartSteps.createTopicsAndUpgrade(config, options, clients, pipelines, kafka != null, ds);
            long tTopics = System.nanoTime();

            EntityStreamsClients streams = StartSteps.startStreams(kafkaConfig, options, bootstrap, pipelines, registry, kafka != null, started);
            ChangeSink sink = new ChangeSink(sinkSettings, clients, shapes, ds, new SinkMetrics(registry)).start();
            started.add(sink);
            List<EntitySpec> specs = config.entities().stream().map(e -> merged.get(e.name())).toList();
            MemoryPruning pruning = MemoryPruning.start(new MemoryPruner(ds), new HistoryRetainer(ds), shapes, options.pruneInterval(),
                    registry);
            started.add(pruning);

            int workersFrom = started.size();
            if (options.adminWorkers()) {
                StartSteps.startAdminWorkers(config, options, registry, ds, clients, pipelines, shapes, specs, started);
            }
            int workersTo = started.size();
            StartSteps.Health health = StartSteps.startHealth(clients, ds, sink, streams, registry, started);

            LOG.info("started in {} ms: database and migrations {} ms, entity tables {} ms, topics {} ms, Kafka Streams, sink and "
                    + "workers {} ms", ms(t0, System.nanoTime()), ms(t0, tMigrated), ms(tMigrated, tTables), ms(tTables, tTopics),
                    ms(tTopics, System.nanoTime()));
            LOG.info("dimstream running: kafka {}, {} entities ({})", bootstrap, pipelines.size(),
                    pipelines.stream().map(p -> p.sourceTopic() + " -> " + p.changesTopic() + " -> " + p.entity().table() + " (DLQ "
                            + p.dlqTopic() + ")").collect(Collectors.joining(", ")));
            DimstreamService service = new DimstreamService(kafka, db, streams, sink, pruning, clients,
                    pipelines, registry, StartSteps.catchUp(options, clients, ds, pipelines, sinkSettings),
                    List.copyOf(started.subList(workersFrom, workersTo)), health.monitor(), health.admin());
            service.jvmGc = health.jvmGc();
            return service;
        } catch (Exception e) {
            closeInReverse(started, e);
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("dimstream could not start: " + e.getMessage(), e);
        }
    }

    /** What had started when the start failed, closed last first; a failure to close is added to {@code failure}. */
    private static void closeInReverse(List<AutoCloseable> started, Exception failure) {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception closing) {
                failure.addSuppressed(closing);
            }
        }
    }

    /**
     * The config's Kafka section, checked with what the service needs besides the config's own
     * checks: the client and Kafka Streams settings, and a pool big enough for the sink's connections
     * and the others the service takes from it (the health probe, replay jobs, the DLQ mirror and
     * re-drive, the memory pruner; only the service needs them, so {@code load} and {@code check}
     * may run on a smaller pool).
     *
     * @throws IllegalArgumentException naming every problem
     */
    private static KafkaConfig checkSettings(DimstreamConfig config) {
        KafkaConfig kafkaConfig = config.kafka().orElseThrow(() -> new IllegalArgumentException(
                "kafka.bootstrap-servers: required to run the pipeline (\"embedded\" starts a broker inside the process)"));
        List<String> problems = new ArrayList<>(KafkaClients.problems(kafkaConfig.client()));
        problems.addAll(StreamsConfigFactory.problems(kafkaConfig.streams()));
        if (config.sink().parallelism() + OTHER_CONNECTIONS > config.postgres().poolSize()) {
            problems.add("sink.parallelism: " + config.sink().parallelism() + " connections need postgres.pool-size of at least "
                    + (config.sink().parallelism() + OTHER_CONNECTIONS) + " (the service's other work takes " + OTHER_CONNECTIONS
                    + " more), got " + config.postgres().poolSize());
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return kafkaConfig;
    }

    /** Health as gauges (Prometheus {@code dimstream_health_ready}, {@code dimstream_health_live}). */
    public static final String HEALTH_READY = "dimstream.health.ready";
    public static final String HEALTH_LIVE = "dimstream.health.live";

    /**
     * The meters of the process as a whole: {@value #HEALTH_READY} and {@value #HEALTH_LIVE} (1 when
     * {@code /health/ready} or {@code /health/live} would answer 200, else 0: the probes' last
     * results, so a scrape never waits on a server), and the JVM's basics from Micrometer's binders
     * (memory and buffer pools, GC pauses, threads, classes, CPU, uptime), so a dashboard and alerts
     * need nothing besides {@code /metrics}. Registering twice on one registry is harmless.
     */
    static JvmGcMetrics bindServiceMeters(MeterRegistry registry, HealthMonitor health) {
        Gauge.builder(HEALTH_READY, health, h -> h.ready().up() ? 1 : 0)
                .description("1 while /health/ready answers 200 (events flow), else 0").strongReference(true).register(registry);
        Gauge.builder(HEALTH_LIVE, health, h -> h.live().up() ? 1 : 0)
                .description("1 while /health/live answers 200, else 0").strongReference(true).register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return gc;
    }

    private static long ms(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1_000_000;
    }

    /** The entities' shapes: the config's entities, those with {@code new-columns: type1} adding type-1 columns. */
    static EntityShapes shapes(DimstreamConfig config, DataSource ds) {
        Set<String> type1 = config.entities().stream()
                .filter(e -> e.cdc().evolvesColumns() && e.cdc().newColumns() == CdcOptions.NewColumns.TYPE1)
                .map(EntityConfig::name).collect(Collectors.toSet());
        return new EntityShapes(ds, config.entities().stream().map(EntityConfig::toEntitySpec).toList(), type1);
    }

    /** The service's health for /health/live and /health/ready. */
    public HealthMonitor health() {
        return health;
    }

    public String bootstrapServers() {
        return clients.bootstrapServers();
    }

    public Databases.Handle database() {
        return db;
    }

    public List<EntityPipeline> pipelines() {
        return pipelines;
    }

    /** Each Kafka Streams client's state, by the client's name (an entity's own client is named after it). */
    public Map<String, KafkaStreams.State> streamsStates() {
        Map<String, KafkaStreams.State> states = new java.util.LinkedHashMap<>();
        streams.states().forEach(c -> states.put(c.client(), c.state()));
        return states;
    }

    /**
     * Waits until the topology has taken {@code sourceRecords} records (every class counted,
     * DLQ and duplicates included) and the sink has applied everything committed to the changes
     * topics (its stored offsets reach their read_committed end offsets): {@link CatchUp#await}.
     * For the demo, the benchmarks and tests.
     *
     * @return false when the timeout passed first
     */
    public boolean awaitCaughtUp(long sourceRecords, Duration timeout) throws InterruptedException {
        return catchUp.await(this::eventsSeen, sourceRecords, timeout);
    }

    /** Records the topology has classified or set aside, over all entities. */
    public long eventsSeen() {
        return (long) registry.find("dimstream.events").counters().stream().mapToDouble(c -> c.count()).sum();
    }

    /**
     * How Kafka Streams closes on a clean stop: it leaves its groups, static member or not (the sink
     * does the same), so that the other instances of the deployment take its partitions at the next
     * rebalance, seconds after the stop, instead of leaving them idle until this instance is back
     * (a rolling restart) or until its session times out (45 s; Kafka Streams' consumers do not leave
     * on close by themselves). Static membership ({@code --instance-id}) is for what a clean stop
     * cannot do: a killed instance restarted takes its partitions back without a rebalance. A single
     * instance restarted after a clean stop joins its groups again, which costs the broker's initial
     * rebalance delay (3 s by default).
     */
    static CloseOptions closeOptions() {
        return CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        for (int i = adminWorkers.size() - 1; i >= 0; i--) {
            closeQuietly("admin worker", adminWorkers.get(i));
        }
        closeQuietly("memory pruning", pruning);
        closeQuietly("health", health);
        closeQuietly("JVM GC metrics", jvmGc);
        closeQuietly("health admin client", healthAdmin);
        closeQuietly("sink", sink);
        closeQuietly("kafka streams", streams);
        closeQuietly("database", db);
        if (embeddedKafka != null) {
            closeQuietly("embedded kafka", embeddedKafka);
        }
    }

    private static void closeQuietly(String what, AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", what, e.getMessage(), e);
        }
    }
}
