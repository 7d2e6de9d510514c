package io.dimstream.bench;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.db.connect.Databases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce-to-commit latency of the service at a steady rate, and its memory (not a test).
 *
 * <p>The broker runs in this JVM; the service runs as {@code dimstream run} in a child JVM with
 * default settings, so its resident memory is measured alone (broker and PostgreSQL excluded).
 * Events (tracked changes of random keys) are produced at a fixed rate; each send time is kept
 * by the source record's partition and offset. A poller ({@link OffsetPoller}) reads
 * {@code dimstream.sink_offsets} every 5 ms (the sink's offsets are committed in the same
 * transaction as the rows, so an offset there means the rows are committed). After the run the
 * changes topic is read to map each change back to its source record; an event's latency is the
 * first poll that saw the sink's offset past its change, minus its send time (resolution: the
 * poll interval plus one query).
 * {@link StageSampler} prints where the backlog sits, {@link RssSampler} the child's memory.
 *
 * <p>{@code --rate 2000 --seconds 1800 --rss-every 30} prints the child's RSS every 30 s (the soak
 * before issue 34; {@code e2e/soak.sh} now runs {@link SoakBenchmark}, the service in use as well).
 *
 * <p>Usage: {@code e2e/bench.sh LatencyBenchmark --rate 5000 --seconds 120}; the service settings:
 * {@code --commit-interval-ms N}, {@code --partitioned-by-key true}, {@code --batch-max-wait PT0.1S},
 * {@code --streams "name: value, ..."} (any {@code kafka.streams:} property).
 */
public final class LatencyBenchmark {

