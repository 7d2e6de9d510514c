package io.dimstream.bench;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end throughput of the streaming pipeline (not a test): N native JSON change events over
 * K keys produced to a source topic on an embedded broker, timed from the first produce to the
 * moment the sink has committed everything to PostgreSQL; beside it, in the same run, a naive
 * consumer that applies each event in its own transaction (the writer, one event per batch).
 * Reports the JVM's peak resident memory (it includes the embedded broker; PostgreSQL is external).
 *
 * <p>Usage: {@code ./mvnw -q -B -DskipTests install -pl e2e -am && ./mvnw -q -B -pl e2e exec:java
 * -Dexec.mainClass=io.dimstream.bench.PipelineBenchmark -Dexec.args="--jdbc URL --events 1000000 --keys 100000 --naive 20000"}; {@code --sink-batch-size N} sets sink.batch-size, {@code --sink-parallelism N} sink.parallelism,
 * {@code --surrogate-index true} the entity's (and the naive peer's table's) {@code surrogate-key-index: true}
 */
public final class PipelineBenchmark {


    public static void main(String[] args) throws Exception {
        Map<String, String> a = WriterBenchmark.parseArgs(args);
        String jdbc = a.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/dimstream_bench?user=postgres&password=postgres");
        int events = Integer.parseInt(a.getOrDefault("events", "1000000"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "100000"));
        int naive = Integer.parseInt(a.getOrDefault("naive", "20000"));
        // the sink: section, from --sink-batch-size and --sink-parallelism; absent: the defaults
        List<String> sink = new java.util.ArrayList<>();
        if (a.containsKey("sink-batch-size")) {
            sink.add("batch-size: " + Integer.parseInt(a.get("sink-batch-size")));
        }
        if (a.containsKey("sink-parallelism")) {
            sink.add("parallelism: " + Integer.parseInt(a.get("sink-parallelism")));
        }
        // partitioned-by-key: true skips the repartition step; true of this benchmark's producer,
        // which keys every record by its customer_id (the default partitioner)
        boolean byKey = Boolean.parseBoolean(a.getOrDefault("partitioned-by-key", "false"));
        // events of a key range of their own ("W" keys) through the pipeline before the timed run,
        // so the JIT has compiled the hot paths (cold, C2 compiles took ~15% of the machine's CPU
        // in the timed window of a 1M-event run); 0: measure from a cold start
        int warmup = Integer.parseInt(a.getOrDefault("warmup", "0"));
        // surrogate-key-index of the entity (and of the naive peer's table); absent: the default, false
        boolean surrogateIndex = "true".equals(a.get("surrogate-index"));
        Path dir = Files.createTempDirectory("dimstream-pipeline-bench");
        String table = "bench_pipeline_customer";
        try (Databases.Handle db = Databases.open(jdbc, null, null, 4)) {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_events CASCADE");
                s.execute("DROP TABLE IF EXISTS bench_naive_customer, bench_naive_customer_events CASCADE");
                s.execute("DROP SCHEMA IF EXISTS dimstream CASCADE");
            }
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("bench.customers", 3, (short) 1)));
            DimstreamConfig config = DimstreamConfig.parse(config(kafka.bootstrapServers(), jdbc, table, sink, byKey, surrogateIndex), "benchmark config", Map.of());
            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "pipeline-bench", 3, Duration.ofHours(1));
            try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
                if (warmup > 0) {
                    long w0 = System.nanoTime();
                    int warmupKeys = Math.max(1, warmup / 10);
                    produce(kafka.bootstrapServers(), "bench.customers", warmup, warmupKeys, 7, 'W');
                    if (!pipeline.awaitCaughtUp(warmup, Duration.ofMinutes(30))) {
                        throw new IllegalStateException("the pipeline did not catch up with the warm-up within 30 minutes");
                    }
                    System.out.printf(Locale.ROOT, "warm-up: %,d events over %,d other keys in %.1f s (not measured)%n", warmup,
                            warmupKeys, (System.nanoTime() - w0) / 1e9);
                }
                long t0 = System.nanoTime();
                produce(kafka.bootstrapServers(), "bench.customers", events, keys, 1);
                double producedS = (System.nanoTime() - t0) / 1e9;
                if (!pipeline.awaitCaughtUp(warmup + (long) events, Duration.ofMinutes(30))) {
                    throw new IllegalStateException("the pipeline did not catch up within 30 minutes");
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "pipeline: %,d events over %,d keys, produce %.1f s, produce-to-committed %.1f s: %,.0f events/s%n",
                        events, keys, producedS, s, events / s);
            }
            if (naive > 0) {
                System.out.printf(Locale.ROOT, "naive consumer (one transaction per event): %,.0f events/s over %,d events%n",
                        naiveRate(jdbc, naive, keys, surrogateIndex), naive);
            }
        }
        System.out.println("peak RSS of this JVM (embedded broker included): " + peakRss());
    }

    /**
     * The benchmark entity's config.
     *
     * @param sink entries of the {@code sink:} section ({@code "batch-size: 800"}); empty: none
     */
    static String config(String bootstrap, String jdbc, String table, List<String> sink, boolean partitionedByKey,
                         boolean surrogateKeyIndex) {
        return """
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                %s
                entities:
                  - name: customer
                    topic: bench.customers
                    format: json
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: unlimited
                %s    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                """.formatted(bootstrap, jdbc, sink.isEmpty() ? "" : "sink: {" + String.join(", ", sink) + "}", table,
                (partitionedByKey ? "    partitioned-by-key: true\n" : "") + (surrogateKeyIndex ? "    surrogate-key-index: true\n" : ""));
    }

    /** Events in time order, keys drawn at random: every event is an upsert of a tracked change. */
    static void produce(String bootstrap, String topic, int events, int keys, long seed) {
        produce(bootstrap, topic, events, keys, seed, 'C');
    }

    static void produce(String bootstrap, String topic, int events, int keys, long seed, char keyPrefix) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            Random rnd = new Random(seed);
            for (int i = 0; i < events; i++) {
                String id = keyId(keyPrefix, rnd.nextInt(keys));
                producer.send(new ProducerRecord<>(topic, id.getBytes(StandardCharsets.UTF_8), event(id, i, rnd)));
            }
            producer.flush();
        }
    }

    /** Event i's event time is EPOCH + i seconds. */
    static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");

    /**
     * One native JSON event. Written with a StringBuilder, not a Jackson tree: the generator runs
     * in the measured window and shares the two cores with what is measured (a tree and a
     * String.format per event kept ~9% of the machine busy in a profile of the run). Every value
     * is plain ASCII, so nothing needs escaping.
     */
    static byte[] event(String id, int i, Random rnd) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"op\":\"upsert\",\"event_time\":\"").append(DateTimeFormatter.ISO_INSTANT.format(EPOCH.plusSeconds(i)))
                .append("\",\"data\":{\"customer_id\":\"").append(id)
                .append("\",\"email\":\"u").append(rnd.nextInt(1_000_000)).append("@example.com")
                .append("\",\"full_name\":\"Customer ").append(id)
                .append("\",\"country\":\"DE\",\"city\":\"City ").append(rnd.nextInt(100))
                .append("\",\"loyalty_tier\":\"gold\",\"last_login\":").append(1_700_000_000L + i).append("}}");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code prefix} and the key number in 7 digits, without String.format. */
    static String keyId(char prefix, int k) {
        String n = Integer.toString(k);
        return prefix + "0000000".substring(n.length()) + n;
    }

    /**
     * The naive peer: per event, a close (UPDATE of the open row) and an INSERT of the successor,
     * committed on their own, as a hand-written consumer would do it.
     */
    static double naiveRate(String jdbc, int events, int keys, boolean surrogateKeyIndex) throws Exception {
        try (Databases.Handle db = Databases.open(jdbc, null, null, 2)) {
            Migrations.migrate(db.dataSource());
            DimstreamConfig cfg = DimstreamConfig.parse(config("unused:9092", jdbc, "bench_naive_customer", List.of(), false, surrogateKeyIndex), "naive", Map.of());
            EntitySpec spec = cfg.entities().get(0).toEntitySpec();
            EntityTables.ensure(db.dataSource(), spec);
            Random rnd = new Random(2);
            try (Connection c = db.dataSource().getConnection();
                 java.sql.PreparedStatement close = c.prepareStatement("UPDATE bench_naive_customer SET valid_to = ? "
                         + "WHERE customer_id = ? AND valid_to IS NULL AND record_hash IS DISTINCT FROM ?");
                 java.sql.PreparedStatement insert = c.prepareStatement("INSERT INTO bench_naive_customer (customer_id, email, "
                         + "full_name, country, city, loyalty_tier, last_login, surrogate_key, valid_from, is_deleted, record_hash) "
                         + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, false, ?) ON CONFLICT DO NOTHING")) {
                c.setAutoCommit(false);
                long t0 = System.nanoTime();
                for (int i = 0; i < events; i++) {
                    String id = keyId('C', rnd.nextInt(keys));
                    Map<String, Object> d = NativeEventJson.parse(new String(event(id, i, rnd), StandardCharsets.UTF_8), i,
                            Source.kafka("bench", 0, i)).event().data();
                    byte[] hash = io.dimstream.db.event.RecordHash.of(List.of((String) d.get("email"), (String) d.get("full_name"),
                            (String) d.get("country"), (String) d.get("city"), (String) d.get("loyalty_tier")));
                    java.sql.Timestamp ts = java.sql.Timestamp.from(Instant.parse("2025-01-01T00:00:00Z").plusSeconds(i));
                    close.setTimestamp(1, ts);
                    close.setString(2, id);
                    close.setBytes(3, hash);
                    close.executeUpdate();
                    int k = 1;
                    for (String col : List.of("customer_id", "email", "full_name", "country", "city", "loyalty_tier")) {
                        insert.setString(k++, (String) d.get(col));
                    }
                    insert.setLong(k++, ((Number) d.get("last_login")).longValue());
                    insert.setLong(k++, i);
                    insert.setTimestamp(k++, ts);
                    insert.setBytes(k, hash);
                    insert.executeUpdate();
                    c.commit();
                }
                return events / ((System.nanoTime() - t0) / 1e9);
            }
        }
    }

    static String peakRss() throws java.io.IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM"))
                .map(l -> l.replaceAll("\\s+", " ")).findFirst().orElse("unknown");
    }
}
