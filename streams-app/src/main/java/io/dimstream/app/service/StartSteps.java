package io.dimstream.app.service;

import io.dimstream.app.health.HealthMonitor;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaReachability;
import io.dimstream.app.replay.DlqMirror;
import io.dimstream.app.replay.RedriveExecutor;
import io.dimstream.app.replay.ReplayMeters;
import io.dimstream.app.replay.ReplayWorker;
import io.dimstream.app.replay.RetiredTablesCleanup;
import io.dimstream.app.sink.CatchUp;
import io.dimstream.app.sink.ChangeSink;
import io.dimstream.app.sink.SinkSettings;
import io.dimstream.app.topology.DimstreamTopology;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The steps {@link DimstreamService#start} takes, one method each, in the order it calls them:
 * the check that Kafka answers (unless embedded), the database (migrated) and the entities'
 * tables, the topics and the upgrade of older changes topics, Kafka Streams, the admin workers, the
 * health monitor. Each step adds what it starts to {@code started} as soon as it has started, so
 * that a failed start closes them in reverse order.
 */
final class StartSteps {

    /** How often PostgreSQL and the Kafka cluster are probed for /health/ready. */
    private static final Duration HEALTH_PROBE_INTERVAL = Duration.ofSeconds(5);

    private StartSteps() {
    }

    /**
     * The config's Kafka answers ({@link KafkaReachability}, once: waiting for it is the caller's,
     * {@code run --kafka-wait}).
     *
     * @throws IllegalStateException with what was tried at each bootstrap address and what to check
     */
    static void checkKafka(KafkaClients clients) throws InterruptedException {
        if (KafkaReachability.probe(clients, "kafka.bootstrap-servers") instanceof KafkaReachability.Unanswered no) {
            throw new IllegalStateException(no.message());
        }
    }

    /** The database (embedded, or the config's, added to {@code started}), migrated. */
    static Databases.Handle openDatabase(PostgresConfig pg, ServiceOptions options, List<AutoCloseable> started) {
        Databases.Handle db = PostgresConfig.EMBEDDED.equals(pg.url())
                ? Databases.embedded(options.dataDir().resolve("postgres"))
                : Databases.open(pg.url(), pg.user(), pg.password(), pg.poolSize());
        started.add(db);
        Migrations.migrate(db.dataSource());
        return db;
    }

    /** Each entity's tables made to fit its shape as it is now; returns those shapes by entity name. */
    static Map<String, EntitySpec> ensureTables(EntityShapes shapes, DataSource ds) throws SQLException {
        Map<String, EntitySpec> merged = new HashMap<>();
        for (String name : shapes.entities()) {
            EntitySpec spec = shapes.current(name);
            merged.put(name, spec);
            EntityTables.ensure(ds, spec);
        }
        return merged;
    }

    /**
     * The deployment's topics created, and the changes topics of an older naming replayed once
     * ({@link ChangesTopicUpgrade}); returns the sink's settings, whose group the upgrade reads.
     */
    static SinkSettings createTopicsAndUpgrade(DimstreamConfig config, ServiceOptions options, KafkaClients clients,
            List<EntityPipeline> pipelines, boolean embeddedKafka, DataSource ds)
            throws SQLException, InterruptedException, ExecutionException {
        short replication = (short) (embeddedKafka ? 1 : -1);
        TopicSetup.createTopics(clients, pipelines, options.partitions(), replication, embeddedKafka);
        // the sink's offsets live in PostgreSQL under its group: one group per application, so
        // two deployments sharing a database (or tests sharing one) never read each other's
        SinkSettings sinkSettings = SinkSettingsFromConfig.of(config.sink(), options.applicationId())
                .withInstanceId(options.instanceId().map(id -> id + "-sink").orElse(null));
        // a deployment whose changes topics were named otherwise before: their unapplied tail is replayed once
        ChangesTopicUpgrade.run(ds, clients, sinkSettings.groupId(), pipelines);
        return sinkSettings;
    }

    /**
     * Every entity's topology on a Kafka Streams client of its own ({@link EntityStreamsClients}),
     * started (their close added to {@code started}).
     */
    static EntityStreamsClients startStreams(KafkaConfig kafkaConfig, ServiceOptions options, String bootstrap,
            List<EntityPipeline> pipelines, MeterRegistry registry, boolean embeddedKafka, List<AutoCloseable> started) {
        Map<String, Object> overrides = new HashMap<>();
        if (embeddedKafka) {
            overrides.put("replication.factor", 1);
        }
        // static membership: a restarted instance takes its tasks back at once (Kafka Streams
        // gives each stream thread the id plus its number; each entity's client is a group of its own)
        options.instanceId().ifPresent(id -> overrides.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), id));
        // kafka.client: reaches every client Kafka Streams makes (unprefixed); kafka.streams: last
        overrides.putAll(kafkaConfig.client());
        overrides.putAll(kafkaConfig.streams());
        EntityStreamsClients streams = EntityStreamsClients.start(options.applicationId(), bootstrap,
                options.dataDir().resolve("streams-state"), pipelines, registry, overrides, DimstreamService.closeOptions());
        started.add(streams);
        return streams;
    }

    /**
     * The executors of admin actions, each added to {@code started} as it starts: admin actions are
     * rows in PostgreSQL (the admin UI never talks to Kafka): replay jobs, the DLQ mirror, DLQ
     * re-drives, and the retired tables' cleanup when {@code keep-replaced-tables} is set.
     */
    static void startAdminWorkers(DimstreamConfig config, ServiceOptions options, MeterRegistry registry, DataSource ds,
            KafkaClients clients, List<EntityPipeline> pipelines, EntityShapes shapes, List<EntitySpec> specs,
            List<AutoCloseable> started) throws UnknownHostException {
        // a unique owner per instance for job leases
        ReplayWorker replay = new ReplayWorker(leaseOwner(options.applicationId()), pipelines, ds, clients, options.replay(), shapes)
                .metrics(registry).start();
        started.add(replay);
        // replay gauges from the jobs table (jobs by state, running jobs' progress and lag)
        started.add(new ReplayMeters(ds, pipelines.stream().map(p -> p.entity().name()).toList(), registry)
                .start(Duration.ofSeconds(10)));
        Optional<Duration> keep = config.service().replay().keepReplacedTables();
        if (keep.isPresent()) {
            started.add(RetiredTablesCleanup.start(ds, specs, keep.get(), Duration.ofHours(1)));
        }
        DlqMirror mirror = new DlqMirror(options.applicationId() + "-dlq-mirror", pipelines, ds, clients).start();
        started.add(mirror);
        RedriveExecutor redrive = new RedriveExecutor(ds,
                pipelines.stream().map(p -> p.entity().name()).collect(Collectors.toSet()), clients,
                options.replay().pollInterval()).start();
        started.add(redrive);
    }

    /**
     * What {@link DimstreamService#awaitCaughtUp} waits on: the source topics, the repartition
     * topics and the changes topics the sink reads.
     */
    static CatchUp catchUp(ServiceOptions options, KafkaClients clients, DataSource ds, List<EntityPipeline> pipelines,
            SinkSettings sinkSettings) {
        String deployment = options.applicationId();
        return new CatchUp(clients, ds,
                EntityStreamsClients.byClient(pipelines).keySet().stream().map(c -> DimstreamTopology.streamsApplicationId(deployment, c)).toList(),
                pipelines.stream().map(EntityPipeline::sourceTopic).toList(),
                pipelines.stream().filter(p -> !p.partitionedByKey())
                        .map(p -> DimstreamTopology.repartitionTopic(DimstreamTopology.streamsApplicationId(deployment, p.streamsClient()),
                                p.entity().name())).collect(Collectors.toSet()),
                sinkSettings.groupId(), pipelines.stream().map(EntityPipeline::changesTopic).toList());
    }

    /** The health monitor with the admin client of its Kafka probe, and the process's meters bound to the registry. */
    record Health(Admin admin, HealthMonitor monitor, JvmGcMetrics jvmGc) {
    }

    /** The health monitor (probing PostgreSQL and Kafka) and the process's meters, each added to {@code started}. */
    static Health startHealth(KafkaClients clients, DataSource ds, ChangeSink sink, EntityStreamsClients streams, MeterRegistry registry,
            List<AutoCloseable> started) {
        Map<String, Object> adminProps = clients.properties();
        adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
        adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
        Admin healthAdmin = Admin.create(adminProps);
        started.add(healthAdmin);
        HealthMonitor health = new HealthMonitor(sink::status, streams::states,
                Map.of("postgres", postgresProbe(ds), "kafka", kafkaProbe(healthAdmin)), HEALTH_PROBE_INTERVAL);
        started.add(health);
        JvmGcMetrics jvmGc = DimstreamService.bindServiceMeters(registry, health);
        started.add(jvmGc);
        return new Health(healthAdmin, health, jvmGc);
    }

    /** A unique owner per instance for job leases: {@code <application id>@<host>/<pid>/<random>}. */
    private static String leaseOwner(String applicationId) throws UnknownHostException {
        return applicationId + "@" + InetAddress.getLocalHost().getHostName() + "/"
                + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** PostgreSQL answers a query within 3 s. */
    private static Callable<String> postgresProbe(DataSource ds) {
        return () -> {
            long t0 = System.nanoTime();
            Databases.ping(ds, 3);
            return "answered in " + (System.nanoTime() - t0) / 1_000_000 + " ms";
        };
    }

    /** The Kafka cluster describes itself within 3 s. */
    private static Callable<String> kafkaProbe(Admin admin) {
        return () -> {
            int brokers = admin.describeCluster(new DescribeClusterOptions().timeoutMs(3_000)).nodes().get(4, TimeUnit.SECONDS).size();
            return brokers + (brokers == 1 ? " broker" : " brokers");
        };
    }
}
