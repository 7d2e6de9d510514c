package io.dimstream.app.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot feed end to end on a real broker and PostgreSQL: slices published to a 3-partition
 * source topic (by {@link SnapshotPublisher}, and one by a producer that spreads rows over the
 * partitions without regard to their keys), through the topology's end-of-slice barrier and the
 * sink, end as the hand-computed history; reloading the slices changes nothing; a slice without
 * its markers deletes nothing.
 */
class SnapshotFeedIT {

    /** The test JVM's shared broker: topics, groups and application ids here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Instant T1 = Instant.parse("2025-08-01T00:00:00Z");
    private static final Instant T2 = Instant.parse("2025-08-02T00:00:00Z");
    private static final Instant T3 = Instant.parse("2025-08-03T00:00:00Z");
    private static final Instant T4 = Instant.parse("2025-08-04T00:00:00Z");

    private static final List<String> SLICE_1 = List.of(row("C1", "a@x.io", "Paris"), row("C2", "b@x.io", "Rome"),
            row("C3", "c@x.io", "Oslo"), row("C4", "d@x.io", "Lima"), row("C6", "f@x.io", "Kyiv"));
    private static final List<String> SLICE_2 = List.of(row("C1", "a@x.io", "Paris"), row("C2", "b@x.io", "Milan"),
            row("C5", "e@x.io", "Bern"), row("C6", "f@x.io", "Kyiv"));
    private static final List<String> SLICE_3 = List.of(row("C2", "b@x.io", "Milan"), row("C3", "c@x.io", "Oslo"),
            row("C5", "e2@x.io", "Bern"), row("C6", "f@x.io", "Kyiv"));

    private static String row(String id, String email, String city) {
        return "{\"customer_id\": \"" + id + "\", \"email\": \"" + email + "\", \"city\": \"" + city + "\", \"last_login\": 1}";
    }

    @Test
    void slicesThroughTheWholePipelineGiveTheHandComputedHistoryAndReloadingChangesNothing(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        kafka.createTopics(List.of(new NewTopic("crm.customer_snapshots", 3, (short) 1)));
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: snapcustomer
                    topic: crm.customer_snapshots
                    mode: snapshot
                    snapshot-time-field: slice_time
                    table: dim_snapshot_feed_it
                    key: [customer_id]
                    tracked: [email, city]
                    type1: [last_login]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl()), "test config", Map.of());
        EntityConfig entity = config.entity("snapcustomer");
        EntitySpec spec = entity.toEntitySpec();
        // dimstream's own topics get 2 partitions, but the snapshot entity's changes topic must take the source's 3
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "snapshot-it", 2, Duration.ofHours(1));
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry());
             KafkaProducer<byte[], byte[]> producer = SnapshotPublisher.producer(kafka.bootstrapServers())) {
            long sent = 0;
            sent += publish(producer, entity, T1, SLICE_1);
            sent += spreadOverPartitions(producer, entity, T2, SLICE_2, true);
            sent += publish(producer, entity, T3, SLICE_3);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();

            List<String> expected = List.of(
                    "C1 a@x.io Paris 2025-08-01T00:00:00Z..2025-08-03T00:00:00Z",
                    "C1 a@x.io Paris 2025-08-03T00:00:00Z.. deleted",
                    "C2 b@x.io Rome 2025-08-01T00:00:00Z..2025-08-02T00:00:00Z",
                    "C2 b@x.io Milan 2025-08-02T00:00:00Z.. current",
                    "C3 c@x.io Oslo 2025-08-01T00:00:00Z..2025-08-02T00:00:00Z",
                    "C3 c@x.io Oslo 2025-08-02T00:00:00Z..2025-08-03T00:00:00Z deleted",
                    "C3 c@x.io Oslo 2025-08-03T00:00:00Z.. current",
                    "C4 d@x.io Lima 2025-08-01T00:00:00Z..2025-08-02T00:00:00Z",
                    "C4 d@x.io Lima 2025-08-02T00:00:00Z.. deleted",
                    "C5 e@x.io Bern 2025-08-02T00:00:00Z..2025-08-03T00:00:00Z",
                    "C5 e2@x.io Bern 2025-08-03T00:00:00Z.. current",
                    "C6 f@x.io Kyiv 2025-08-01T00:00:00Z.. current");
            assertThat(describe(EntityTableReader.rows(TestPostgres.dataSource(), spec))).containsExactlyElementsOf(expected);
            assertThat(EntityTableReader.rows(TestPostgres.dataSource(), spec)).containsExactlyElementsOf(
                    new ReferenceModel(spec).rows(chronological(spec, entity, List.of(T1, T2, T3), List.of(SLICE_1, SLICE_2, SLICE_3))));
            List<String> before = fullRows(spec);

            // the same three slices again (the reload of the batch approach): nothing changes, not even loaded_at
            sent += publish(producer, entity, T1, SLICE_1);
            sent += publish(producer, entity, T2, SLICE_2);
            sent += publish(producer, entity, T3, SLICE_3);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
            assertThat(fullRows(spec)).containsExactlyElementsOf(before);

            // slice 4 without its end-of-slice markers: C3 and C6 are left out of it but stay
            List<String> slice4 = List.of(row("C2", "b@x.io", "Milan"), row("C5", "e2@x.io", "Bern"));
            sent += spreadOverPartitions(producer, entity, T4, slice4, false);
            assertThat(pipeline.awaitCaughtUp(sent, Duration.ofMinutes(3))).isTrue();
            assertThat(fullRows(spec)).containsExactlyElementsOf(before);
        }
    }

    /** Publishes a slice as {@code publish-snapshot} does; returns the records sent (rows + one marker per partition). */
    private static long publish(KafkaProducer<byte[], byte[]> producer, EntityConfig entity, Instant at, List<String> rows)
            throws Exception {
        List<SnapshotPublisher.Row> read = SnapshotPublisher.read(new BufferedReader(new StringReader(String.join("\n", rows))), entity, at);
        SnapshotPublisher.Published p = SnapshotPublisher.publish(producer, entity.topic(), entity.name(), at, read);
        return p.rows() + p.rowsPerPartition().size();
    }

