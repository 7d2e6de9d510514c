package io.dimstream.bench;

import io.dimstream.db.connect.Databases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The soak's series ({@link SoakBenchmark}): every second the service's heap in use (Prometheus
 * {@code jvm_memory_used_bytes{area="heap"}}, summed over pools), of which the window's minimum is
 * kept (the level right after a young collection, at this rate several a window: what a leak raises); every {@code every}
 * seconds a row: the service's RSS ({@code /proc/PID/status}), that minimum, live threads, open
 * files ({@code /proc/PID/fd}), the PostgreSQL connections of the service and of the admin (by
 * {@code application_name}, set in their JDBC URLs), the source lag (end offsets minus the
 * offsets committed by the consumer groups reading the source topic: what is not classified
 * yet), the changes lag (the changes topic's read_committed end offsets minus the sink's
 * offsets; transaction markers included, so never 0 under load), the window's p99 latency, the
 * admin's RSS, and every {@value #LIVE_EVERY_SECONDS} s the heap's live set: the bytes of every
 * object still reachable, from {@code jcmd PID GC.class_histogram}, which makes a full collection
 * first (its pause, 0.1-0.3 s for this heap, falls into one latency window), on the row after it
 * (-1, left out of the verdict, on the others). The window minimum of the heap in use counts old
 * garbage G1 has not collected yet (a 2-hour soak saw it rise 10.7% while the live set after a full
 * GC at the end was 28 MB), and so does Micrometer's {@code jvm_gc_live_data_size_bytes}, which
 * is the old generation after the last collection that made it smaller (a soak saw it climb from
 * 30 to 70 MiB in 32 minutes, through five concurrent cycles, while a class histogram then counted
 * 29 MB): only a full collection's count is the live set, which is what a leak raises.
 */
final class SoakSampler {
    static final int LIVE_EVERY_SECONDS = 300;
    static final List<String> COLUMNS = List.of("s", "rss_mib", "heap_min_mib", "threads", "open_files", "pg_conns_service",
            "pg_conns_admin", "source_lag", "changes_lag", "p99_ms", "latency_samples", "admin_rss_mib", "live_mib");

    private final long servicePid;
    private final long adminPid;
    private final int metricsPort;
    private final int every;
    private final Databases.Handle db;
    private final String bootstrap;
    private final String sourceTopic;
    private final String changesTopic;
    private final int partitions;
    private final LatencyProbe probe;
    private final List<double[]> rows = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final long t0 = System.nanoTime();
    private Set<String> groups = Set.of();
    private Thread thread;

    SoakSampler(long servicePid, long adminPid, int metricsPort, int every, Databases.Handle db, String bootstrap,
                String sourceTopic, String changesTopic, int partitions, LatencyProbe probe) {
        this.servicePid = servicePid;
        this.adminPid = adminPid;
        this.metricsPort = metricsPort;
        this.every = every;
        this.db = db;
        this.bootstrap = bootstrap;
        this.sourceTopic = sourceTopic;
        this.changesTopic = changesTopic;
        this.partitions = partitions;
        this.probe = probe;
    }

