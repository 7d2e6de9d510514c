package io.dimstream.bench;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.db.connect.Databases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

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
        String table = "bench_latency_customer";

        ServiceBench.reset(jdbc, table);
        Path dir = Files.createTempDirectory("dimstream-latency-bench");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1)));
            // the product's defaults unless given the latency settings
            String yaml = ServiceBench.serviceYaml(a, kafka.bootstrapServers(), jdbc, table, TOPIC);
            Path config = Files.writeString(dir.resolve("config.yml"), yaml);
            System.out.println("service config:\n" + yaml);
            ServiceProcess service = ServiceProcess.start(config, dir, "service", APPLICATION_ID, partitions, javaOpts);
            RssSampler rss = new RssSampler(service.pid(), rssEvery);
            try (Databases.Handle db = Databases.open(jdbc, null, null, 2)) {
                service.awaitRunning();
                rss.start();
                OffsetPoller poller = new OffsetPoller(db, CHANGES, partitions);
                poller.start();
                StageSampler stages = new StageSampler(kafka.bootstrapServers(), TOPIC, CHANGES, partitions, poller);
                stages.start();
                int total = rate * (warmup + seconds);
                SteadyFeed sent = SteadyFeed.start(kafka.bootstrapServers(), TOPIC, rate, keys, 7, total);
                sent.stop();
                System.out.printf(Locale.ROOT, "produced %,d events at %,d/s (%d s warm-up + %d s measured)%n",
                        total, rate, warmup, seconds);
                Map<Long, Long> changeToSource = readChanges(kafka.bootstrapServers(), CHANGES, partitions, total);
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
                service.terminate();
                rss.report();
            }
        }
    }

    static long sourceKey(int partition, long offset) {
        return ((long) partition << 40) | offset;
    }

    /** Reads the whole changes topic: (changes partition, offset) -> (source partition, offset). */
    static Map<Long, Long> readChanges(String bootstrap, String changesTopic, int partitions, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<Long, Long> map = new HashMap<>(expected * 2);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(changesTopic, i));
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

    static void report(SteadyFeed sent, Map<Long, Long> changeToSource, OffsetPoller poller, int skip, int total) {
        long[] latencies = new long[total - skip];
        int n = 0;
        Map<Long, Integer> indexBySource = sent.indexBySource();
        for (Map.Entry<Long, Long> e : changeToSource.entrySet()) {
            int index = indexBySource.get(e.getValue());
            if (index < skip) {
                continue;
            }
            long change = e.getKey();
            long committed = poller.committedAt((int) (change >>> 40), change & ((1L << 40) - 1));
            latencies[n++] = committed - sent.sendNanos(index);
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
