package io.dimstream.app.testing;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.topology.DimstreamTopology;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;

/**
 * The fault tests' fixture: an {@link EmbeddedKafka} in the test JVM with the source topic
 * {@value #TOPIC} (3 partitions), the test PostgreSQL, a config file for {@code dimstream run}
 * with one customer entity on a table of its own, a generated {@link CustomerFeed} and the
 * reference model's rows for its valid events; and {@code dimstream run} started as child JVMs
 * ({@link #startService}), whose stdout and stderr go to files under {@code target/faults/}.
 * {@link #close()} destroys every child still alive, then stops the broker.
 */
public final class ServiceHarness implements AutoCloseable {

    public static final String TOPIC = "crm.customers";

    /**
     * The command line's main class, named rather than referenced: it lives in {@code cli}, which
     * depends on this module; the child JVM runs on the test's own class path, so only tests of
     * {@code cli} (and modules above it) can start services.
     */
    public static final String SERVICE_MAIN = "io.dimstream.cli.DimstreamCli";

    public final EmbeddedKafka kafka;
    public final String table;
    public final String applicationId;
    public final DimstreamConfig config;
    public final EntitySpec customer;
    public final Path configFile;
    private final Path dir;
    private final Path logDir;
    private final List<Process> children = new ArrayList<>();
    private final Map<Process, Path> stdout = new java.util.concurrent.ConcurrentHashMap<>();
    private int started;

