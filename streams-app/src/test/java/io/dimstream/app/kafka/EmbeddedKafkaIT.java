package io.dimstream.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

    @TempDir
    Path dir;

    @Test
    void transactionalRecordsAreReadCommittedAndSurviveARestartOnTheSameLogDir() {
        List<String> expected = List.of("k1=a", "k2=b", "k1=c");
        String bootstrap;
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            bootstrap = kafka.bootstrapServers();
            kafka.createTopics(List.of(new NewTopic("t", 1, (short) 1)));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-kafka-it"),
                    new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t", "k1", "a"));
                producer.send(new ProducerRecord<>("t", "k2", "b"));
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t", "k9", "aborted"));
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t", "k1", "c"));
                producer.commitTransaction();
            }
            assertThat(readAll(kafka.bootstrapServers())).isEqualTo(expected);
        }
        try (EmbeddedKafka again = EmbeddedKafka.start(dir)) {
            assertThat(again.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(readAll(again.bootstrapServers())).isEqualTo(expected);
        }
    }

    /** Reads partition 0 of "t" from the beginning to its end offset, read_committed. */
    private static List<String> readAll(String bootstrap) {
        TopicPartition tp = new TopicPartition("t", 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            List<String> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.key() + "=" + r.value());
                }
            }
            assertThat(consumer.position(tp)).as("position after reading").isEqualTo(end);
            return out;
        }
    }
}
