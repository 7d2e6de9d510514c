package io.dimstream.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the backlog sits, once a second ({@link LatencyBenchmark}): events produced (the source
 * topic's end offsets), events classified (the changes topic's last stable offsets, what a
 * read_committed reader can see) and events applied (the sink's offsets in PostgreSQL), summed over
 * partitions. A growing gap between two columns names the stage that falls behind.
 */
final class StageSampler implements Runnable {
    private final String bootstrap;
    private final String sourceTopic;
    private final String changesTopic;
    private final int partitions;
    private final OffsetPoller poller;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<long[]> rows = new ArrayList<>();
    private Thread thread;

    StageSampler(String bootstrap, String sourceTopic, String changesTopic, int partitions, OffsetPoller poller) {
        this.bootstrap = bootstrap;
        this.sourceTopic = sourceTopic;
        this.changesTopic = changesTopic;
        this.partitions = partitions;
        this.poller = poller;
    }

    void start() {
        thread = new Thread(this, "stage-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running.set(false);
        thread.join(10_000);
    }

    @Override
    public void run() {
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> source = new HashMap<>();
            Map<TopicPartition, OffsetSpec> changes = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                source.put(new TopicPartition(sourceTopic, i), OffsetSpec.latest());
                changes.put(new TopicPartition(changesTopic, i), OffsetSpec.latest());
            }
            var committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
            long t0 = System.nanoTime();
            while (running.get()) {
                long produced = sum(admin.listOffsets(source).all().get());
                long classified;
                try {
                    classified = sum(admin.listOffsets(changes, committed).all().get());
                } catch (ExecutionException e) {
                    classified = -1; // the changes topic is created by the service
                }
                long applied = poller.appliedTotal();
                synchronized (rows) {
                    rows.add(new long[] {(System.nanoTime() - t0) / 1_000_000_000L, produced, classified, applied});
                }
                Thread.sleep(1000);
            }
        } catch (Exception e) {
            System.err.println("stage sampler stopped: " + e);
        }
    }

    private static long sum(Map<TopicPartition, ListOffsetsResultInfo> m) {
        return m.values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
    }

    /** Every 5th second: produced, classified (changes LSO, includes transaction markers), applied. */
    void report() {
        System.out.println("stages (offsets summed over partitions; the changes offsets include transaction markers):");
        System.out.printf(Locale.ROOT, "%6s %12s %12s %12s%n", "s", "produced", "classified", "applied");
        synchronized (rows) {
            for (long[] r : rows) {
                if (r[0] % 5 == 0) {
                    System.out.printf(Locale.ROOT, "%6d %,12d %,12d %,12d%n", r[0], r[1], r[2], r[3]);
                }
            }
        }
    }
}