    /**
     * A producer that does not key by business key: row i goes to partition i mod 3 (so most rows
     * are on another partition than their key's changes partition), then a marker to each partition.
     */
    private static long spreadOverPartitions(KafkaProducer<byte[], byte[]> producer, EntityConfig entity, Instant at,
                                             List<String> rows, boolean markers) throws Exception {
        String stamp = "\"" + entity.snapshotTimeField() + "\": \"" + at + "\"";
        for (int i = 0; i < rows.size(); i++) {
            String v = rows.get(i).substring(0, rows.get(i).length() - 1) + ", " + stamp + "}";
            producer.send(new ProducerRecord<>(entity.topic(), (i + 1) % 3, null, v.getBytes(StandardCharsets.UTF_8))).get();
        }
        if (markers) {
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(entity.topic(), p, null, null, new SliceMarker(entity.name(), at, p, 3).toBytes(),
                        SliceMarker.mark(new RecordHeaders()))).get();
            }
        }
        return rows.size() + (markers ? 3 : 0);
    }

    /** The events of loading the slices in time order (a delete for each key live before a slice that leaves it out). */
    private static List<Event> chronological(EntitySpec spec, EntityConfig entity, List<Instant> times, List<List<String>> slices)
            throws Exception {
        List<Event> events = new ArrayList<>();
        Set<String> live = new HashSet<>();
        long seq = 0;
        for (int s = 0; s < times.size(); s++) {
            Set<String> present = new HashSet<>();
            for (String row : slices.get(s)) {
                Map<String, Object> data = new LinkedHashMap<>(io.dimstream.db.event.NativeEventJson.toMap(
                        io.dimstream.db.event.NativeEventJson.mapper().readTree(row)));
                events.add(Event.upsert(times.get(s), data, seq++, Source.kafka("model", 0, seq)));
                present.add((String) data.get("customer_id"));
            }
            for (String k : live) {
                if (!present.contains(k)) {
                    events.add(Event.delete(times.get(s), Map.of("customer_id", k), seq++, Source.kafka("model", 0, seq)));
                }
            }
            live = present;
        }
        return events;
    }

    private static List<String> describe(List<ExpectedRow> rows) {
        return rows.stream().map(r -> r.key().get("customer_id") + " " + r.attrs().get("email") + " " + r.attrs().get("city") + " "
                + r.validFrom() + ".." + (r.validTo() == null ? "" : r.validTo()) + (r.deleted() ? " deleted" : r.current() ? " current" : ""))
                .toList();
    }

    private static List<String> fullRows(EntitySpec spec) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT t::text FROM " + spec.table() + " t ORDER BY customer_id, valid_from")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
