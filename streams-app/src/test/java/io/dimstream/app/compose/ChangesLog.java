package io.dimstream.app.compose;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What an entity's changes topic holds, read whole (read_committed): for each source record that
 * became a change, the changes offset the sink read it at, which is its arrival order in the writer
 * ({@link io.dimstream.db.event.ArrivalSeq#ofChangesOffset}); and each truncate marker with its
 * changes partition and offset (the seq of the deletes it makes there). The model takes its seqs
 * from here, after checking that the topic holds each produced event in produce order and drops only
 * exact repeats ({@link #arrivals}).
 */
final class ChangesLog {

    /** A truncate marker at {@code offset} of changes partition {@code partition}. */
    record Truncate(int partition, long offset, TruncateMarker marker) {
    }

    private final Map<Source, Long> offsets;
    private final Map<Source, Integer> partitions;
    private final List<Truncate> truncates;

    private ChangesLog(Map<Source, Long> offsets, Map<Source, Integer> partitions, List<Truncate> truncates) {
        this.offsets = offsets;
        this.partitions = partitions;
        this.truncates = truncates;
    }

    /** Reads {@code topic} from its beginning to its read_committed end offsets as they are now. */
    static ChangesLog read(String bootstrap, String topic) {
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<Source, Long> offsets = new HashMap<>();
        Map<Source, Integer> partitions = new HashMap<>();
        List<Truncate> truncates = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end offsets " + ends + " in 60 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (TruncateMarker.is(r.headers())) {
                        truncates.add(new Truncate(r.partition(), r.offset(), TruncateMarker.fromBytes(r.value())));
                        continue;
                    }
                    ChangeRecord change = ChangeCodec.decode(r.value());
                    Source src = Source.kafka(change.sourceTopic(), change.sourcePartition(), change.sourceOffset());
                    Long before = offsets.put(src, r.offset());
                    if (before != null) {
                        throw new IllegalStateException("source record " + src + " is in " + topic + " twice: at " + before + " and " + r.offset());
                    }
                    partitions.put(src, r.partition());
                }
            }
        }
        return new ChangesLog(offsets, partitions, truncates);
    }

    /** The truncate markers, in the order read (by partition, then offset, within a partition). */
    List<Truncate> truncates() {
        return truncates;
    }

    /** The changes offset of the change made from source record {@code source}. */
    long changesOffset(Source source) {
        Long o = offsets.get(source);
        if (o == null) {
            throw new IllegalArgumentException("no change in the changes topic comes from " + source);
        }
        return o;
    }

    /** The changes partition of the change made from source record {@code source}. */
    int partitionOf(Source source) {
        changesOffset(source);
        return partitions.get(source);
    }

    /**
     * The events as the sink applied them: of {@code produced} (valid events in produce order, each
     * with its source record as lineage), those that became a change, each with its changes offset as
     * {@code seq}. Checks that every change comes from one of them, that each event left out is an
     * exact repeat (op, time, data) of one produced before it (the topology's dedup) and no repeat
     * became one, and that a key's changes are in its produce order.
     */
    List<Event> arrivals(List<Event> produced, List<String> keyColumns) {
        List<Event> out = new ArrayList<>();
        Set<List<Object>> seen = new HashSet<>();
        Map<List<Object>, Long> lastOfKey = new HashMap<>();
        List<String> notDuplicates = new ArrayList<>();
        List<String> repeatsApplied = new ArrayList<>();
        for (Event e : produced) {
            List<Object> content = Arrays.asList(e.op(), e.eventTime(), e.data());
            boolean repeat = !seen.add(content);
            Long o = offsets.get(e.source());
            if (o == null) {
                if (!repeat) {
                    notDuplicates.add(e.source() + " " + e.data());
                }
                continue;
            }
            if (repeat) {
                repeatsApplied.add(e.source() + " " + e.data());
            }
            List<Object> key = keyColumns.stream().map(k -> e.data().get(k)).collect(Collectors.toList());
            key.add(partitions.get(e.source()));
            Long last = lastOfKey.put(key, o);
            assertThat(last == null || last < o).as("changes of key %s out of produce order: %s after %s", key, o, last).isTrue();
            out.add(new Event(e.op(), e.eventTime(), e.data(), o, e.source(), null));
        }
        assertThat(notDuplicates).as("valid events that never became a change, though no exact repeat").isEmpty();
        // a repeat the topology let through (its key's fingerprints are bounded) reaches the writer as a
        // later arrival of the same content, which moves the seq a version start is remembered with:
        // then event_seq would depend on the batching; keep each key's feed short enough
        assertThat(repeatsApplied).as("exact repeats that reached the changes topic").isEmpty();
        Set<Source> used = out.stream().map(Event::source).collect(Collectors.toSet());
        assertThat(offsets.keySet().stream().filter(s -> !used.contains(s)).toList()).as("changes of no produced event").isEmpty();
        return out;
    }
}
