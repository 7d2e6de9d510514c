package io.dimstream.cli;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaWait;
import io.dimstream.app.metrics.MetricsHttpServer;
import io.dimstream.app.service.SupervisedService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConfigKeys.ServiceReplayKeys;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.config.model.ServiceConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream run}: the service. Runs the pipeline of every configured entity until the
 * process is asked to stop (SIGTERM or Ctrl-C), then stops the sink (the open batch is abandoned:
 * nothing of it was committed, it is read again), Kafka Streams, and the embedded parts.
 */
@Command(name = "run", mixinStandardHelpOptions = true, resourceBundle = "io.dimstream.cli.ConfigDefaults",
        description = {"Runs the pipeline for every configured entity until stopped (SIGTERM or Ctrl-C).",
                "More instances with the same --application-id share the partitions the Kafka way."})
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, description = "the YAML config file")
    Path config;

    @Option(names = "--data-dir", defaultValue = "data", description = "Kafka Streams state (and embedded broker/PostgreSQL data); default: ${DEFAULT-VALUE}")
    Path dataDir;

    // --application-id, --partitions, --prune-interval and --replay-*: no defaults here; absent, the
    // config's service: section decides. Their help names the key's default from ConfigKeys (ConfigDefaults)
    @Option(names = "--application-id", description = "Kafka Streams application id; overrides service.application-id (default ${bundle:default.service.application-id})")
    String applicationId;

    @Option(names = "--partitions", description = "partitions of the topics dimstream creates; overrides service.partitions (default ${bundle:default.service.partitions})")
    Integer partitions;

    @Option(names = "--prune-interval", paramLabel = "DURATION",
            description = "how often the event memory is pruned beyond each entity's horizon; overrides service.prune-interval (default ${bundle:default.service.prune-interval})")
    Duration pruneInterval;

    @Option(names = "--metrics-port", defaultValue = "9464", description = "Prometheus scrape port (GET /metrics), -1 for none; default: ${DEFAULT-VALUE}")
    int metricsPort;

    // /metrics has no authentication: every interface by default so a Prometheus in another
    // container can scrape it; 127.0.0.1 (or a firewall) where other hosts can reach this one
    @Option(names = "--metrics-host", defaultValue = "0.0.0.0", paramLabel = "HOST",
            description = "address the metrics server listens on; default: ${DEFAULT-VALUE} (every interface; /metrics has no "
                    + "authentication, use 127.0.0.1 or a firewall where other hosts can reach this one)")
    String metricsHost;

    @Option(names = "--replay-batch-size", paramLabel = "N",
            description = "records per replay-job transaction; overrides service.replay.batch-size (default ${bundle:default.service.replay.batch-size})")
    Integer replayBatchSize;

    @Option(names = "--replay-pause", paramLabel = "DURATION",
            description = "pause between two replay-job batches (a throttle that leaves PostgreSQL to the live sink); "
                    + "overrides service.replay.pause (default ${bundle:default.service.replay.pause})")
    Duration replayPause;

    @Option(names = "--replay-lease", paramLabel = "DURATION",
            description = "how long a replay job stays this instance's without a heartbeat: a job of an instance that died "
                    + "is resumed by another after this; overrides service.replay.lease (default ${bundle:default.service.replay.lease})")
    Duration replayLease;

    @Option(names = "--replay-poll", hidden = true)
    Duration replayPoll;

    @Option(names = "--exit-when-not-live", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "exit (status " + EXIT_NOT_LIVE + ") when /health/live has been down for two checks 5 s apart: the sink's "
                    + "thread died or Kafka Streams stopped for good, which only a restart cures (docker's restart policy, "
                    + "systemd, Kubernetes); default: ${DEFAULT-VALUE}")
    boolean exitWhenNotLive;

    @Option(names = KafkaCheck.OPTION, paramLabel = "DURATION|forever", defaultValue = KafkaWait.FOREVER,
            converter = KafkaCheck.WaitConverter.class,
            description = "How long to keep trying when Kafka does not answer at start: the first failure is printed with "
                    + "what was tried and what to check, then Kafka is tried again every 5 s with a line each, until it answers "
                    + "or DURATION (ISO-8601, e.g. PT2M) has passed; then the command exits with status "
                    + CliFailure.KAFKA_UNREACHABLE + ". PT0S exits after the first try, forever never gives up. "
                    + "Default: ${DEFAULT-VALUE}.")
    KafkaWait kafkaWait;

    /** The exit status of a service that is no longer live (EX_SOFTWARE). */
    static final int EXIT_NOT_LIVE = 70;

    @Option(names = "--instance-id", paramLabel = "ID",
            description = "this instance's stable identity in its consumer groups (Kafka static membership): a restarted "
                    + "instance takes its partitions back at once instead of after the session timeout. Must differ between "
                    + "instances running at the same time. Default: the host name and a hash of --data-dir; \"none\" for dynamic membership")
    String instanceId;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            PrintWriter out = spec.commandLine().getOut();
            DimstreamConfig cfg = withFlags(CommandSupport.loadConfig(config));
            out.println("effective config (" + config + "):");
            out.println(cfg.describeMasked());
            out.flush();
            awaitKafka(cfg);
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            String id = "none".equals(instanceId) ? null : instanceId != null ? instanceId : defaultInstanceId(dataDir);
            ServiceOptions options = ServiceOptions.of(dataDir, cfg.service()).withInstanceId(id);
            // the stop hook first, so that a SIGTERM during start-up stops what has started
            AtomicReference<SupervisedService> serviceRef = new AtomicReference<>();
            AtomicReference<MetricsHttpServer> metricsRef = new AtomicReference<>();
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (metricsRef.get() != null) {
                    metricsRef.get().close();
                }
                if (serviceRef.get() != null) {
                    serviceRef.get().close();
                }
                stopped.countDown();
            }, "dimstream-stop"));
            SupervisedService service;
            try {
                service = SupervisedService.start(cfg, options, registry);
            } catch (RuntimeException e) {
                throw new CliFailure(CliFailure.FAILED, "cannot start: " + e.getMessage(), e);
            }
            serviceRef.set(service);
            MetricsHttpServer metrics = metricsPort < 0 ? null
                    : MetricsHttpServer.start(metricsHost, metricsPort, registry, service::health);
            metricsRef.set(metrics);
            if (exitWhenNotLive) {
                watchdog(service);
            }
            out.println("running: kafka " + service.current().bootstrapServers() + ", PostgreSQL " + service.current().database().jdbcUrl()
                    + (metrics == null ? "" : ", metrics http://localhost:" + metrics.port() + "/metrics, health "
                    + "http://localhost:" + metrics.port() + "/health/ready")
                    + (id == null ? "" : ", instance " + id));
            out.flush();
            stopped.await();
            return 0;
        });
    }

    /**
     * Waits for the config's Kafka as {@code --kafka-wait} says, before anything starts; not for an
     * embedded broker, nor when the Kafka section is missing or wrong (the service's start says why).
     */
    private void awaitKafka(DimstreamConfig cfg) {
        KafkaConfig kafka = cfg.kafka().orElse(null);
        if (kafka != null && !kafka.embedded() && KafkaClients.problems(kafka.client()).isEmpty()) {
            KafkaCheck.await(spec, KafkaClients.of(kafka.bootstrapServers(), kafka), "kafka.bootstrap-servers", kafkaWait,
                    "dimstream did not start");
        }
    }

    /**
     * The config with the flags given over its {@code service:} section, each checked as the file's
     * key is; refused (usage) naming the flag.
     */
    DimstreamConfig withFlags(DimstreamConfig cfg) {
        List<String> problems = new ArrayList<>();
        ServiceConfig file = cfg.service();
        ServiceConfig.Replay r = file.replay();
        ServiceConfig.Replay replay = new ServiceConfig.Replay(
                ServiceReplayKeys.BATCH_SIZE.override("--replay-batch-size", replayBatchSize, r.batchSize(), problems),
                ServiceReplayKeys.PAUSE.override("--replay-pause", replayPause, r.pause(), problems),
                ServiceReplayKeys.LEASE.override("--replay-lease", replayLease, r.lease(), problems),
                ServiceReplayKeys.POLL.override("--replay-poll", replayPoll, r.poll(), problems), r.keepReplacedTables());
        ServiceConfig service = new ServiceConfig(
                ConfigKeys.SERVICE_APPLICATION_ID.override("--application-id", applicationId, file.applicationId(), problems),
                ConfigKeys.SERVICE_PARTITIONS.override("--partitions", partitions, file.partitions(), problems),
                ConfigKeys.SERVICE_PRUNE_INTERVAL.override("--prune-interval", pruneInterval, file.pruneInterval(), problems),
                replay);
        if (!problems.isEmpty()) {
            throw new CliFailure(CliFailure.USAGE, String.join("; ", problems), null);
        }
        return cfg.withService(service);
    }

    /**
     * The host name and the first 8 hex digits of SHA-256 of the data directory's absolute path:
     * stable across restarts of the same instance (same host, same data), different for two
     * instances on one host (Kafka Streams refuses to share a state directory anyway).
     */
    static String defaultInstanceId(Path dataDir) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "localhost";
        }
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(dataDir.toAbsolutePath().normalize().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return host + "-" + java.util.HexFormat.of().formatHex(d, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * Exits when the service stays not live: what died in it (the sink's thread, Kafka Streams after
     * a fatal failure) does not come back by itself, and a process that no longer applies events
     * but stays up would only look healthy to a restart policy that watches for exits.
     */
    private void watchdog(SupervisedService service) {
        java.util.concurrent.ScheduledExecutorService dog = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-watchdog");
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.atomic.AtomicInteger down = new java.util.concurrent.atomic.AtomicInteger();
        dog.scheduleWithFixedDelay(() -> {
            io.dimstream.app.health.HealthReport live = service.health().live();
            if (live.up()) {
                down.set(0);
                return;
            }
            if (down.incrementAndGet() >= 2) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("dimstream: not live, exiting with status " + EXIT_NOT_LIVE + " to be restarted: " + live.checks());
                err.flush();
                // runs the stop hook: the pipeline closes in order
                System.exit(EXIT_NOT_LIVE);
            }
        }, 5, 5, java.util.concurrent.TimeUnit.SECONDS);
    }
}
