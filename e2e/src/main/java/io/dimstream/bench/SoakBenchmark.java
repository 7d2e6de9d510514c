package io.dimstream.bench;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The long run (issue 34, not a test): {@code dimstream run} (a child JVM, the launcher's settings,
 * the memory pruned every {@code --prune-interval}, an entity with a finite lateness horizon) and
 * {@code dimstream admin} (another child JVM) at a steady {@code --rate} events/s for
 * {@code --minutes} (both with the launcher's {@code -Xmx512m} unless {@code --java-opts} says
 * otherwise), while the admin's API is read every few seconds and a replay of the last
 * seconds of the source is queued and awaited every few minutes ({@link SoakActivity}). Sampled
 * every 30 s ({@link SoakSampler}): RSS, heap, threads, open files, PostgreSQL connections, the
 * topics' lag and the window's p99 latency ({@link LatencyProbe}). At the end: production stops,
 * the service catches up, the table is compared with the reference model whole row by whole row
 * ({@link SoakCheck}), each series is judged flat or not ({@link SoakReport#verdict}) and the TSV
 * and SVG plot are written ({@code --out}, default {@code docs/benchmarks-soak}). Exit 0 only when
 * the table is exact, every series flat and nothing failed.
 *
 * <p>Usage: {@code e2e/soak.sh} (two hours), {@code e2e/soak.sh --minutes 5}.
 */
public final class SoakBenchmark {
    static final String SERVICE_APP = "dimstream-run";
    static final String ADMIN_APP = "dimstream-admin";
    private static final String TOPIC = "soak.customers";
    private static final String APPLICATION_ID = "soak";
    private static final String TABLE = "soak_customer";
    private static final long SEED = 7;

    private SoakBenchmark() {
    }

    /** The run's settings, from the command line. */
    record Settings(String jdbc, int minutes, int rate, int keys, int partitions, int versionEvery, String lateness,
                    String pruneInterval, int replayEvery, int replayBackSeconds, int pageEvery, int sampleEvery,
                    String javaOpts, Path out) {
        static Settings of(Map<String, String> a) {
            return new Settings(a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_soak?user=dimstream_ci&password=dimstream-ci"),
                    Integer.parseInt(a.getOrDefault("minutes", "120")), Integer.parseInt(a.getOrDefault("rate", "2000")),
                    Integer.parseInt(a.getOrDefault("keys", "20000")), Integer.parseInt(a.getOrDefault("partitions", "3")),
                    Integer.parseInt(a.getOrDefault("version-every-seconds", "60")), a.getOrDefault("lateness-horizon", "PT2M"),
                    a.getOrDefault("prune-interval", "PT1M"), Integer.parseInt(a.getOrDefault("replay-every-seconds", "180")),
                    Integer.parseInt(a.getOrDefault("replay-back-seconds", "20")), Integer.parseInt(a.getOrDefault("page-every-seconds", "5")),
                    Integer.parseInt(a.getOrDefault("sample-every-seconds", "30")), a.getOrDefault("java-opts", "-Xmx512m"),
                    Path.of(a.getOrDefault("out", "docs/benchmarks-soak")));
        }
    }

    public static void main(String[] args) throws Exception {
        Settings s = Settings.of(WriterBenchmark.parseArgs(args));
        System.exit(run(s) ? 0 : 1);
    }

    static boolean run(Settings s) throws Exception {
        prepareDatabase(s.jdbc());
        Path dir = Files.createTempDirectory("dimstream-soak");
        System.out.println("soak: " + s + "; files in " + dir);
        String token = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        int metricsPort = freePort();
        int adminPort = freePort();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
             Admin kafkaAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, s.partitions(), (short) 1)));
            String serviceYaml = config(s, kafka.bootstrapServers(), SERVICE_APP, adminPort);
            Path serviceConfig = Files.writeString(dir.resolve("service.yml"), serviceYaml);
            Path adminConfig = Files.writeString(dir.resolve("admin.yml"), config(s, kafka.bootstrapServers(), ADMIN_APP, adminPort));
            System.out.println("service config:\n" + serviceYaml);
            EntitySpec spec = DimstreamConfig.parse(serviceYaml, "soak", Map.of("SOAK_ADMIN_TOKEN", token)).entities().get(0).toEntitySpec();
            Process service = child(dir, "service", s.javaOpts(), token, "run", "--config", serviceConfig.toString(),
                    "--data-dir", dir.resolve("service").toString(), "--application-id", APPLICATION_ID,
                    "--partitions", Integer.toString(s.partitions()), "--metrics-port", Integer.toString(metricsPort),
                    "--metrics-host", "127.0.0.1");
            Process admin = null;
            try (Databases.Handle db = Databases.open(s.jdbc(), null, null, 4)) {
                ServiceProcess.awaitRunning("the service", service, dir.resolve("service.out"));
                admin = child(dir, "admin", s.javaOpts(), token, "admin", "--config", adminConfig.toString(), "--port", Integer.toString(adminPort),
                        "--host", "127.0.0.1");
                awaitAdmin(admin, adminPort, token, dir);
                return soak(s, kafka.bootstrapServers(), kafkaAdmin, db, spec, service, admin, metricsPort, adminPort, token, dir);
            } finally {
                stop(admin);
                stop(service);
            }
        }
    }

    private static boolean soak(Settings s, String bootstrap, Admin kafkaAdmin, Databases.Handle db, EntitySpec spec, Process service,
                                Process admin, int metricsPort, int adminPort, String token, Path dir) throws Exception {
        String changes = ChangeTopics.name(APPLICATION_ID, "customer");
        Instant base = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        SoakFeed feed = new SoakFeed(SEED, s.keys(), base, s.rate(), s.versionEvery());
        LatencyProbe probe = new LatencyProbe(db, bootstrap, changes, s.partitions());
        SoakSampler sampler = new SoakSampler(service.pid(), admin.pid(), metricsPort, s.sampleEvery(), db, bootstrap, TOPIC, changes,
                s.partitions(), probe);
        SoakActivity activity = new SoakActivity("http://127.0.0.1:" + adminPort, token, s.pageEvery(), s.replayEvery(),
                () -> sourceEnds(kafkaAdmin, s.partitions()), (long) s.rate() * s.replayBackSeconds() / s.partitions(),
                feed::eventTime, feed::produced, s.keys());
        probe.start();
        sampler.start();
        activity.start();
        long t0 = System.nanoTime();
        long failedSends = produce(bootstrap, feed, s.rate(), TimeUnit.MINUTES.toNanos(s.minutes()), probe);
        int events = feed.produced();
        System.out.printf(Locale.ROOT, "produced %,d events in %.1f s (%d failed sends)%n", events, (System.nanoTime() - t0) / 1e9, failedSends);
        sampler.stop();
        activity.stop();
        long caughtUp = awaitCatchUp(kafkaAdmin, sampler, probe, s.partitions());
        System.out.printf(Locale.ROOT, "caught up %.1f s after the last event was produced%n", caughtUp / 1e9);
        probe.stop();
        histogram(service.pid(), dir);
        SoakCheck.Result check = SoakCheck.compare(db.dataSource(), spec,
                () -> new SoakFeed(SEED, s.keys(), base, s.rate(), s.versionEvery()), events, 16);
        return report(s, sampler.rows(), activity, check, probe, failedSends, events, dir);
    }

    private static boolean report(Settings s, List<double[]> rows, SoakActivity activity, SoakCheck.Result check, LatencyProbe probe,
                                  long failedSends, int events, Path dir) throws IOException {
        Path tsv = Path.of(s.out() + ".tsv");
        Path svg = Path.of(s.out() + ".svg");
        if (tsv.getParent() != null) {
            Files.createDirectories(tsv.getParent());
        }
        SoakReport.writeTsv(tsv, rows);
        String title = String.format(Locale.ROOT, "SoakBenchmark: %,d events/s for %d min, prune every %s, a replay every %d s, admin API every %d s",
                s.rate(), s.minutes(), s.pruneInterval(), s.replayEvery(), s.pageEvery());
        Files.writeString(svg, SoakReport.svg(rows, s.rate(), title));
        System.out.println("series written to " + tsv + " and " + svg + "; the service's files in " + dir);
        boolean flat = SoakReport.verdict(rows, s.rate());
        List<String> replays = activity.replayLines();
        List<String> failures = activity.failures();
        System.out.printf(Locale.ROOT, "admin API: %,d requests, %d failures; replays: %d, all SUCCEEDED with 0 rejected: %s; "
                        + "latency samples unmatched after 10 min: %d%n", activity.pagesFetched(), failures.size(), replays.size(),
                failures.stream().noneMatch(f -> f.startsWith("replay")), probe.expired());
        failures.forEach(f -> System.out.println("  failure: " + f));
        System.out.printf(Locale.ROOT, "table against the reference model (whole rows, %,d events): %,d rows, %,d expected: %s%n",
                events, check.rows(), check.expectedRows(), check.exact() ? "EXACT" : "DIFFERENT");
        check.differences().forEach(d -> System.out.println("  " + d));
        boolean ok = check.exact() && flat && failures.isEmpty() && failedSends == 0;
        System.out.println("soak verdict: " + (ok ? "PASSED" : "FAILED") + " (table " + (check.exact() ? "exact" : "NOT exact")
                + ", series " + (flat ? "flat" : "NOT flat") + ", " + failures.size() + " failed admin calls or replays)");
        return ok;
    }

    // ---- the feed ----------------------------------------------------------------------------

    /** Produces the feed at {@code rate} for {@code nanos}; every 50th event is a latency sample. Returns the failed sends. */
    private static long produce(String bootstrap, SoakFeed feed, int rate, long nanos, LatencyProbe probe) throws InterruptedException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        AtomicLong failed = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            long t0 = System.nanoTime();
            long periodNanos = 1_000_000_000L / rate;
            for (long i = 0; i * periodNanos < nanos; i++) {
                long wait = t0 + i * periodNanos - System.nanoTime();
                if (wait > 1_000_000) {
                    Thread.sleep(wait / 1_000_000);
                }
                SoakFeed.Item item = feed.next(true);
                long sent = System.nanoTime();
                boolean sample = i % 50 == 0;
                producer.send(new ProducerRecord<>(TOPIC, item.key().getBytes(StandardCharsets.UTF_8), item.json()), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                    } else if (sample) {
                        probe.sent(md.partition(), md.offset(), sent);
                    }
                });
            }
            producer.flush();
        }
        return failed.get();
    }

    static long[] sourceEnds(Admin admin, int partitions) {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            ends.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
        }
        try {
            var r = admin.listOffsets(ends).all().get(30, TimeUnit.SECONDS);
            long[] out = new long[partitions];
            r.forEach((tp, info) -> out[tp.partition()] = info.offset());
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the end offsets of " + TOPIC, e);
        }
    }

    /**
     * Waits until the sink's offset of each changes partition is at most one (the transaction
     * marker) behind the changes topic's read_committed end, with that end unchanged for 3 s and
     * the source fully consumed. Returns the nanoseconds it took.
     */
    private static long awaitCatchUp(Admin admin, SoakSampler sampler, LatencyProbe probe, int partitions) throws Exception {
        long t0 = System.nanoTime();
        long[] last = null;
        while (System.nanoTime() - t0 < TimeUnit.MINUTES.toNanos(30)) {
            long[] ends = new long[partitions];
            sampler.changesEnds(admin).forEach((tp, info) -> ends[tp.partition()] = Math.max(0, info.offset() - 1));
            if (last != null && Arrays.equals(last, ends) && probe.sinkAt(ends)) {
                return System.nanoTime() - t0;
            }
            last = ends;
            Thread.sleep(3000);
        }
        throw new IllegalStateException("the service did not catch up within 30 minutes of the end of the feed");
    }

    // ---- the children ------------------------------------------------------------------------

    static String config(Settings s, String bootstrap, String applicationName, int adminPort) {
        String url = s.jdbc() + (s.jdbc().contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
        return """
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                service:
                  prune-interval: %s
                entities:
                  - name: customer
                    topic: %s
                    format: json
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: %s
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                admin:
                  host: 127.0.0.1
                  port: %d
                  secure-cookie: false
                  api-tokens:
                    - name: soak
                      role: admin
                      token: ${SOAK_ADMIN_TOKEN}
                """.formatted(bootstrap, url, s.pruneInterval(), TOPIC, TABLE, s.lateness(), adminPort);
    }

    private static Process child(Path dir, String name, String javaOpts, String token, String... args) throws IOException {
        ProcessBuilder pb = ServiceProcess.dimstream(javaOpts, List.of(args), dir.resolve(name + ".out"), dir.resolve(name + ".err"));
        pb.environment().put("SOAK_ADMIN_TOKEN", token);
        Process p = pb.start();
        System.out.println(name + ": pid " + p.pid() + ", output in " + dir.resolve(name + ".out"));
        return p;
    }

    private static void awaitAdmin(Process admin, int port, String token, Path dir) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (!admin.isAlive()) {
                throw new IllegalStateException("the admin exited with " + admin.exitValue() + "; see " + dir.resolve("admin.err"));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/dashboard"))
                        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the admin did not answer within 3 minutes; see " + dir.resolve("admin.err"));
    }

    /** The service's heap by class (top 25 lines) at the end, kept in the run's directory: the evidence when a series grows. */
    private static void histogram(long pid, Path dir) throws Exception {
        Path out = dir.resolve("class-histogram.txt");
        List<String> lines = SoakSampler.classHistogram(pid);
        Files.write(out, lines);
        System.out.println("the service's heap by class at the end (jcmd GC.class_histogram, " + out + "):");
        lines.stream().limit(25).forEach(l -> System.out.println("  " + l));
    }

    private static void stop(Process p) throws InterruptedException {
        if (p != null) {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * The database of {@code jdbc}, made when missing, without what an earlier run left: the soak's
     * table (its view, memory, superseded images and functions go with it) and dimstream's schema,
     * as {@link LatencyBenchmark} does. Nothing else of the database is touched.
     */
    static void prepareDatabase(String jdbc) throws Exception {
        String db = URI.create(jdbc.substring(5)).getPath().substring(1);
        if (!db.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("--jdbc: the database name " + db + " is not a plain lower-case identifier");
        }
        String postgres = jdbc.replaceFirst("/" + db + "(\\?|$)", "/postgres$1");
        try (Databases.Handle h = Databases.open(postgres, null, null, 1); Connection c = h.dataSource().getConnection();
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + db + "'")) {
            if (!rs.next()) {
                st.execute("CREATE DATABASE " + db);
            }
        }
        try (Databases.Handle h = Databases.open(jdbc, null, null, 1); Connection c = h.dataSource().getConnection();
             Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_events, " + TABLE + "_superseded CASCADE");
            st.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
