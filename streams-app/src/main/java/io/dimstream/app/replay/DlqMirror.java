package io.dimstream.app.replay;

import io.dimstream.app.kafka.KafkaClients;

import io.dimstream.app.topology.DlqHeaders;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.jobs.DlqRecords;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
 *
 * <p>The DLQ topics were named {@code <source topic>.dlq} before they were named per deployment. At
 * start, what the group had not mirrored yet of such a former topic it mirrored before (it has
 * offsets committed there) is mirrored once, up to the topic's end offsets then, and the group's
 * offsets there are deleted ({@link #mirrorFormerTopics}): an upgrade loses no dead letter, and
 * records already mirrored stay in {@code dimstream.dlq_records} under their former topic's name.
 */
public final class DlqMirror implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DlqMirror.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, String> entityByDlqTopic = new HashMap<>();
    /** Each entity's DLQ topic before they were named per deployment, {@code <source topic>.dlq}: the entity's pipeline. */
    private final Map<String, EntityPipeline> byFormerTopic = new HashMap<>();
    private final String groupId;
    private final KafkaClients kafka;
    private final DlqRecords records;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private Thread thread;

    public DlqMirror(String groupId, List<EntityPipeline> entities, DataSource ds, String bootstrapServers) {
        this(groupId, entities, ds, KafkaClients.of(bootstrapServers));
    }

    public DlqMirror(String groupId, List<EntityPipeline> entities, DataSource ds, KafkaClients kafka) {
        entities.forEach(p -> entityByDlqTopic.put(p.dlqTopic(), p.entity().name()));
        for (EntityPipeline e : entities) {
            String former = e.sourceTopic() + ".dlq";
            if (!former.equals(e.dlqTopic())) {
                byFormerTopic.put(former, e);
            }
        }
        this.groupId = groupId;
        this.kafka = kafka;
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
            mirrorFormerTopics();
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
                    } catch (SQLException | RuntimeException e) {
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

    /** Stores a batch of a former DLQ topic, retrying every second until it is stored (true) or the mirror stops (false). */
    private boolean store(List<DlqRecords.Incoming> batch) throws InterruptedException {
        while (!stopping.get()) {
            try {
                records.mirror(batch);
                return true;
            } catch (SQLException | RuntimeException e) {
                LOG.warn("DLQ mirror: cannot store {} records (will retry): {}", batch.size(), e.getMessage());
                Thread.sleep(1000);
            }
        }
        return false;
    }

    /**
     * Once, before subscribing: for each former DLQ topic ({@code <source topic>.dlq}) on which this
     * group has offsets committed (it mirrored the topic before the upgrade), mirrors its records from
     * them up to the topic's end offsets as they are now, then deletes the group's offsets there, so a
     * later start neither mirrors it again nor takes what a deployment still on an older release adds.
     * A failure is logged and the offsets stay: the next start tries again (the insert is idempotent).
     */
    private void mirrorFormerTopics() throws InterruptedException {
        if (byFormerTopic.isEmpty()) {
            return;
        }
        try (Admin admin = Admin.create(kafka.properties())) {
            Map<String, List<PartitionInfo>> topics = consumer.listTopics();
            for (String former : byFormerTopic.keySet()) {
                List<PartitionInfo> partitions = topics.get(former);
                if (partitions != null && !stopping.get()) {
                    mirrorFormerTopic(admin, former, partitions.stream().map(i -> new TopicPartition(former, i.partition()))
                            .collect(Collectors.toSet()));
                }
            }
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException | ExecutionException | TimeoutException e) {
            LOG.warn("DLQ mirror: cannot mirror what is left in the former DLQ topics {} (tried again at the next start): {}",
                    byFormerTopic.keySet(), e.toString());
        } finally {
            consumer.unsubscribe();
        }
    }

    private void mirrorFormerTopic(Admin admin, String former, Set<TopicPartition> tps)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(tps);
        if (committed.values().stream().allMatch(Objects::isNull)) {
            return;
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(tps);
        consumer.assign(tps);
        for (TopicPartition tp : tps) {
            OffsetAndMetadata at = committed.get(tp);
            if (at == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, at.offset());
            }
        }
        int mirrored = 0;
        while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            List<DlqRecords.Incoming> batch = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                    batch.add(incoming(r));
                }
            }
            if (!store(batch)) {
                return;
            }
            mirrored += batch.size();
        }
        admin.deleteConsumerGroupOffsets(groupId, tps).all().get(30, TimeUnit.SECONDS);
        EntityPipeline p = byFormerTopic.get(former);
        LOG.info("DLQ mirror: {} records left in {} (the DLQ topic of {} before it was named per deployment) mirrored; its DLQ topic "
                + "is now {}", mirrored, former, p.entity().name(), p.dlqTopic());
    }

    DlqRecords.Incoming incoming(ConsumerRecord<byte[], byte[]> r) {
        List<DlqRecords.Header> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(new DlqRecords.Header(h.key(), h.value()));
        }
        String entity = text(r, DlqHeaders.ENTITY);
        if (entity == null) {
            EntityPipeline former = byFormerTopic.get(r.topic());
            entity = former != null ? former.entity().name() : entityByDlqTopic.get(r.topic());
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
