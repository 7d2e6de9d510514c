package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays of a {@code mode: snapshot} topic (real broker, real PostgreSQL, no streaming pipeline):
 * four slices with inserts, changes and disappearances, published to a 3-partition topic with
 * their end-of-slice markers, slice 2 after slice 3 (an older slice published late). A live
 * replay into a damaged table and a shadow replay swapped in both end equal to the reference model
 * of the slices loaded in time order (a delete at a slice's instant for each key live before it that
 * it leaves out); replaying again changes no column of any row; a range that starts inside a slice
 * applies that slice's rows in the range but deletes nothing for it, nor does a slice missing one
 * partition's marker; a job killed mid-slice and
 * resumed by another worker still ends equal.
 */
class SnapshotReplayIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final AtomicInteger N = new AtomicInteger();
    private static final int PARTITIONS = 3;
    private static final Instant T0 = Instant.parse("2025-07-31T00:00:00Z");
    private static final List<Instant> TIMES = List.of(Instant.parse("2025-08-01T00:00:00Z"), Instant.parse("2025-08-02T00:00:00Z"),
            Instant.parse("2025-08-03T00:00:00Z"), Instant.parse("2025-08-04T00:00:00Z"));
    /** The order the slices are published in: slice 2 (index 1) after slice 3. */
    private static final List<Integer> PUBLISHED = List.of(0, 2, 1, 3);

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    /** One slice: its instant and rows (customer_id, email, city, last_login). */
    private record Slice(Instant at, List<Map<String, Object>> rows) {
    }

    /** Where a slice's records landed: per partition, the offsets of its rows and of its marker. */
    private record Placed(Map<Integer, List<Long>> rowOffsets, Map<Integer, Long> markerOffsets) {
    }

    private record Setup(EntityPipeline pipeline, EntitySpec spec, String topic, List<Slice> slices, Map<Instant, Placed> placed) {
    }

    /**
     * Slice s of 4 over keys C00..C29: key k is in it unless (k + 2s) % 5 == 0 (so keys leave and
     * come back), its city changes every other slice for one key in three, its email in slice 4 for
     * one key in seven, and keys C30.. join in slice 2 and 3.
     */
    private static List<Slice> slices() {
        List<Slice> out = new ArrayList<>();
        for (int s = 0; s < TIMES.size(); s++) {
            List<Map<String, Object>> rows = new ArrayList<>();
            int keys = s == 0 ? 30 : 34;
            for (int k = 0; k < keys; k++) {
                if ((k + 2 * s) % 5 == 0) {
                    continue;
                }
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("customer_id", "C%02d".formatted(k));
                row.put("email", "c" + k + (s == 3 && k % 7 == 0 ? "@new.io" : "@x.io"));
                row.put("city", k % 3 == 0 ? "City" + (s / 2) : "Home" + k);
                row.put("last_login", 1000L + s);
                rows.add(row);
            }
            out.add(new Slice(TIMES.get(s), rows));
        }
        return out;
    }

    private Setup setup(String name) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "snapreplay_" + name + "_" + N.incrementAndGet();
        String topic = "crm." + entity;
        kafka.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)));
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: %s
                    topic: %s
                    mode: snapshot
                    snapshot-time-field: slice_time
                    table: dim_%s
                    key: [customer_id]
                    tracked: [email, city]
                    type1: [last_login]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), entity, topic, entity), "test config", Map.of());
        EntityPipeline pipeline = EntityPipeline.of("dimstream", config.entity(entity));
        EntityTables.ensure(ds, pipeline.entity());
        List<Slice> slices = slices();
        Map<Instant, Placed> placed = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = io.dimstream.app.snapshot.SnapshotPublisher.producer(kafka.bootstrapServers())) {
            for (int s : PUBLISHED) {
                placed.put(slices.get(s).at(), publish(producer, topic, entity, slices.get(s)));
            }
        }
        return new Setup(pipeline, pipeline.entity(), topic, slices, placed);
    }

    /**
     * Publishes a slice as any producer may: row i to partition (i + at's day) % 3, whatever its key,
     * then an end-of-slice marker to each partition; every send acknowledged.
     */
    private static Placed publish(KafkaProducer<byte[], byte[]> producer, String topic, String entity, Slice slice) throws Exception {
        return publish(producer, topic, entity, slice, PARTITIONS);
    }

    /** {@link #publish}, with markers on the first {@code markerCount} partitions only. */
    private static Placed publish(KafkaProducer<byte[], byte[]> producer, String topic, String entity, Slice slice, int markerCount)
            throws Exception {
        Map<Integer, List<Long>> rows = new TreeMap<>();
        Map<Integer, Long> markers = new TreeMap<>();
        int shift = (int) (slice.at().getEpochSecond() / 86_400);
        for (int i = 0; i < slice.rows().size(); i++) {
            Map<String, Object> r = slice.rows().get(i);
            String json = "{\"customer_id\": \"%s\", \"email\": \"%s\", \"city\": \"%s\", \"last_login\": %d, \"slice_time\": \"%s\"}"
                    .formatted(r.get("customer_id"), r.get("email"), r.get("city"), r.get("last_login"), slice.at());
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, (i + shift) % PARTITIONS,
                    ((String) r.get("customer_id")).getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8))).get();
            rows.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
        }
        for (int p = 0; p < markerCount; p++) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, p, null, null, new SliceMarker(entity, slice.at(), p, PARTITIONS)
                    .toBytes(), SliceMarker.mark(new RecordHeaders()))).get();
            markers.put(p, md.offset());
        }
        return new Placed(rows, markers);
    }

    /**
     * The events of loading the slices in time order after {@code before}: each slice's rows as
     * upserts at its instant and, for a judged slice, a delete for each key live before it that it
     * leaves out (a slice not judged adds its keys to the live ones and removes none).
     */
    private static List<Event> model(List<Event> before, List<Slice> slices, Set<Instant> notJudged) {
        List<Event> events = new ArrayList<>(before);
        Set<String> live = new LinkedHashSet<>();
        before.forEach(e -> live.add((String) e.data().get("customer_id")));
        long seq = 1_000_000;
        for (Slice s : slices) {
            Set<String> present = new LinkedHashSet<>();
            for (Map<String, Object> row : s.rows()) {
                events.add(Event.upsert(s.at(), row, seq++, Source.kafka("model", 0, seq)));
                present.add((String) row.get("customer_id"));
            }
            if (notJudged.contains(s.at())) {
                live.addAll(present);
                continue;
            }
            for (String k : live) {
                if (!present.contains(k)) {
                    events.add(Event.delete(s.at(), Map.of("customer_id", k), seq++, Source.kafka("model", 0, seq)));
                }
            }
            live.clear();
            live.addAll(present);
        }
        return events;
    }

    private ReplayWorker worker(Setup s, String owner, ReplaySettings settings) {
        return new ReplayWorker(owner, List.of(s.pipeline()), ds, KAFKA.get().bootstrapServers(), settings).start();
    }

    private static ReplaySettings settings(int batch, Duration pause, Duration lease) {
        return new ReplaySettings(Duration.ofMillis(100), lease, batch, pause);
    }

    private ReplayJob awaitState(long id, JobState state) throws java.sql.SQLException {
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> jobs.find(id).orElseThrow().state() == state);
        return jobs.find(id).orElseThrow();
    }

    private List<String> recordedSlices(Setup s) throws java.sql.SQLException {
        return ReplayFixtures.strings(ds, "SELECT partition || ' ' || to_char(slice_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM "
                + "dimstream.snapshot_slices WHERE entity = '" + s.spec().name() + "' ORDER BY partition, slice_time");
    }

    private static long records(Setup s) {
        return s.slices().stream().mapToLong(sl -> sl.rows().size() + PARTITIONS).sum();
    }

    @Test
    void aLiveReplayIntoADamagedTableEndsAsTheSlicesLoadedInTimeOrderAndAgainChangesNothing() throws Exception {
        Setup s = setup("live");
        // the damage: the table got slice 3's rows but none of its deletions (its markers lost), and a
        // key that no slice holds (the replay's judgement of slice 1 deletes it at slice 1)
        Event stray = Event.upsert(T0, Map.of("customer_id", "C99", "email", "stray@x.io", "city", "Nowhere", "last_login", 1L), 1,
                Source.kafka("damage", 0, 0L));
        List<Event> damage = new ArrayList<>(List.of(stray));
        long seq = 2;
        for (Map<String, Object> row : s.slices().get(2).rows()) {
            damage.add(Event.upsert(TIMES.get(2), row, seq, Source.kafka("damage", 0, seq++)));
        }
        new Scd2Writer(ds).apply(s.spec(), damage);
        List<Event> model = model(List.of(stray), s.slices(), Set.of());
        assertThat(EntityTableReader.rows(ds, s.spec())).isNotEqualTo(new ReferenceModel(s.spec()).rows(model));

        try (ReplayWorker w = worker(s, "w-live", settings(25, Duration.ZERO, Duration.ofSeconds(30)))) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertThat(List.of(job.eventsTotal(), job.eventsRead(), job.eventsRejected())).isEqualTo(List.of(records(s), records(s), 0L));
            assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(model));
            // recorded complete for every key (as a load records a slice), so the live sink's older slices re-judge them
            assertThat(recordedSlices(s)).containsExactly("-1 2025-08-01", "-1 2025-08-02", "-1 2025-08-03", "-1 2025-08-04");

            // the same replay again: no column of any row changes, loaded_at and surrogate keys included
            List<String> before = ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()));
            long again = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            ReplayJob second = awaitState(again, JobState.SUCCEEDED);
            assertThat(List.of(second.eventsRead(), second.rowsChanged())).isEqualTo(List.of(records(s), 0L));
            assertThat(ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()))).containsExactlyElementsOf(before);
        }
    }

    @Test
    void aShadowReplaySwappedInEqualsTheSlicesLoadedInTimeOrder() throws Exception {
        Setup s = setup("shadow");
        // the live table holds only slice 1's rows (a service that lost the rest)
        List<Event> first = new ArrayList<>();
        long seq = 1;
        for (Map<String, Object> row : s.slices().get(0).rows()) {
            first.add(Event.upsert(TIMES.get(0), row, seq, Source.kafka("damage", 0, seq++)));
        }
        new Scd2Writer(ds).apply(s.spec(), first);

        try (ReplayWorker w = worker(s, "w-shadow", settings(25, Duration.ZERO, Duration.ofSeconds(30)))) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, "bob");
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertThat(job.detail()).startsWith("swapped in; the replaced table is kept as ");
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(model(List.of(), s.slices(), Set.of())));
        assertThat(recordedSlices(s)).containsExactly("-1 2025-08-01", "-1 2025-08-02", "-1 2025-08-03", "-1 2025-08-04");
    }

    @Test
    void aPreviewedShadowReplayStopsReadyAndItsSwapRecordsTheSlicesAsTheWorkersSwapDoes() throws Exception {
        Setup s = setup("preview");
        List<Event> first = new ArrayList<>();
        long seq = 1;
        for (Map<String, Object> row : s.slices().get(0).rows()) {
            first.add(Event.upsert(TIMES.get(0), row, seq, Source.kafka("damage", 0, seq++)));
        }
        new Scd2Writer(ds).apply(s.spec(), first);
        List<String> live = ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()));

        long id;
        try (ReplayWorker w = worker(s, "w-preview", settings(25, Duration.ZERO, Duration.ofSeconds(30)))) {
            id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, true, "erin");
            awaitState(id, JobState.READY);
        }
        // READY: the live table untouched, no slice recorded for the entity yet
        assertThat(ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()))).containsExactlyElementsOf(live);
        assertThat(recordedSlices(s)).isEmpty();

        ReplayJob swapped = new io.dimstream.db.jobs.ShadowPreviews(ds).swap(id, s.spec(), "erin");

        assertThat(swapped.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(model(List.of(), s.slices(), Set.of())));
        assertThat(recordedSlices(s)).containsExactly("-1 2025-08-01", "-1 2025-08-02", "-1 2025-08-03", "-1 2025-08-04");
    }

    @Test
    void slicesCutByTheRangeStartOrMissingAMarkerLandTheirRowsButDeleteNothing() throws Exception {
        Setup s = setup("cut");
        // slice 5: a quarter of slice 4's keys left out, the rest logged in again; its marker on partition 2 never comes
        Instant t5 = Instant.parse("2025-08-05T00:00:00Z");
        List<Map<String, Object>> rows5 = new ArrayList<>();
        List<Map<String, Object>> rows4 = s.slices().get(3).rows();
        for (int i = 0; i < rows4.size(); i++) {
            if (i % 4 != 1) {
                Map<String, Object> row = new LinkedHashMap<>(rows4.get(i));
                row.put("last_login", 2000L);
                rows5.add(row);
            }
        }
        Slice slice5 = new Slice(t5, rows5);
        try (KafkaProducer<byte[], byte[]> producer = io.dimstream.app.snapshot.SnapshotPublisher.producer(KAFKA.get().bootstrapServers())) {
            publish(producer, s.topic(), s.spec().name(), slice5, PARTITIONS - 1);
        }
        // C99 is live before slice 1, which leaves it out: judged, slice 1 would delete it at its instant
        Event older = Event.upsert(T0, Map.of("customer_id", "C99", "email", "old@x.io", "city", "Old", "last_login", 1L), 1,
                Source.kafka("before", 0, 0L));
        new Scd2Writer(ds).apply(s.spec(), List.of(older));
        // the range starts after slice 1's first row on partition 1: slice 1 is cut there
        Instant t1 = TIMES.get(0);
        Placed p1 = s.placed().get(t1);
        long cutAt = p1.rowOffsets().get(1).get(0) + 1;
        Map<String, Object> cutRow = s.slices().get(0).rows().stream().filter(r -> rowOn(s, t1, r, 1, cutAt - 1)).findFirst().orElseThrow();
        List<Map<String, Object>> inRange = s.slices().get(0).rows().stream().filter(r -> r != cutRow).toList();
        List<Slice> replayed = new ArrayList<>(s.slices());
        replayed.set(0, new Slice(t1, inRange));
        replayed.add(slice5);

        try (ReplayWorker w = worker(s, "w-cut", settings(25, Duration.ZERO, Duration.ofSeconds(30)))) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.offsets(Map.of(0, 0L, 1, cutAt, 2, 0L)), ReplayTarget.LIVE, "carol");
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertThat(job.eventsRead()).isEqualTo(records(s) + rows5.size() + PARTITIONS - 1 - cutAt);
        }
        // C99 lives on until slice 2, the first judged slice; the cut row's key first appears in slice 2;
        // slice 5's rows land (new last_login) and the keys it leaves out stay current
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(model(List.of(older), replayed,
                Set.of(t1, t5))));
        assertThat(recordedSlices(s)).containsExactly("-1 2025-08-02", "-1 2025-08-03", "-1 2025-08-04");
    }

    /** Whether {@code row} of the slice at {@code at} went to {@code partition} at {@code offset} (row i to (i + day) % 3). */
    private static boolean rowOn(Setup s, Instant at, Map<String, Object> row, int partition, long offset) {
        Slice slice = s.slices().stream().filter(x -> x.at().equals(at)).findFirst().orElseThrow();
        Placed placed = s.placed().get(at);
        int shift = (int) (at.getEpochSecond() / 86_400);
        int i = slice.rows().indexOf(row);
        int p = (i + shift) % PARTITIONS;
        if (p != partition) {
            return false;
        }
        int nth = 0;
        for (int j = 0; j < i; j++) {
            if ((j + shift) % PARTITIONS == p) {
                nth++;
            }
        }
        return placed.rowOffsets().get(p).get(nth) == offset;
    }

    @Test
    void aShadowReplayKilledMidSliceIsResumedByAnotherWorkerAndEndsEqual() throws Exception {
        Setup s = setup("resume");
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, "dan");
        ReplayWorker killed = worker(s, "w-killed", settings(4, Duration.ofMillis(80), Duration.ofSeconds(2)));
        await().atMost(Duration.ofMinutes(1)).until(() -> jobs.find(id).orElseThrow().eventsRead() > records(s) / 2);
        killed.halt(); // its lease is not released: the next worker takes the job when it expires
        ReplayJob mid = jobs.find(id).orElseThrow();
        assertThat(mid.state()).isEqualTo(JobState.RUNNING);
        assertThat(mid.eventsRead()).isLessThan(mid.eventsTotal());

        try (ReplayWorker next = worker(s, "w-next", settings(7, Duration.ZERO, Duration.ofSeconds(30)))) {
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertThat(next.claimed()).containsExactly(id);
            assertThat(List.of(job.eventsTotal(), job.eventsRead(), job.eventsRejected())).isEqualTo(List.of(records(s), records(s), 0L));
        }
        assertThat(killed.claimed()).containsExactly(id);
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(model(List.of(), s.slices(), Set.of())));
    }
}