    private ServiceHarness(Path dir, String name, String moreYaml) throws Exception {
        this.dir = dir;
        this.table = "dim_customer_" + name;
        this.applicationId = "faults-" + name;
        this.logDir = Path.of("target", "faults").toAbsolutePath();
        Files.createDirectories(logDir);
        this.kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        try {
            // the source topic is the user's: it exists before dimstream starts
            kafka.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
            String yaml = """
                    kafka:
                      bootstrap-servers: %s
                    postgres:
                      url: %s
                    entities:
                      - name: customer
                        topic: %s
                        format: json
                        table: %s
                        key: [customer_id]
                        tracked: [email, full_name, country, city, loyalty_tier]
                        type1: [last_login, signup, seen_at, credit]
                        lateness-horizon: P30D
                        columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                                  loyalty_tier: text, last_login: bigint, signup: date, seen_at: timestamptz,
                                  credit: numeric}
                    """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), TOPIC, table) + moreYaml;
            this.config = DimstreamConfig.parse(yaml, "fault test config", Map.of());
            this.customer = config.entity("customer").toEntitySpec();
            this.configFile = dir.resolve("dimstream.yaml");
            Files.writeString(configFile, yaml);
            // as the service does at start (idempotent): the test reads the table before the first start is done
            EntityTables.ensure(TestPostgres.dataSource(), customer);
        } catch (Exception e) {
            kafka.close();
            throw e;
        }
    }

    /** A broker with the source topic, and a config whose table is {@code dim_customer_<name>}. */
    public static ServiceHarness start(Path dir, String name) throws Exception {
        return new ServiceHarness(dir, name, "");
    }

    /** As {@link #start(Path, String)}, with {@code moreYaml} (top-level sections) appended to the config. */
    public static ServiceHarness start(Path dir, String name, String moreYaml) throws Exception {
        return new ServiceHarness(dir, name, moreYaml);
    }

    /** The rows the table must end with once every record of {@code feed} is applied, in produce order. */
    public List<ExpectedRow> expected(List<CustomerFeed.FeedRecord> feed) {
        return expected(feed, e -> true);
    }

    /** As above, of the valid events {@code applied} accepts (the others are refused later, by PostgreSQL). */
    public List<ExpectedRow> expected(List<CustomerFeed.FeedRecord> feed, java.util.function.Predicate<Event> applied) {
        return new ReferenceModel(customer).rows(FeedFixtures.split(customer, TOPIC, feed).valid().stream().filter(applied).toList());
    }

    public static List<CustomerFeed.FeedRecord> feed(long seed, int customers, int records) {
        return new CustomerFeed(seed, customers, Instant.parse("2025-08-01T00:00:00Z")).next(records);
    }

    /** Produces the records to the source topic, in order, and waits until the broker has them all. */
    public void produce(List<CustomerFeed.FeedRecord> records) {
        log("producing " + records.size() + " records");
        FeedFixtures.produce(kafka.bootstrapServers(), TOPIC, records, Map.of());
    }

    /** The table's rows now. */
    public List<ExpectedRow> rows() throws Exception {
        return EntityTableReader.rows(TestPostgres.dataSource(), customer);
    }

    /**
     * Starts {@code dimstream run} in a child JVM on the test classpath, with the data directory
     * {@code <dir>/<dataDirName>} and this harness's application id; {@code moreRunArgs} are
     * appended to the {@code run} command line.
     */
    public Process startService(String dataDirName, String... moreRunArgs) throws IOException {
        return startService(dataDirName, -1, moreRunArgs);
    }

    /** As above, serving /metrics and /health/* on {@code metricsPort} (-1: none). */
    public Process startService(String dataDirName, int metricsPort, String... moreRunArgs) throws IOException {
        int n = ++started;
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String base = applicationId + "-" + n + "-" + dataDirName;
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                SERVICE_MAIN, "run",
                "--config", configFile.toString(),
                "--data-dir", dir.resolve(dataDirName).toString(),
                "--application-id", applicationId,
                "--metrics-port", Integer.toString(metricsPort)));
        command.addAll(List.of(moreRunArgs));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(logDir.resolve(base + ".out").toFile())
                .redirectError(logDir.resolve(base + ".err").toFile());
        Process p = pb.start();
        log("started the service, pid " + p.pid() + ", output in " + base + ".out/.err");
        stdout.put(p, logDir.resolve(base + ".out"));
        synchronized (children) {
            children.add(p);
        }
        return p;
    }

    /** Waits until the child has printed {@code running:} (its pipeline started: Kafka Streams and the sink run). */
    public void awaitRunning(Process p) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).pollInterval(java.time.Duration.ofMillis(100))
                .until(() -> {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("the service exited with " + p.exitValue() + "; see " + stdout.get(p));
                    }
                    return Files.readString(stdout.get(p)).contains("\nrunning: ");
                });
    }

    /** A port nobody listens on now. */
    public static int freePort() throws IOException {
        return freePorts(1)[0];
    }

    /**
     * {@code n} distinct ports nobody listens on now, none of {@code taken}: their sockets are held
     * open together while picked, since two picks one after the other can return the same port.
     */
    public static int[] freePorts(int n, int... taken) throws IOException {
        java.util.List<java.net.ServerSocket> open = new java.util.ArrayList<>();
        try {
            int[] out = new int[n];
            for (int i = 0; i < n; ) {
                java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
                open.add(s);
                int port = s.getLocalPort();
                if (java.util.Arrays.stream(taken).noneMatch(t -> t == port)) {
                    out[i++] = port;
                }
            }
            return out;
        } finally {
            for (java.net.ServerSocket s : open) {
                s.close();
            }
        }
    }

    /** GET http://127.0.0.1:port/path: the status and the body. */
    public static Map.Entry<Integer, String> get(int port, String path) throws IOException, InterruptedException {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                        .timeout(java.time.Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return Map.entry(r.statusCode(), r.body());
    }

    /** A timestamped line on stdout (in the failsafe report): what the test did when. */
    public static void log(String what) {
        System.out.println(Instant.now() + " [fault test] " + what);
    }

    /** SIGKILL (on Linux, {@link Process#destroyForcibly()} is SIGKILL), and waits until it is gone. */
    public static void kill(Process p) throws InterruptedException {
        log("SIGKILL to the service, pid " + p.pid());
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("child " + p.pid() + " still alive 30 s after SIGKILL");
        }
    }

    /**
     * Removes every member of the entity's Kafka Streams group ({@link #streamsGroup()}) and of the sink's
     * consumer group, as {@code kafka-streams-application-reset --force} does. Only for a moment
     * when no child is alive: it spares the restarted instance the wait for the killed one's
     * session to time out (45 s by default), which would make each restart that much longer.
     */
    public void removeDeadMembers() throws InterruptedException {
        try (Admin admin = kafka.admin()) {
            for (String group : List.of(streamsGroup(), applicationId + "-sink")) {
                try {
                    admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions())
                            .all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    // no such group or no members yet: nothing to remove
                }
            }
        }
    }

    /** The consumer group of the entity's Kafka Streams client: its application id. */
    public String streamsGroup() {
        return DimstreamTopology.streamsApplicationId(applicationId, customer.name());
    }

    @Override
    public void close() {
        log("closing: children, then the broker");
        synchronized (children) {
            for (Process p : children) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                    try {
                        p.waitFor(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
        kafka.close();
    }
}