    private static final String TOPIC = "bench.latency";
    /** The service's application id, which names its changes topic. */
    private static final String APPLICATION_ID = "latency-bench";
    private static final String CHANGES = ChangeTopics.name(APPLICATION_ID, "customer");

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        String jdbc = a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres");
        int rate = Integer.parseInt(a.getOrDefault("rate", "5000"));
        int seconds = Integer.parseInt(a.getOrDefault("seconds", "120"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup-seconds", "20"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "100000"));
        int partitions = Integer.parseInt(a.getOrDefault("partitions", "3"));
        int rssEvery = Integer.parseInt(a.getOrDefault("rss-every", "10"));
        String javaOpts = a.getOrDefault("java-opts", "");
        // the service's latency settings (defaults: the product's defaults)
        String commitMs = a.get("commit-interval-ms");
        boolean partitionedByKey = Boolean.parseBoolean(a.getOrDefault("partitioned-by-key", "false"));
        String batchMaxWait = a.get("batch-max-wait");
        String table = "bench_latency_customer";

        try (Databases.Handle db = Databases.open(jdbc, null, null, 2)) {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_events CASCADE");
                s.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
            }
        }
        Path dir = Files.createTempDirectory("dimstream-latency-bench");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1)));
            List<String> sink = batchMaxWait == null ? List.of() : List.of("batch-max-wait: " + batchMaxWait);
            String yaml = PipelineBenchmark.config(kafka.bootstrapServers(), jdbc, table, sink, partitionedByKey, false)
                    .replace("bench.customers", TOPIC);
            // --streams 'name: value, ...' passes Kafka Streams properties (kafka.streams:)
            List<String> streams = new ArrayList<>();
            if (commitMs != null) {
                streams.add("commit.interval.ms: " + commitMs);
            }
            if (a.containsKey("streams")) {
                streams.add(a.get("streams"));
            }
            if (!streams.isEmpty()) {
                yaml = yaml.replaceFirst("(?m)^  bootstrap-servers: (.*)$", "  bootstrap-servers: $1\n  streams: {"
                        + Matcher.quoteReplacement(String.join(", ", streams)) + "}");
            }
            Path config = Files.writeString(dir.resolve("config.yml"), yaml);
            System.out.println("service config:\n" + yaml);
            Process service = startService(config, dir, partitions, javaOpts);
            RssSampler rss = new RssSampler(service.pid(), rssEvery);
            try (Databases.Handle db = Databases.open(jdbc, null, null, 2)) {
                awaitRunning(dir.resolve("service.out"), service);
                rss.start();
                OffsetPoller poller = new OffsetPoller(db, CHANGES, partitions);
                poller.start();
                StageSampler stages = new StageSampler(kafka.bootstrapServers(), TOPIC, CHANGES, partitions, poller);
                stages.start();
                int total = rate * (warmup + seconds);
                Sent sent = produce(kafka.bootstrapServers(), total, rate, keys, partitions);
                System.out.printf(Locale.ROOT, "produced %,d events at %,d/s (%d s warm-up + %d s measured)%n",
                        total, rate, warmup, seconds);
                Map<Long, Long> changeToSource = readChanges(kafka.bootstrapServers(), partitions, total);
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
                while (!poller.covers(changeToSource) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                poller.stop();
                stages.stop();
                report(sent, changeToSource, poller, rate * warmup, total);
                stages.report();
            } finally {
                rss.stop();
                service.destroy();
                service.waitFor(60, TimeUnit.SECONDS);
                rss.report();
            }
        }
    }

    // ---- the service in a child JVM ------------------------------------------------------

    static Process startService(Path config, Path dir, int partitions, String javaOpts) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (!javaOpts.isBlank()) {
            cmd.addAll(Arrays.asList(javaOpts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.dimstream.cli.DimstreamCli", "run",
                "--config", config.toString(), "--data-dir", dir.resolve("service").toString(),
                "--application-id", APPLICATION_ID, "--partitions", Integer.toString(partitions), "--metrics-port", "-1"));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve("service.out").toFile())
                .redirectError(dir.resolve("service.err").toFile());
        // what the launcher (./dimstream, bin/dimstream) sets, unless the environment has it
        pb.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
        return pb.start();
    }

    static void awaitRunning(Path out, Process service) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (!service.isAlive()) {
                throw new IllegalStateException("the service exited with " + service.exitValue() + "; see " + out.getParent());
            }
            if (Files.exists(out) && Files.readString(out).contains("running:")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the service did not start within 3 minutes; see " + out.getParent());
    }

    // ---- steady producer -------------------------------------------------------------------

    /** Send time (nanoTime) of every event, and its source partition and offset once acknowledged. */
    record Sent(long[] sendNanos, Map<Long, Integer> indexBySource) {
    }

    static Sent produce(String bootstrap, int total, int rate, int keys, int partitions) throws InterruptedException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        long[] sendNanos = new long[total];
        Map<Long, Integer> bySource = new ConcurrentHashMap<>(total * 2);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            Random rnd = new Random(7);
            long t0 = System.nanoTime();
            long periodNanos = 1_000_000_000L / rate;
            for (int i = 0; i < total; i++) {
                long due = t0 + i * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 1_000_000) {
                    Thread.sleep(wait / 1_000_000);
                }
                String id = String.format(Locale.ROOT, "C%07d", rnd.nextInt(keys));
                byte[] value = PipelineBenchmark.event(id, i, rnd);
                int index = i;
                sendNanos[i] = System.nanoTime();
                producer.send(new ProducerRecord<>(TOPIC, id.getBytes(StandardCharsets.UTF_8), value), (md, e) -> {
                    if (e == null) {
                        bySource.put(sourceKey(md.partition(), md.offset()), index);
                    }
                });
            }
            producer.flush();
        }
        if (bySource.size() != total) {
            throw new IllegalStateException(bySource.size() + " of " + total + " sends were acknowledged");
        }
        return new Sent(sendNanos, bySource);
    }

    static long sourceKey(int partition, long offset) {
        return ((long) partition << 40) | offset;
    }

    /** Reads the whole changes topic: (changes partition, offset) -> (source partition, offset). */
    static Map<Long, Long> readChanges(String bootstrap, int partitions, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<Long, Long> map = new HashMap<>(expected * 2);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(CHANGES, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            while (map.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    ChangeRecord c = ChangeCodec.decode(r.value());
                    map.put(sourceKey(r.partition(), r.offset()), sourceKey(c.sourcePartition(), c.sourceOffset()));
                }
            }
        }
        if (map.size() < expected) {
            throw new IllegalStateException("only " + map.size() + " of " + expected + " changes reached the changes topic");
        }
        return map;
    }

    static void report(Sent sent, Map<Long, Long> changeToSource, OffsetPoller poller, int skip, int total) {
        long[] latencies = new long[total - skip];
        int n = 0;
        for (Map.Entry<Long, Long> e : changeToSource.entrySet()) {
            int index = sent.indexBySource().get(e.getValue());
            if (index < skip) {
                continue;
            }
            long change = e.getKey();
            long committed = poller.committedAt((int) (change >>> 40), change & ((1L << 40) - 1));
            latencies[n++] = committed - sent.sendNanos()[index];
        }
        long[] l = Arrays.copyOf(latencies, n);
        Arrays.sort(l);
        System.out.printf(Locale.ROOT, "produce-to-commit latency over %,d events after the warm-up: p50 %d ms, p90 %d ms, p99 %d ms, max %d ms%n",
                n, ms(l, 0.50), ms(l, 0.90), ms(l, 0.99), l[l.length - 1] / 1_000_000);
    }

    static long ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1_000_000;
    }
}