    void start() {
        thread = new Thread(this::run, "soak-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running.set(false);
        thread.interrupt();
        thread.join(30_000);
    }

    List<double[]> rows() {
        synchronized (rows) {
            return new ArrayList<>(rows);
        }
    }

    private void run() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            double heapMin = Double.MAX_VALUE;
            double live = -1;
            long nextRow = every;
            long nextLive = LIVE_EVERY_SECONDS;
            while (running.get()) {
                Thread.sleep(1000);
                heapMin = Math.min(heapMin, heapMib());
                long s = (System.nanoTime() - t0) / 1_000_000_000L;
                if (s >= nextLive) {
                    live = liveMib();
                    nextLive += LIVE_EVERY_SECONDS;
                }
                if (s >= nextRow) {
                    double[] row = row(admin, s, heapMin, live);
                    live = -1;
                    synchronized (rows) {
                        rows.add(row);
                    }
                    System.out.println(SoakReport.line(row));
                    heapMin = Double.MAX_VALUE;
                    nextRow += every;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            System.err.println("the soak sampler stopped: " + e);
            e.printStackTrace();
        }
    }

    private double[] row(Admin admin, long s, double heapMin, double live) throws Exception {
        Map<String, Double> m = metrics();
        long[] conns = connections();
        long[] p99 = probe.drainWindow();
        return new double[] {s, rssKb(servicePid) / 1024.0, heapMin, m.getOrDefault("jvm_threads_live_threads", -1.0),
                openFiles(servicePid), conns[0], conns[1], sourceLag(admin), changesLag(admin), p99[0], p99[1],
                rssKb(adminPid) / 1024.0, live};
    }

    /** The heap's live set in MiB: the total of the service's class histogram (after its full collection); -1 when unknown. */
    private double liveMib() {
        try {
            double bytes = histogramTotalBytes(classHistogram(servicePid));
            return bytes < 0 ? -1 : bytes / (1024 * 1024);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * {@code jcmd PID GC.class_histogram}: the heap by class, after a full collection; empty when
     * jcmd did not end in 2 minutes. Its output goes to a file, read once it ended: reading its
     * stdout to the end would wait for a hung jcmd without bound, and the sampler with it.
     */
    static List<String> classHistogram(long pid) throws IOException, InterruptedException {
        Path out = Files.createTempFile("dimstream-soak-histogram", ".txt");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid),
                    "GC.class_histogram").redirectOutput(out.toFile()).redirectErrorStream(true).start();
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return List.of();
            }
            return Files.readAllLines(out);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** The bytes of the {@code Total} line of a class histogram ({@code Total <instances> <bytes>}); -1 without one. */
    static double histogramTotalBytes(List<String> histogram) {
        for (String line : histogram) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("Total")) {
                return Double.parseDouble(f[2]);
            }
        }
        return -1;
    }

    private double heapMib() {
        try {
            return metrics().getOrDefault("heap", -1.0) / (1024 * 1024);
        } catch (IOException | InterruptedException e) {
            return Double.MAX_VALUE;
        }
    }

    /** The service's /metrics: heap in use summed over its pools ("heap"), and the other unlabelled gauges. */
    private Map<String, Double> metrics() throws IOException, InterruptedException {
        HttpResponse<Stream<String>> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofLines());
        Map<String, Double> out = new HashMap<>();
        r.body().forEach(line -> {
            if (line.startsWith("#") || line.isBlank()) {
                return;
            }
            int sp = line.lastIndexOf(' ');
            String name = line.substring(0, sp);
            double v = Double.parseDouble(line.substring(sp + 1));
            if (name.startsWith("jvm_memory_used_bytes{") && name.contains("area=\"heap\"")) {
                out.merge("heap", v, Double::sum);
            } else if (!name.contains("{")) {
                out.put(name, v);
            }
        });
        return out;
    }

    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    static long openFiles(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Connections to this database named dimstream-run and dimstream-admin. */
    private long[] connections() throws Exception {
        long[] out = new long[2];
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT application_name, count(*) FROM pg_stat_activity "
                     + "WHERE datname = current_database() GROUP BY application_name")) {
            while (rs.next()) {
                if (SoakBenchmark.SERVICE_APP.equals(rs.getString(1))) {
                    out[0] = rs.getLong(2);
                } else if (SoakBenchmark.ADMIN_APP.equals(rs.getString(1))) {
                    out[1] = rs.getLong(2);
                }
            }
        }
        return out;
    }

    private long sourceLag(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            ends.put(new TopicPartition(sourceTopic, i), OffsetSpec.latest());
        }
        long end = sum(admin.listOffsets(ends).all().get(30, TimeUnit.SECONDS));
        if (groups.isEmpty()) { // the Kafka Streams group(s) reading the source topic, whatever they are named
            Set<String> found = new HashSet<>();
            for (ConsumerGroupListing g : admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS)) {
                Map<TopicPartition, OffsetAndMetadata> o = admin.listConsumerGroupOffsets(g.groupId()).partitionsToOffsetAndMetadata().get();
                if (o.keySet().stream().anyMatch(tp -> tp.topic().equals(sourceTopic))) {
                    found.add(g.groupId());
                }
            }
            groups = found;
        }
        long committed = 0;
        for (String g : groups) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e
                    : admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).entrySet()) {
                if (e.getKey().topic().equals(sourceTopic) && e.getValue() != null) {
                    committed += e.getValue().offset();
                }
            }
        }
        return groups.isEmpty() ? -1 : end - committed;
    }

    private long changesLag(Admin admin) throws Exception {
        return sum(changesEnds(admin)) - probe.sinkTotal();
    }

    Map<TopicPartition, ListOffsetsResultInfo> changesEnds(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            ends.put(new TopicPartition(changesTopic, i), OffsetSpec.latest());
        }
        return admin.listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
    }

    private static long sum(Map<TopicPartition, ListOffsetsResultInfo> m) {
        return m.values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
    }
}
