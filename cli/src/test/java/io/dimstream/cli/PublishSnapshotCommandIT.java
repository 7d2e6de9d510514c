package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangesPartitioner;
import io.dimstream.app.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream publish-snapshot} against a real broker: the topic's whole content afterwards,
 * partition by partition (rows keyed by business key and stamped with --at, then the marker); and
 * the refusals that send nothing.
 */
class PublishSnapshotCommandIT {

    @TempDir
    Path dir;

    private Path config(String bootstrap) throws Exception {
        Path f = dir.resolve("dimstream.yml");
        Files.writeString(f, """
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: jdbc:postgresql://127.0.0.1:5432/unused
                entities:
                  - name: customer
                    topic: crm.customer_snapshots
                    mode: snapshot
                    snapshot-time-field: slice_time
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                  - name: account
                    topic: crm.accounts
                    table: dim_account
                    key: [account_id]
                    tracked: [owner]
                    columns: {account_id: text, owner: text}
                """.formatted(bootstrap));
        return f;
    }

    /** Every record of the topic as {@code partition: key | value | headers}, partition by partition, in offset order. */
    private static List<String> topic(String bootstrap, String topic, int partitions) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                long end = c.endOffsets(List.of(tp)).get(tp);
                while (c.position(tp) < end) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                        List<String> headers = new ArrayList<>();
                        for (Header h : r.headers()) {
                            headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
                        }
                        out.add(p + ": " + (r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8)) + " | "
                                + new String(r.value(), StandardCharsets.UTF_8) + " | " + headers);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void publishesTheRowsKeyedAndStampedThenAnEndOfSliceMarkerToEveryPartition() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic("crm.customer_snapshots", 2, (short) 1)));
            Path rows = dir.resolve("rows.jsonl");
            Files.write(rows, List.of("{\"customer_id\": \"C1\", \"email\": \"a@x.io\"}", "{\"customer_id\": \"C4\", \"email\": \"d@x.io\"}",
                    "{\"customer_id\": \"C2\", \"email\": \"b@x.io\"}"));

            CliRun run = CliRun.of("publish-snapshot", "--config", config(kafka.bootstrapServers()).toString(), "--entity", "customer",
                    "--at", "2025-08-01T00:00:00Z", "--input", rows.toString());

            // C1 and C2 are keys of partition 0, C4 of partition 1 (Kafka's key partitioning)
            assertThat(List.of("C1", "C2", "C4").stream().map(id -> ChangesPartitioner.partitionOf(ChangeCodec.key(List.of(id)), 2)))
                    .containsExactly(0, 0, 1);
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("published 3 rows of slice 2025-08-01T00:00:00.000000Z to crm.customer_snapshots "
                    + "(partition 0: 2, partition 1: 1), then an end-of-slice marker to each of its 2 partitions\n");
            String stamp = ",\"slice_time\":\"2025-08-01T00:00:00.000000Z\"}";
            String marker = "{\"entity\":\"customer\",\"slice\":\"2025-08-01T00:00:00.000000Z\",\"partition\":%d,\"partitions\":2}";
            assertThat(topic(kafka.bootstrapServers(), "crm.customer_snapshots", 2)).containsExactly(
                    "0: [\"C1\"] | {\"customer_id\":\"C1\",\"email\":\"a@x.io\"" + stamp + " | []",
                    "0: [\"C2\"] | {\"customer_id\":\"C2\",\"email\":\"b@x.io\"" + stamp + " | []",
                    "0: null | " + marker.formatted(0) + " | [dimstream.control=end-of-slice]",
                    "1: [\"C4\"] | {\"customer_id\":\"C4\",\"email\":\"d@x.io\"" + stamp + " | []",
                    "1: null | " + marker.formatted(1) + " | [dimstream.control=end-of-slice]");

            // refusals: nothing more is sent
            Files.write(rows, List.of("{\"customer_id\": \"C1\", \"email\": \"a@x.io\"}", "{\"email\": \"x@x.io\"}"));
            CliRun badRows = CliRun.of("publish-snapshot", "--config", dir.resolve("dimstream.yml").toString(), "--entity", "customer",
                    "--at", "2025-08-02T00:00:00Z", "--input", rows.toString());
            CliRun badAt = CliRun.of("publish-snapshot", "--config", dir.resolve("dimstream.yml").toString(), "--entity", "customer",
                    "--at", "yesterday", "--input", rows.toString());
            CliRun changesMode = CliRun.of("publish-snapshot", "--config", dir.resolve("dimstream.yml").toString(), "--entity", "account",
                    "--at", "2025-08-02T00:00:00Z", "--input", rows.toString());

            assertThat(List.of(badRows.exitCode(), badAt.exitCode(), changesMode.exitCode())).containsExactly(2, 2, 2);
            assertThat(badRows.out()).isEqualTo("line 2: key column 'customer_id' is missing\n");
            assertThat(badRows.err()).isEqualTo("dimstream publish-snapshot: " + rows + ": 1 bad line(s), nothing published\n");
            assertThat(badAt.err()).isEqualTo("dimstream publish-snapshot: --at: \"yesterday\" is not an ISO-8601 instant with offset "
                    + "(e.g. 2025-08-01T00:00:00Z)\n");
            assertThat(changesMode.err()).isEqualTo("dimstream publish-snapshot: --entity: entity account is not mode: snapshot\n");
            assertThat(topic(kafka.bootstrapServers(), "crm.customer_snapshots", 2)).hasSize(5);
        }
    }
}
