package io.dimstream.app.topology;

import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.topology.TopologyFixtures.Change;
import io.dimstream.app.topology.TopologyFixtures.DeadLetter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The dimstream topology in a real {@link KafkaStreams} client on an {@link EmbeddedKafka}, configured
 * as {@code DimstreamService} does it (StreamsConfigFactory, the StreamThreadSupervisor), for the ITs that
 * need a real broker and real stream threads; and read_committed views of its output topics.
 */
final class StreamsHarness implements AutoCloseable {

    final KafkaStreams streams;
    final StreamThreadSupervisor supervisor;

    private StreamsHarness(KafkaStreams streams, StreamThreadSupervisor supervisor) {
        this.streams = streams;
        this.supervisor = supervisor;
    }

    /** Creates the changes and DLQ topics (TopicPlanner), starts the client and waits until it is RUNNING. */
    static StreamsHarness start(EmbeddedKafka kafka, String applicationId, List<EntityPipeline> pipelines, MeterRegistry registry,
                                Path stateDir, Map<String, Object> overrides) {
        List<NewTopic> topics = new ArrayList<>(TopicPlanner.plan(pipelines, 1, (short) 1));
        kafka.createTopics(topics);
        Map<String, Object> o = new HashMap<>(Map.of(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1,
                StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
        o.putAll(overrides);
        Properties props = StreamsConfigFactory.create(applicationId, kafka.bootstrapServers(), stateDir, pipelines, registry, o);
        KafkaStreams streams = new KafkaStreams(DimstreamTopology.build(pipelines, registry), props);
        StreamThreadSupervisor supervisor = new StreamThreadSupervisor(registry, "customer");
        streams.setUncaughtExceptionHandler(supervisor);
        streams.start();
        await().dontCatchUncaughtExceptions().atMost(Duration.ofMinutes(1)).until(() -> streams.state() == KafkaStreams.State.RUNNING);
        return new StreamsHarness(streams, supervisor);
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
    }

    /** Every committed record of a one-partition topic, in order. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    static List<Change> changes(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new Change(TopologyFixtures.text(r.key()), ChangeCodec.decode(r.value()))).toList();
    }

    static List<DeadLetter> deadLetters(List<ConsumerRecord<byte[], byte[]>> records) {
        List<DeadLetter> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            List<String> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                headers.add(h.key() + "=" + TopologyFixtures.text(h.value()));
            }
            out.add(new DeadLetter(TopologyFixtures.text(r.key()), TopologyFixtures.text(r.value()), headers));
        }
        return out;
    }
}
