package io.dimstream.app.testing;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A generated customer feed on its way into a topic, and what the reference model makes of it:
 * shared by the pipeline ITs here, the service fault tests ({@link ServiceHarness}) and e2e.
 */
public final class FeedFixtures {

    private FeedFixtures() {
    }

    /**
     * The feed read as the pipeline reads it: the valid events in produce order (the order a key's
     * records reach the sink: they share a partition), as the reference model takes them, and the
     * values the pipeline must send to the DLQ (those that are no valid event).
     */
    public record Split(List<Event> valid, List<String> malformed) {
    }

    public static Split split(EntitySpec spec, String topic, List<CustomerFeed.FeedRecord> feed) {
        EventValidator validator = new EventValidator(spec);
        List<Event> valid = new ArrayList<>();
        List<String> malformed = new ArrayList<>();
        for (int i = 0; i < feed.size(); i++) {
            NativeEventJson.Parsed p = NativeEventJson.parse(feed.get(i).valueText(), i, Source.kafka(topic, 0, i));
            if (p.event() != null && validator.validate(p.event()).ok()) {
                valid.add(p.event());
            } else {
                malformed.add(feed.get(i).valueText());
            }
        }
        return new Split(valid, malformed);
    }

    /**
     * Where a produced record landed, and the valid event it carries as the pipeline reads it (its
     * lineage that place, its {@code seq} the record's offset), or null when it carries none.
     */
    public record Located(int partition, long offset, Event event) {
    }

    /**
     * Produces the feed in order (acks=all, idempotent), every send acknowledged, and returns per
     * record where it landed and its valid event ({@link Located}): the lineage the table keeps.
     */
    public static List<Located> produceLocated(String bootstrap, String topic, EntitySpec spec, List<CustomerFeed.FeedRecord> feed) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (CustomerFeed.FeedRecord r : feed) {
            records.add(new ProducerRecord<>(topic, r.key(), r.value()));
        }
        List<RecordMetadata> sent = send(bootstrap, records, Map.of());
        EventValidator validator = new EventValidator(spec);
        List<Located> out = new ArrayList<>();
        for (int i = 0; i < feed.size(); i++) {
            RecordMetadata md = sent.get(i);
            NativeEventJson.Parsed p = NativeEventJson.parse(feed.get(i).valueText(), md.offset(), Source.kafka(topic, md.partition(), md.offset()));
            out.add(new Located(md.partition(), md.offset(), p.event() != null && validator.validate(p.event()).ok() ? p.event() : null));
        }
        return out;
    }

    /**
     * Produces the records in order (acks=all, idempotent) with extra client settings, and returns
     * where each landed once every send is acknowledged (the first failure thrown).
     */
    public static List<RecordMetadata> send(String bootstrap, List<ProducerRecord<byte[], byte[]>> records, Map<String, Object> settings) {
        Map<String, Object> p = new HashMap<>(settings);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> r : records) {
                sent.add(producer.send(r));
            }
            return awaitAcks(sent, records.isEmpty() ? "no topic" : records.get(0).topic());
        }
    }

    /** A record as text: its key (may be null) and value, UTF-8 on the wire. */
    public record TextRecord(String key, String value) {
    }

    /** Produces text records in order (acks=all, idempotent), and flushes. */
    public static void produceText(String bootstrap, String topic, List<TextRecord> records) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (TextRecord r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.key() == null ? null : r.key().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        r.value() == null ? null : r.value().getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            }
            awaitAcks(sent, topic);
        }
    }

    /** Produces the feed (acks=all, idempotent) with extra client settings (e.g. SASL), and flushes. */
    public static void produce(String bootstrap, String topic, List<CustomerFeed.FeedRecord> feed, Map<String, Object> settings) {
        Map<String, Object> p = new HashMap<>(settings);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (CustomerFeed.FeedRecord r : feed) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.key(), r.value())));
            }
            awaitAcks(sent, topic);
        }
    }

    /** Every send acknowledged, or the first failure thrown (a flush alone would not say); where each landed. */
    private static List<RecordMetadata> awaitAcks(List<Future<RecordMetadata>> sent, String topic) {
        List<RecordMetadata> landed = new ArrayList<>(sent.size());
        for (Future<RecordMetadata> f : sent) {
            try {
                landed.add(f.get(60, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while producing to " + topic, e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("a record was not acknowledged by " + topic + ": " + e, e);
            }
        }
        return landed;
    }
}
