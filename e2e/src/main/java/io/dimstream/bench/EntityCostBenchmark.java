package io.dimstream.bench;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.db.connect.Databases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What an entity costs the service now that each runs on a Kafka Streams client of its own (not a
 * test): {@code dimstream run} in a child JVM with N small JSON entities (each fed 200 events, then
 * idle), for each N of {@code --entities} (default {@code 1,10,20}); after {@code --settle-seconds}
 * (default 60) its live threads, the threads whose name carries one entity's client id, its RSS
 * and its heap used after a full GC ({@code jcmd}). The difference between two N divided by their
 * difference is the cost of one entity.
 *
 * <p>Usage: {@code e2e/bench.sh EntityCostBenchmark --entities 1,10,20 --java-opts -Xmx512m}.
 */
public final class EntityCostBenchmark {

    private static final String APPLICATION_ID = "latency-bench";
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total \\d+K, used (\\d+)K");

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        String jdbc = a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres");
        int[] counts = Arrays.stream(a.getOrDefault("entities", "1,10,20").split(",")).mapToInt(Integer::parseInt).toArray();
        int settle = Integer.parseInt(a.getOrDefault("settle-seconds", "60"));
        String javaOpts = a.getOrDefault("java-opts", "-Xmx512m");
        Path dir = Files.createTempDirectory("dimstream-entity-cost");
        List<String> results = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            int max = Arrays.stream(counts).max().orElse(1);
            kafka.createTopics(IntStream.range(0, max).mapToObj(i -> new NewTopic("cost.e" + i, 3, (short) 1)).toList());
            produce(kafka.bootstrapServers(), max);
            for (int n : counts) {
                results.add(measure(kafka.bootstrapServers(), jdbc, dir.resolve("n" + n), n, settle, javaOpts));
            }
        }
        System.out.println("entities\tthreads\tthreads of one entity's client\tRSS MiB\theap used after GC MiB");
        results.forEach(System.out::println);
    }

    private static String measure(String bootstrap, String jdbc, Path dir, int n, int settle, String javaOpts) throws Exception {
        try (Databases.Handle db = Databases.open(jdbc, null, null, 2);
             Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
            for (int i = 0; i < n; i++) {
                s.execute("DROP TABLE IF EXISTS bench_cost_e" + i + " CASCADE");
            }
        }
        Files.createDirectories(dir);
        StringBuilder yaml = new StringBuilder("kafka:\n  bootstrap-servers: " + bootstrap + "\npostgres:\n  url: " + jdbc + "\nentities:\n");
        for (int i = 0; i < n; i++) {
            yaml.append("  - name: e").append(i).append("\n    topic: cost.e").append(i).append("\n    format: json\n    table: bench_cost_e")
                    .append(i).append("\n    key: [id]\n    tracked: [v]\n    columns: {id: text, v: text}\n");
        }
        Path config = Files.writeString(dir.resolve("config.yml"), yaml.toString());
        ServiceProcess service = ServiceProcess.start(config, dir, "service", APPLICATION_ID, 3, javaOpts);
        try {
            service.awaitRunning();
            Thread.sleep(TimeUnit.SECONDS.toMillis(settle));
            long pid = service.pid();
            String status = Files.readString(Path.of("/proc/" + pid + "/status"));
            int threads = Integer.parseInt(field(status, "Threads"));
            long rssKb = Long.parseLong(field(status, "VmRSS").replace(" kB", "").trim());
            jcmd(pid, "GC.run");
            Matcher m = HEAP_USED.matcher(jcmd(pid, "GC.heap_info"));
            long heapKb = m.find() ? Long.parseLong(m.group(1)) : -1;
            String dump = jcmd(pid, "Thread.print");
            long ofOneClient = Pattern.compile("^\"[^\"]*" + Pattern.quote(APPLICATION_ID + ".e0") + "[-\"| ]", Pattern.MULTILINE)
                    .matcher(dump).results().count();
            return String.format(Locale.ROOT, "%d\t%d\t%d\t%d\t%d", n, threads, ofOneClient, rssKb / 1024, heapKb / 1024);
        } finally {
            service.terminate();
        }
    }

    private static String field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name + ":")).findFirst().orElseThrow().substring(name.length() + 1).trim();
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    /** 200 upserts of distinct keys on each entity's topic. */
    private static void produce(String bootstrap, int topics) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // a record twice changes nothing here; idempotence only met out-of-order sequences on a loaded broker
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int t = 0; t < topics; t++) {
                for (int i = 0; i < 200; i++) {
                    String json = "{\"op\":\"upsert\",\"event_time\":\"2025-08-22T17:00:00Z\",\"data\":{\"id\":\"k" + i + "\",\"v\":\"x\"}}";
                    producer.send(new ProducerRecord<>("cost.e" + t, ("k" + i).getBytes(StandardCharsets.UTF_8),
                            json.getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }
}
