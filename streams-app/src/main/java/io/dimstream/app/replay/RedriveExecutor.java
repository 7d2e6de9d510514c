package io.dimstream.app.replay;

import io.dimstream.app.kafka.KafkaClients;

import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.sql.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import io.dimstream.app.topology.DlqHeaders;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces the DLQ records a user asked to re-drive ({@code redrive_state = 'requested'}) back to
 * their source topic with their original key, value and headers minus the {@code dimstream.*} ones
 * the DLQ added, then marks them {@code done} (or {@code failed} with the producer's error).
 * Records are taken with {@code FOR UPDATE SKIP LOCKED}, so several instances share the work; the
 * mark is committed after the broker acknowledged the record, so a crash in between produces a
 * record again (at least once; the topology drops an exact duplicate per key and event time).
 * The record timestamp is the re-drive time (the DLQ topic stamps its records with append time, so
 * the original is not known).
 */
public final class RedriveExecutor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedriveExecutor.class);
    private static final int BATCH = 100;

    private final DataSource ds;
    private final Set<String> entities;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Duration pollInterval;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private Thread thread;

    public RedriveExecutor(DataSource ds, Set<String> entities, String bootstrapServers, Duration pollInterval) {
        this(ds, entities, KafkaClients.of(bootstrapServers), pollInterval);
    }

    public RedriveExecutor(DataSource ds, Set<String> entities, KafkaClients kafka, Duration pollInterval) {
        this.ds = ds;
        this.entities = Set.copyOf(entities);
        this.pollInterval = pollInterval;
        Map<String, Object> p = kafka.properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "dimstream-redrive");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    public RedriveExecutor start() {
        thread = new Thread(this::loop, "dimstream-dlq-redrive");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        while (!stopping.get()) {
            try {
                if (runOnce() > 0) {
                    continue;
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("DLQ re-drive: cannot run (will retry): {}", e.getMessage());
            }
            try {
                Thread.sleep(pollInterval.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Re-drives up to one batch of requested records of this instance's entities.
     *
     * @return how many were handled (done or failed)
     */
    public int runOnce() throws SQLException {
        return Transactions.inTransaction(ds, c -> {
            List<DlqRecords.DlqRecord> todo = DlqRecords.claimRequested(c, BATCH).stream()
                    .filter(r -> entities.contains(r.entity())).toList();
            for (DlqRecords.DlqRecord r : todo) {
                if (r.headers().stream().anyMatch(h -> DlqHeaders.TRUNCATED.equals(h.name()))) {
                    // only the first bytes of the record fitted the DLQ: re-sending them would put a
                    // cut record on the source topic. The whole record is still there, at the
                    // source topic, partition and offset the headers name.
                    DlqRecords.markFailed(c, r.id(), "the DLQ holds a cut copy of this record (" + DlqHeaders.TRUNCATED
                            + "): re-drive the original from " + r.sourceTopic() + "-" + r.sourcePartition() + "@" + r.sourceOffset()
                            + " with a replay job instead");
                    continue;
                }
                RecordHeaders headers = new RecordHeaders();
                for (DlqRecords.Header h : r.headers()) {
                    if (!h.name().startsWith("dimstream.")) {
                        headers.add(h.name(), h.value());
                    }
                }
                try {
                    producer.send(new ProducerRecord<>(r.sourceTopic(), null, null, r.key(), r.value(), headers))
                            .get(30, TimeUnit.SECONDS);
                    DlqRecords.markDone(c, r.id());
                } catch (ExecutionException | TimeoutException e) {
                    String why = e instanceof ExecutionException ? String.valueOf(e.getCause()) : "no broker acknowledgement in 30 s";
                    LOG.warn("DLQ re-drive of record {} to {} failed: {}", r.id(), r.sourceTopic(), why);
                    DlqRecords.markFailed(c, r.id(), why);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return todo.size();
        });
    }

    @Override
    public void close() {
        stopping.set(true);
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        producer.close(Duration.ofSeconds(5));
    }
}
