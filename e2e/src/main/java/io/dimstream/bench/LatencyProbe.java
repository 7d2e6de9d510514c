package io.dimstream.bench;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.db.connect.Databases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Produce-to-commit latency of a sample of the soak's events, window by window, in bounded memory
 * ({@link SoakBenchmark}). The producer registers a sampled event's send time under its source
 * partition and offset once acknowledged; a read_committed consumer of the changes topic maps each
 * change back to its source record and queues the sampled ones under their change offset; a poller
 * of {@code dimstream.sink_offsets} (every 10 ms; the sink commits its offsets with the rows)
 * takes a queued change as committed once the sink's offset of its partition passed it.
 */
final class LatencyProbe {
    private final Databases.Handle db;
    private final String bootstrap;
    private final String changesTopic;
    private final int partitions;
    private final Map<Long, Long> pending = new ConcurrentHashMap<>();
    private final List<ArrayDeque<long[]>> queued = new ArrayList<>();
    private final long[] sinkOffsets;
    private final List<Long> window = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong expired = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile Exception failure;

    LatencyProbe(Databases.Handle db, String bootstrap, String changesTopic, int partitions) {
        this.db = db;
        this.bootstrap = bootstrap;
        this.changesTopic = changesTopic;
        this.partitions = partitions;
        this.sinkOffsets = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            queued.add(new ArrayDeque<>());
        }
    }

    void start() {
        threads.add(new Thread(this::consume, "soak-changes-reader"));
        threads.add(new Thread(this::pollSink, "soak-sink-poller"));
        threads.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
    }

    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    /** A sampled event was acknowledged at (partition, offset) of the source topic. */
    void sent(int partition, long offset, long sendNanos) {
        pending.put(LatencyBenchmark.sourceKey(partition, offset), sendNanos);
    }

    /** The sink's offsets summed over the partitions, as last polled. */
    synchronized long sinkTotal() {
        return Arrays.stream(sinkOffsets).sum();
    }

    /** Whether the sink's offset of every partition is at least {@code ends}. */
    synchronized boolean sinkAt(long[] ends) {
        for (int p = 0; p < partitions; p++) {
            if (sinkOffsets[p] < ends[p]) {
                return false;
            }
        }
        return true;
    }

    /** p99 (ms) and count of the latencies measured since the last call; forgets samples older than 10 minutes. */
    long[] drainWindow() {
        if (failure != null) {
            throw new IllegalStateException("the latency probe failed", failure);
        }
        long old = System.nanoTime() - TimeUnit.MINUTES.toNanos(10);
        pending.values().removeIf(t -> {
            boolean gone = t < old;
            if (gone) {
                expired.incrementAndGet();
            }
            return gone;
        });
        long[] l;
        synchronized (window) {
            l = window.stream().mapToLong(Long::longValue).sorted().toArray();
            window.clear();
        }
        return new long[] {l.length == 0 ? -1 : LatencyBenchmark.ms(l, 0.99), l.length};
    }

    long expired() {
        return expired.get();
    }

    private void consume() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(changesTopic, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    ChangeRecord c = ChangeCodec.decode(r.value());
                    Long sent = pending.remove(LatencyBenchmark.sourceKey(c.sourcePartition(), c.sourceOffset()));
                    if (sent != null) {
                        synchronized (this) {
                            queued.get(r.partition()).add(new long[] {r.offset(), sent});
                        }
                    }
                }
            }
        } catch (Exception e) {
            failure = e;
        }
    }

    private void pollSink() {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement q = c.prepareStatement("SELECT partition, next_offset FROM dimstream.sink_offsets WHERE topic = ?")) {
            q.setString(1, changesTopic);
            while (running.get()) {
                try (ResultSet rs = q.executeQuery()) {
                    long now = System.nanoTime();
                    List<Long> done = new ArrayList<>();
                    synchronized (this) {
                        while (rs.next()) {
                            int part = rs.getInt(1);
                            sinkOffsets[part] = Math.max(sinkOffsets[part], rs.getLong(2));
                            ArrayDeque<long[]> q2 = queued.get(part);
                            while (!q2.isEmpty() && q2.peek()[0] < sinkOffsets[part]) {
                                done.add(now - q2.poll()[1]);
                            }
                        }
                    }
                    synchronized (window) {
                        window.addAll(done);
                    }
                }
                Thread.sleep(10);
            }
        } catch (Exception e) {
            failure = e;
        }
    }
}
