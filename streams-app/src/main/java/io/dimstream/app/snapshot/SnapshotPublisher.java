package io.dimstream.app.snapshot;

import io.dimstream.app.kafka.KafkaClients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.json.InputJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes one slice of a snapshot feed ({@code mode: snapshot}) to the entity's source topic:
 * every row stamped with the slice's instant in the entity's snapshot-time field and keyed by its
 * business key ({@link ChangeCodec#key}), then one end-of-slice marker ({@link SliceMarker}) to
 * every partition of the topic, after that partition's rows.
 *
 * <p>The whole file is read and checked before anything is sent ({@link #read}): a row that would
 * be refused downstream would make its key look absent, and a complete slice deletes absent keys,
 * so a slice with one bad row is not published at all. Rows go to the partition Kafka's default
 * partitioner would choose for their key; the topology does not rely on it (its markers are
 * counted per source partition), it only keeps a key's rows of successive slices in order.
 */
public final class SnapshotPublisher {

    private static final ObjectMapper MAPPER = NativeEventJson.mapper();

    /** One row of the slice: its key bytes and its value (the row with the snapshot-time field set). */
    public record Row(int line, byte[] key, byte[] value) {
    }

    /** What was published: rows per partition (every partition, zeros included). */
    public record Published(String topic, Instant slice, int rows, Map<Integer, Integer> rowsPerPartition) {
    }

    /** The input file has bad lines; nothing was sent. */
    public static final class BadSliceException extends Exception {
        private final List<String> problems;

        public BadSliceException(List<String> problems) {
            super(problems.size() + " bad line(s), nothing published: " + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
                    + (problems.size() > 5 ? "; ..." : ""));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    private SnapshotPublisher() {
    }

    /**
     * Reads a slice file: one JSON object per line (the row's columns; blank lines skipped).
     * Every row is checked against the entity (key present and not null, known columns, types) and
     * keys must be unique within the slice; a row that already carries the snapshot-time field
     * must carry {@code at}.
     *
     * @throws BadSliceException listing every bad line ({@code line N: reason}); nothing is to be sent
     * @throws IllegalArgumentException when the entity is not {@code mode: snapshot}
     */
    public static List<Row> read(BufferedReader in, EntityConfig entity, Instant at) throws IOException, BadSliceException {
        if (!entity.snapshot()) {
            throw new IllegalArgumentException("entity " + entity.name() + " is not mode: snapshot (its topic carries change events)");
        }
        EntitySpec spec = entity.toEntitySpec();
        EventValidator validator = new EventValidator(spec);
        String field = entity.snapshotTimeField();
        String stamp = ColumnType.CANONICAL_TIMESTAMP.format(at);
        List<String> problems = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        Map<String, Integer> firstLineOfKey = new HashMap<>();
        String text;
        int line = 0;
        while ((text = in.readLine()) != null) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            JsonNode root;
            try {
                root = InputJson.readTree(text);
            } catch (InputJson.TrailingContent e) {
                problems.add("line " + line + ": " + e.getOriginalMessage());
                continue;
            } catch (IOException e) {
                problems.add("line " + line + ": not valid JSON");
                continue;
            }
            if (root == null || !root.isObject()) {
                problems.add("line " + line + ": not a JSON object (one row of the slice per line)");
                continue;
            }
            ObjectNode row = (ObjectNode) root;
            JsonNode given = row.get(field);
            if (given != null) {
                Instant t = given.isTextual() ? ColumnType.parseInstant(given.asText()).orElse(null) : null;
                if (!at.equals(t)) {
                    problems.add("line " + line + ": field '" + field + "' is " + given + ", not the slice's instant " + stamp);
                    continue;
                }
                row.remove(field);
            }
            Map<String, Object> data = NativeEventJson.toMap(row);
            EventValidator.Result r = validator.validate(Event.upsert(at, data, line, Source.line("slice", line)));
            if (!r.ok()) {
                problems.add("line " + line + ": " + r.rejection().reason());
                continue;
            }
            List<String> canonical = new ArrayList<>();
            for (int i = 0; i < spec.key().size(); i++) {
                canonical.add(spec.type(spec.key().get(i)).canonical(r.event().values().get(i)));
            }
            byte[] key = ChangeCodec.key(canonical);
            Integer first = firstLineOfKey.putIfAbsent(new String(key, StandardCharsets.UTF_8), line);
            if (first != null) {
                problems.add("line " + line + ": key " + new String(key, StandardCharsets.UTF_8) + " is already on line " + first
                        + " (a slice holds each key once)");
                continue;
            }
            row.put(field, stamp);
            rows.add(new Row(line, key, row.toString().getBytes(StandardCharsets.UTF_8)));
        }
        if (!problems.isEmpty()) {
            throw new BadSliceException(problems);
        }
        return rows;
    }

    /** A producer fit for {@link #publish}: idempotent, acks from all replicas. */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return producer(KafkaClients.of(bootstrapServers));
    }

    /** A producer fit for {@link #publish} with the {@code kafka.client:} settings (security). */
    public static KafkaProducer<byte[], byte[]> producer(KafkaClients kafka) {
        Map<String, Object> p = kafka.properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Sends the rows, waits until every one is acknowledged, then sends an end-of-slice marker to
     * every partition of {@code topic} and waits for those. A failure part-way leaves a slice
     * without (some of) its markers, which deletes nothing: publishing it again completes it.
     */
    public static Published publish(Producer<byte[], byte[]> producer, String topic, String entity, Instant at, List<Row> rows)
            throws ExecutionException, InterruptedException {
        int n = producer.partitionsFor(topic).size();
        Map<Integer, Integer> perPartition = new TreeMap<>();
        for (int p = 0; p < n; p++) {
            perPartition.put(p, 0);
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>(rows.size());
        for (Row r : rows) {
            int p = ChangesPartitioner.partitionOf(r.key(), n);
            perPartition.merge(p, 1, Integer::sum);
            sent.add(producer.send(new ProducerRecord<>(topic, p, r.key(), r.value())));
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            f.get();
        }
        List<Future<RecordMetadata>> markers = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            SliceMarker m = new SliceMarker(entity, at, p, n);
            markers.add(producer.send(new ProducerRecord<>(topic, p, null, null,
                    m.toBytes(), SliceMarker.mark(new RecordHeaders()))));
        }
        producer.flush();
        for (Future<RecordMetadata> f : markers) {
            f.get();
        }
        return new Published(topic, at, rows.size(), perPartition);
    }
}
