package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.TestChanges;
import io.dimstream.app.change.ChangeTopics;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Snapshot slices of the sink tests' customer entity (customer_id; email, city tracked;
 * last_login type 1) as changes-topic records, and the chronological reference: what loading the
 * slices in time order means (DESIGN section 3 applied to each slice's rows plus a delete at the
 * slice's instant for every key live just before it that the slice left out).
 */
final class SnapshotSliceFeed {

    /** One row of a slice. */
    record SliceRow(String id, String email, String city, long lastLogin) {
        Map<String, Object> data() {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("customer_id", id);
            d.put("email", email);
            d.put("city", city);
            d.put("last_login", lastLogin);
            return d;
        }
    }

    static final int PARTITIONS = 2;

    private final EntitySpec entity;
    private final Map<Integer, Long> nextOffset = new HashMap<>();

    SnapshotSliceFeed(EntitySpec entity) {
        this.entity = entity;
    }

    static SliceRow row(String id, String email, String city) {
        return new SliceRow(id, email, city, 1);
    }

    /** The changes partition of a customer id (Kafka's key partitioning of {@code ["id"]}). */
    static int partitionOf(String id) {
        return ChangesPartitioner.partitionOf(ChangeCodec.key(List.of(id)), PARTITIONS);
    }

    TopicPartition tp(int partition) {
        return new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, entity.name()), partition);
    }

    /** The next offset the partition's next record gets (the sink's expected stored offset is this, once applied). */
    long offset(int partition) {
        return nextOffset.getOrDefault(partition, 0L);
    }

    /** The records of partition {@code p} of a slice: its rows of that partition, then (if {@code marker}) the end-of-slice marker. */
    List<ConsumerRecord<byte[], byte[]>> records(int p, Instant slice, List<SliceRow> rows, boolean marker) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (SliceRow r : rows) {
            if (partitionOf(r.id()) != p) {
                continue;
            }
            long o = take(p);
            ChangeRecord c = new ChangeRecord(entity.name(), ChangeClass.NEW, Op.UPSERT, slice, r.data(), "crm.snapshots", p, o);
            out.add(new ConsumerRecord<>(tp(p).topic(), p, o, ChangeCodec.key(List.of(r.id())), TestChanges.encode(c)));
        }
        if (marker) {
            out.add(marker(p, new SliceMarker(entity.name(), slice, p, PARTITIONS)));
        }
        return out;
    }

    /** A control record with the end-of-slice header and {@code m} as its value, at partition {@code p}'s next offset. */
    ConsumerRecord<byte[], byte[]> marker(int p, SliceMarker m) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(tp(p).topic(), p, take(p), SliceMarker.END_OF_SLICE.getBytes(), m.toBytes());
        SliceMarker.mark(r.headers());
        return r;
    }

    private long take(int p) {
        long o = nextOffset.getOrDefault(p, 0L);
        nextOffset.put(p, o + 1);
        return o;
    }

    /**
     * The events of loading {@code slices} in time order: each slice's rows as upserts at its
     * instant, and a delete at its instant for every key live just before it that it left out.
     */
    static List<Event> chronological(TreeMap<Instant, List<SliceRow>> slices) {
        List<Event> events = new ArrayList<>();
        Map<String, Boolean> live = new TreeMap<>();
        long seq = 0;
        for (Map.Entry<Instant, List<SliceRow>> s : slices.entrySet()) {
            Set<String> present = new java.util.HashSet<>();
            for (SliceRow r : s.getValue()) {
                events.add(Event.upsert(s.getKey(), r.data(), seq++, Source.kafka("model", 0, seq)));
                present.add(r.id());
            }
            for (Map.Entry<String, Boolean> k : live.entrySet()) {
                if (k.getValue() && !present.contains(k.getKey())) {
                    events.add(Event.delete(s.getKey(), Map.of("customer_id", k.getKey()), seq++, Source.kafka("model", 0, seq)));
                    k.setValue(false);
                }
            }
            present.forEach(id -> live.put(id, true));
        }
        return events;
    }
}
