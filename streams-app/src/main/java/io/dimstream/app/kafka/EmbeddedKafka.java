package io.dimstream.app.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka 4.4 cluster (one KRaft process acting as broker and controller) inside this
 * JVM, listening on 127.0.0.1 only: for {@code kafka.bootstrap-servers: embedded}, the demo and
 * the integration tests.
 *
 * <p>Settings that matter on one node: the transaction state log and the offsets topic have
 * replication factor 1 and min ISR 1 (else {@code exactly_once_v2} producers hang), the log
 * cleaner's dedupe buffer is 2 MiB (the 128 MiB default is allocated up front), topics are never
 * auto-created, and the first consumer-group rebalance is not delayed.
 *
 * <p>The log directory is formatted on first start. The ports it listened on are kept in
 * {@value #PORTS_FILE} inside it, so a new instance started on the same directory after
 * {@link #stop()} comes back with the same bootstrap address and the same records: clients that
 * were connected reconnect by themselves (a broker restart).
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** Kept in the log directory: the broker and controller ports, reused on restart. */
    public static final String PORTS_FILE = "embedded-kafka-ports.properties";

    private static final int NODE_ID = 1;
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final Path logDir;
    private final boolean ownsLogDir;
    private final int brokerPort;
    private final KafkaRaftServer server;
    private boolean stopped;

    private EmbeddedKafka(Path logDir, boolean ownsLogDir, int brokerPort, KafkaRaftServer server) {
        this.logDir = logDir;
        this.ownsLogDir = ownsLogDir;
        this.brokerPort = brokerPort;
        this.server = server;
    }

    /** Starts a broker in a temporary log directory, deleted again by {@link #close()}. */
    public static EmbeddedKafka start() {
        try {
            return start(Files.createTempDirectory("dimstream-kafka-"), true, Map.of());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary Kafka log directory", e);
        }
    }

    /**
     * Starts a broker on {@code logDir} (created and formatted when new; its records and ports
     * reused when it held a broker before). The directory is kept on {@link #close()}.
     */
    public static EmbeddedKafka start(Path logDir) {
        return start(logDir, false, Map.of());
    }

    /**
     * As {@link #start(Path)}, with broker settings added or overriding the defaults (for example
     * {@code log.retention.ms}).
     */
    public static EmbeddedKafka start(Path logDir, Map<String, String> overrides) {
        return start(logDir, false, overrides);
    }

    private static EmbeddedKafka start(Path logDir, boolean ownsLogDir, Map<String, String> overrides) {
        try {
            Files.createDirectories(logDir);
            Path dataDir = logDir.resolve("data");
            Path metaDir = logDir.resolve("metadata");
            Properties ports = readOrPickPorts(logDir);
            int brokerPort = Integer.parseInt(ports.getProperty("broker"));
            int controllerPort = Integer.parseInt(ports.getProperty("controller"));

            Properties p = new Properties();
            p.put("process.roles", "broker,controller");
            p.put("node.id", Integer.toString(NODE_ID));
            p.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", dataDir.toString());
            p.put("metadata.log.dir", metaDir.toString());
            p.put("offsets.topic.replication.factor", "1");
            p.put("offsets.topic.num.partitions", "5");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("transaction.state.log.num.partitions", "5");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("log.cleaner.dedupe.buffer.size", Long.toString(2L * 1024 * 1024));
            p.put("auto.create.topics.enable", "false");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("num.partitions", "1");
            p.put("default.replication.factor", "1");
            p.put("min.insync.replicas", "1");
            overrides.forEach(p::put);

            KafkaConfig config = KafkaConfig.fromProps(p, false);
            if (!Files.exists(metaDir.resolve("meta.properties"))) {
                format(dataDir, metaDir);
            }
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            EmbeddedKafka kafka = new EmbeddedKafka(logDir, ownsLogDir, brokerPort, server);
            kafka.awaitReady();
            LOG.info("embedded Kafka started: {} (log dir {})", kafka.bootstrapServers(), logDir);
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded Kafka in " + logDir + ": " + e.getMessage(), e);
        }
    }

    private static void format(Path dataDir, Path metaDir) {
        Formatter f = new Formatter()
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dataDir.toString(), metaDir.toString()))
                .setMetadataLogDirectory(metaDir.toString())
                .setControllerListenerName("CONTROLLER")
                .setPrintStream(new java.io.PrintStream(OutputStream.nullOutputStream()));
        try {
            f.run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format the Kafka log directories " + dataDir + ", " + metaDir
                    + ": " + e.getMessage(), e);
        }
    }

    private static Properties readOrPickPorts(Path logDir) throws IOException {
        Path file = logDir.resolve(PORTS_FILE);
        Properties ports = new Properties();
        if (Files.exists(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                ports.load(in);
            }
            return ports;
        }
        // both sockets held open at once: two picks one after the other can get the same port back,
        // and the broker then refuses two listeners on one port (seen once in a test run)
        try (ServerSocket broker = freeSocket(); ServerSocket controller = freeSocket()) {
            ports.setProperty("broker", Integer.toString(broker.getLocalPort()));
            ports.setProperty("controller", Integer.toString(controller.getLocalPort()));
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            ports.store(out, "ports of the embedded Kafka using this log directory");
        }
        return ports;
    }

    /** A socket on a port the system picked; closed by the caller, after which the port is free for Kafka. */
    private static ServerSocket freeSocket() throws IOException {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        s.setReuseAddress(true);
        return s;
    }

    /** Waits until the broker answers metadata requests (it has registered with the controller). */
    private void awaitReady() {
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            stop();
            throw new IllegalStateException("embedded Kafka did not become ready on " + bootstrapServers() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("interrupted while starting embedded Kafka", e);
        }
    }

    /** {@code 127.0.0.1:PORT}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    public Path logDir() {
        return logDir;
    }

    /** An admin client on this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis()));
    }

    /** Creates the topics; ones that exist already are left as they are. */
    public void createTopics(List<NewTopic> topics) {
        try (Admin admin = admin()) {
            var futures = admin.createTopics(topics).values();
            for (var e : futures.entrySet()) {
                try {
                    e.getValue().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException ex) {
                    if (!(ex.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + e.getKey() + ": " + ex.getCause().getMessage(), ex);
                    }
                }
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topics timed out on " + bootstrapServers(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /** Shuts the broker down and waits for it; the log directory stays. Idempotent. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        server.shutdown();
        server.awaitShutdown();
        LOG.info("embedded Kafka stopped: {}", bootstrapServers());
    }

    /** Stops the broker; deletes the log directory when it was a temporary one made by {@link #start()}. */
    @Override
    public void close() {
        stop();
        if (ownsLogDir) {
            deleteRecursively(logDir);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("could not delete the embedded Kafka log directory {}: {}", dir, e.toString());
        }
    }
}
