package io.dimstream.bench;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * What the benchmarks of a running service ({@link LatencyBenchmark}, {@link ResumeBenchmark},
 * {@link RollingRestartBenchmark}) share besides the child JVMs ({@link ServiceProcess}) and the
 * feed ({@link SteadyFeed}): a clean database ({@link #reset}), waiting for the sink to catch up,
 * a median; and, as an instance, the stage of the restart benchmarks: a temporary directory, the
 * broker in this JVM with the source topic, the database, the config file of
 * {@link PipelineBenchmark#config} on that topic and table, and services started on them.
 * Arguments read: {@code --jdbc}, {@code --partitions} (3), {@code --java-opts} (the children's),
 * {@code --broker "name=value,..."} (settings of the broker in this JVM).
 */
final class ServiceBench implements AutoCloseable {

    final Path dir;
    final EmbeddedKafka kafka;
    final Databases.Handle db;
    final EntitySpec spec;
    final String changesTopic;
    final int partitions;
    private final Path config;
    private final String applicationId;
    private final String javaOpts;

    private ServiceBench(Map<String, String> a, String name, String topic, String applicationId, String table) throws Exception {
        String jdbc = a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres");
        this.partitions = Integer.parseInt(a.getOrDefault("partitions", "3"));
        this.javaOpts = a.getOrDefault("java-opts", "");
        this.applicationId = applicationId;
        this.changesTopic = ChangeTopics.name(applicationId, "customer");
        this.dir = Files.createTempDirectory("dimstream-" + name + "-bench");
        System.out.println("service output in " + dir);
        reset(jdbc, table);
        this.kafka = EmbeddedKafka.start(dir.resolve("kafka"), brokerSettings(a));
        kafka.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)));
        String yaml = serviceYaml(a, kafka.bootstrapServers(), jdbc, table, topic);
        System.out.println("service config:\n" + yaml);
        this.config = Files.writeString(dir.resolve("config.yml"), yaml);
        this.spec = DimstreamConfig.parse(yaml, "benchmark config", Map.of()).entity("customer").toEntitySpec();
        this.db = Databases.open(jdbc, null, null, 2);
    }

    /**
     * The benchmark service's config: the product's defaults unless the harness was given the
     * latency settings {@code --commit-interval-ms N}, {@code --partitioned-by-key true},
     * {@code --batch-max-wait PT0.1S} or {@code --streams "name: value, ..."} (any {@code kafka.streams:}
     * property).
     */
    static String serviceYaml(Map<String, String> a, String bootstrap, String jdbc, String table, String topic) {
        boolean partitionedByKey = Boolean.parseBoolean(a.getOrDefault("partitioned-by-key", "false"));
        String batchMaxWait = a.get("batch-max-wait");
        List<String> sink = batchMaxWait == null ? List.of() : List.of("batch-max-wait: " + batchMaxWait);
        String yaml = PipelineBenchmark.config(bootstrap, jdbc, table, sink, partitionedByKey, false).replace("bench.customers", topic);
        List<String> streams = new ArrayList<>();
        if (a.containsKey("commit-interval-ms")) {
            streams.add("commit.interval.ms: " + a.get("commit-interval-ms"));
        }
        if (a.containsKey("streams")) {
            streams.add(a.get("streams"));
        }
        if (!streams.isEmpty()) {
            yaml = yaml.replaceFirst("(?m)^  bootstrap-servers: (.*)$", "  bootstrap-servers: $1\n  streams: {"
                    + Matcher.quoteReplacement(String.join(", ", streams)) + "}");
        }
        return yaml;
    }

    /** {@code --broker "name=value,..."}: broker settings over the embedded broker's (e.g. a streams group's heartbeat bounds). */
    static Map<String, String> brokerSettings(Map<String, String> a) {
        Map<String, String> m = new LinkedHashMap<>();
        if (a.containsKey("broker")) {
            for (String kv : a.get("broker").split(",")) {
                int eq = kv.indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("--broker: '" + kv.trim() + "' is not name=value");
                }
                m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return m;
    }

    /** The stage: {@code topic} made, {@code table} and dimstream's schema dropped; {@code name} names the directory. */
    static ServiceBench open(Map<String, String> a, String name, String topic, String applicationId, String table) throws Exception {
        return new ServiceBench(a, name, topic, applicationId, table);
    }

    /** {@code dimstream run} on the stage's config, data directory {@code <dir>/<name>}, with {@code moreRunArgs}. */
    ServiceProcess start(String name, String... moreRunArgs) throws IOException {
        return ServiceProcess.start(config, dir, name, applicationId, partitions, javaOpts, moreRunArgs);
    }

    /** Waits until the sink has committed the changes of the feed's {@code events} ({@link #awaitCaughtUp(Databases.Handle, String, String, int, int)}). */
    void awaitCaughtUp(int events) throws SQLException, InterruptedException {
        awaitCaughtUp(db, kafka.bootstrapServers(), changesTopic, partitions, events);
    }

    /** Kills the services still running (a harness that failed half-way), then closes the database and the broker. */
    @Override
    public void close() throws InterruptedException {
        try {
            ServiceProcess.killAll();
        } finally {
            db.close();
            kafka.close();
        }
    }

    /** Drops the benchmark's table (and its events table) and dimstream's schema: the service starts on an empty database. */
    static void reset(String jdbc, String table) throws SQLException {
        try (Databases.Handle db = Databases.open(jdbc, null, null, 2);
             Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_events CASCADE");
            s.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
        }
    }

    /**
     * Waits (at most 10 minutes) until the sink has committed every change of the {@code events}
     * produced (each of the benchmark feed's events is one change): the changes topic read whole,
     * then {@code dimstream.sink_offsets} polled until every partition is past its last change.
     */
    static void awaitCaughtUp(Databases.Handle db, String bootstrap, String changesTopic, int partitions, int events)
            throws SQLException, InterruptedException {
        long[] need = OffsetPoller.nextOffsets(LatencyBenchmark.readChanges(bootstrap, changesTopic, partitions, events), partitions);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement q = c.prepareStatement("SELECT partition, next_offset FROM dimstream.sink_offsets WHERE topic = ?")) {
            q.setString(1, changesTopic);
            while (true) {
                long[] at = new long[partitions];
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        at[rs.getInt(1)] = rs.getLong(2);
                    }
                }
                boolean caughtUp = true;
                for (int p = 0; p < partitions; p++) {
                    caughtUp &= at[p] >= need[p];
                }
                if (caughtUp) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the sink did not catch up within 10 minutes: committed " + Arrays.toString(at)
                            + ", changes up to " + Arrays.toString(need));
                }
                Thread.sleep(200);
            }
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
