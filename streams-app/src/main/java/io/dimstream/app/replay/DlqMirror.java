package io.dimstream.app.replay;

import io.dimstream.app.kafka.KafkaClients;

import io.dimstream.app.topology.DlqHeaders;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.jobs.DlqRecords;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies every record of the entities' dead-letter topics ({@code <application-id>.<entity>.dlq})
 * into {@code dimstream.dlq_records}, so the admin UI can browse them without Kafka. A consumer group
 * of its own ({@code <application-id>-dlq-mirror}); offsets are committed to Kafka only after the
 * rows are committed in PostgreSQL, and the insert is idempotent (unique DLQ topic, partition,
 * offset), so a crash in between re-reads records without duplicating them.
 */
public final class DlqMirror implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DlqMirror.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, String> entityByDlqTopic = new HashMap<>();
    private final DlqRecords records;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private Thread thread;

    public DlqMirror(String groupId, List<EntityPipeline> entities, DataSource ds, String bootstrapServers) {
        this(groupId, entities, ds, KafkaClients.of(bootstrapServers));
    }

    public DlqMirror(String groupId, List<EntityPipeline> entities, DataSource ds, KafkaClients kafka) {
        entities.forEach(p -> entityByDlqTopic.put(p.dlqTopic(), p.entity().name()));
        Map<String, Object> p = kafka.properties();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.records = new DlqRecords(ds);
    }

    public DlqMirror start() {
        thread = new Thread(this::loop, "dimstream-dlq-mirror");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        try {
            consumer.subscribe(List.copyOf(entityByDlqTopic.keySet()));
            while (!stopping.get()) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(500));
                if (polled.isEmpty()) {
                    continue;
                }
                List<DlqRecords.Incoming> batch = new ArrayList<>();
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    batch.add(incoming(r));
                }
                while (!stopping.get()) {
                    try {
                        records.mirror(batch);
                        consumer.commitSync();
                        break;
                    } catch (java.sql.SQLException | RuntimeException e) {
                        LOG.warn("DLQ mirror: cannot store {} records (will retry): {}", batch.size(), e.getMessage());
                        Thread.sleep(1000);
                    }
                }
            }
        } catch (WakeupException e) {
            if (!stopping.get()) {
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    DlqRecords.Incoming incoming(ConsumerRecord<byte[], byte[]> r) {
        List<DlqRecords.Header> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(new DlqRecords.Header(h.key(), h.value()));
        }
        String entity = text(r, DlqHeaders.ENTITY);
        if (entity == null) {
            entity = entityByDlqTopic.get(r.topic());
        }
        String partition = text(r, DlqHeaders.SOURCE_PARTITION);
        String offset = text(r, DlqHeaders.SOURCE_OFFSET);
        return new DlqRecords.Incoming(entity, text(r, DlqHeaders.SOURCE_TOPIC), number(partition, Integer::valueOf),
                number(offset, Long::valueOf), r.topic(), r.partition(), r.offset(), r.key(), r.value(), headers,
                text(r, DlqHeaders.ERROR), r.timestamp() < 0 ? null : Instant.ofEpochMilli(r.timestamp()));
    }

    private static <T> T number(String s, java.util.function.Function<String, T> parse) {
        try {
            return s == null ? null : parse.apply(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String text(ConsumerRecord<byte[], byte[]> r, String header) {
        Header h = r.headers().lastHeader(header);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        stopping.set(true);
        consumer.wakeup();
        if (thread != null) {
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
