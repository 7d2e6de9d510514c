package io.dimstream.app.replay;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replay workers against a real broker and PostgreSQL, without the streaming pipeline: the live
 * table is written directly through the writer where a test needs one.
 */
class ReplayWorkerIT {

    private static final AtomicInteger N = new AtomicInteger();
    private static EmbeddedKafka kafka;
    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start(Files.createTempDirectory("replay-worker-it"));
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    /** One entity on a fresh topic (3 partitions) and table, with a produced feed. */
    private record Setup(DimstreamConfig config, EntityPipeline pipeline, EntitySpec spec, String topic,
                         List<ReplayFixtures.Produced> produced) {
        List<Event> events() {
            return ReplayFixtures.events(produced);
        }

        long malformed() {
            return produced.stream().filter(p -> p.event() == null).count();
        }
    }

    private Setup setup(String name, int records) throws Exception {
        int n = N.incrementAndGet();
        String entity = name + "_" + n;
        String topic = "crm." + entity;
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, "dim_" + entity, "unlimited");
        EntityPipeline pipeline = ReplayFixtures.pipeline(config, entity);
        EntityTables.ensure(ds, pipeline.entity());
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(n, 30, Instant.parse("2025-08-01T00:00:00Z")).next(records);
        return new Setup(config, pipeline, pipeline.entity(), topic, ReplayFixtures.produce(kafka.bootstrapServers(), topic, pipeline.entity(), feed));
    }

    private ReplayWorker worker(Setup s, String owner, ReplaySettings settings) {
        return new ReplayWorker(owner, List.of(s.pipeline()), ds, kafka.bootstrapServers(), settings).start();
    }

    private static ReplaySettings fast(int batch, Duration pause, Duration lease) {
        return new ReplaySettings(Duration.ofMillis(100), lease, batch, pause);
    }

    private ReplayJob awaitState(long id, JobState state) throws java.sql.SQLException {
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> jobs.find(id).orElseThrow().state() == state);
        return jobs.find(id).orElseThrow();
    }

    private Map<Integer, Long> endOffsets(Setup s) {
        Map<Integer, Long> ends = new TreeMap<>();
        for (ReplayFixtures.Produced p : s.produced()) {
            ends.merge(p.partition(), p.offset() + 1, Math::max);
        }
        return ends;
    }

    private void assertFinishedWholeRange(Setup s, ReplayJob job) throws Exception {
        long total = s.produced().size();
        assertThat(List.of(job.eventsTotal(), job.eventsRead(), job.eventsRejected())).isEqualTo(List.of(total, total, s.malformed()));
        List<PartitionProgress> expected = new ArrayList<>();
        endOffsets(s).forEach((p, end) -> expected.add(new PartitionProgress(p, 0, end, end)));
        assertThat(jobs.progress(job.id())).isEqualTo(expected);
    }

    @Test
    void replayBringingOldEventsTheTableNeverSawLeavesItEqualToTheReferenceModelOfAllEvents() throws Exception {
        Setup s = setup("backfill", 1200);
        // the live table saw only the newer half of the topic (a service started after the rest was written)
        List<Event> all = s.events();
        List<Event> newer = s.produced().subList(600, 1200).stream().map(ReplayFixtures.Produced::event)
                .filter(java.util.Objects::nonNull).toList();
        new Scd2Writer(ds).apply(s.spec(), newer);
        assertThat(EntityTableReader.rows(ds, s.spec())).isNotEqualTo(new ReferenceModel(s.spec()).rows(all));

        try (ReplayWorker w = worker(s, "w1", fast(200, Duration.ZERO, Duration.ofSeconds(30)))) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);

            assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(all));
            assertFinishedWholeRange(s, job);
            assertThat(job.rowsChanged()).isPositive();
            assertThat(job.requestedBy()).isEqualTo("alice");
        }
    }

    @Test
    void aJobInterruptedByACrashedWorkerIsResumedByAnotherAndEndsExact() throws Exception {
        Setup s = setup("crash", 1500);
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, "bob");
        ReplayWorker first = worker(s, "w-crashing", fast(40, Duration.ofMillis(60), Duration.ofSeconds(2)));
        await().atMost(Duration.ofMinutes(1)).until(() -> jobs.find(id).orElseThrow().eventsRead() > 300);
        first.halt(); // no lease release: the others wait for it to expire
        ReplayJob mid = jobs.find(id).orElseThrow();
        assertThat(mid.state()).isEqualTo(JobState.RUNNING);
        assertThat(mid.eventsRead()).isLessThan(mid.eventsTotal());
        List<PartitionProgress> rangeAtStart = jobs.progress(id);

        try (ReplayWorker second = worker(s, "w-second", fast(500, Duration.ZERO, Duration.ofSeconds(30)))) {
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertThat(second.claimed()).containsExactly(id);
            assertThat(first.claimed()).containsExactly(id);
            assertThat(jobs.progress(id).stream().map(p -> List.of(p.partition(), p.startOffset(), p.endOffset())).toList())
                    .isEqualTo(rangeAtStart.stream().map(p -> List.of(p.partition(), p.startOffset(), p.endOffset())).toList());
            assertFinishedWholeRange(s, job);
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
    }

    @Test
    void aWorkerStoppedMidJobGivesItsLeaseUpAndTheNextWorkerResumesAtOnce() throws Exception {
        Setup s = setup("stop", 1200);
        new Scd2Writer(ds).apply(s.spec(), s.events().subList(500, s.events().size()));
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "hank");
        ReplayWorker first = worker(s, "w-stopping", fast(40, Duration.ofMillis(60), Duration.ofMinutes(10)));
        await().atMost(Duration.ofMinutes(1)).until(() -> jobs.find(id).orElseThrow().eventsRead() > 200);
        first.close();
        ReplayJob mid = jobs.find(id).orElseThrow();
        assertThat(mid.state()).isEqualTo(JobState.RUNNING);
        assertThat(mid.eventsRead()).isLessThan(mid.eventsTotal());
        assertThat(mid.leaseExpiresAt()).isBefore(Instant.now());

        // the lease was 10 minutes: only its release lets the second worker take the job now
        try (ReplayWorker second = worker(s, "w-next", fast(500, Duration.ZERO, Duration.ofSeconds(30)))) {
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertFinishedWholeRange(s, job);
            assertThat(second.claimed()).containsExactly(id);
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
    }

    @Test
    void valuesTheTableRefusesAndMalformedRecordsAreKeptAsRejectsAndTheJobSucceedsWithTheRest() throws Exception {
        Setup s = setup("refused", 600);
        try (java.sql.Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement()) {
            // a constraint added by hand that the event validation cannot know: every email of Alice
            st.execute("ALTER TABLE " + s.spec().table() + " ADD CONSTRAINT no_alice CHECK (email NOT LIKE 'alice.%')");
        }
        List<ReplayFixtures.Produced> refused = s.produced().stream().filter(p -> p.event() != null
                && String.valueOf(p.event().data().get("email")).startsWith("alice.")).toList();
        List<ReplayFixtures.Produced> malformed = s.produced().stream().filter(p -> p.event() == null).toList();
        assertThat(refused).isNotEmpty();
        assertThat(malformed).isNotEmpty();
        List<Event> rest = s.produced().stream().filter(p -> p.event() != null && !refused.contains(p))
                .map(ReplayFixtures.Produced::event).toList();

        try (ReplayWorker w = worker(s, "w-refused", fast(200, Duration.ZERO, Duration.ofSeconds(30)))) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "dave");
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);

            assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(rest));
            assertThat(job.eventsRejected()).isEqualTo(refused.size() + malformed.size());
            List<String> expected = new ArrayList<>();
            refused.forEach(p -> expected.add(p.partition() + "|" + p.offset() + "|23514|PostgreSQL refused the event: ERROR: new row"
                    + " for relation \"" + s.spec().table() + "\" violates check constraint \"no_alice\""));
            malformed.forEach(p -> expected.add(p.partition() + "|" + p.offset() + "|null|"));
            expected.sort(null);
            List<String> actual = new ArrayList<>();
            try (java.sql.Connection c = ds.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                    "SELECT partition, \"offset\", sql_state, reason FROM dimstream.sink_rejects WHERE consumer_group = ? AND entity = ?")) {
                ps.setString(1, "replay-" + id);
                ps.setString(2, s.spec().name());
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String reason = rs.getString(4);
                        // a malformed record's reason is the decoder's (its own test checks it); here: that it has one
                        assertThat(reason).isNotBlank();
                        actual.add(rs.getInt(1) + "|" + rs.getLong(2) + "|" + rs.getString(3) + "|"
                                + (rs.getString(3) == null ? "" : reason));
                    }
                }
            }
            actual.sort(null);
            assertThat(actual).isEqualTo(expected);
        }
    }

    @Test
    void aRangeTakenAtStartIsKeptWhenMoreRecordsArriveDuringTheJob() throws Exception {
        Setup s = setup("range", 600);
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "carol");
        try (ReplayWorker w = worker(s, "w-range", fast(50, Duration.ofMillis(50), Duration.ofSeconds(30)))) {
            await().atMost(Duration.ofMinutes(1)).until(() -> jobs.find(id).orElseThrow().eventsRead() > 0);
            List<CustomerFeed.FeedRecord> more = new CustomerFeed(999, 30, Instant.parse("2026-01-01T00:00:00Z")).next(200);
            ReplayFixtures.produce(kafka.bootstrapServers(), s.topic(), s.spec(), more);
            ReplayJob job = awaitState(id, JobState.SUCCEEDED);
            assertFinishedWholeRange(s, job);
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
    }

    @Test
    void aCancelledShadowJobStopsBetweenBatchesDropsItsShadowAndLeavesTheLiveTableAlone() throws Exception {
        Setup s = setup("cancel", 1500);
        new Scd2Writer(ds).apply(s.spec(), s.events().subList(0, 100));
        List<String> before = ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()));
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, "dave");
        try (ReplayWorker w = worker(s, "w-cancel", fast(30, Duration.ofMillis(100), Duration.ofSeconds(30)))) {
            await().atMost(Duration.ofMinutes(1)).until(() -> jobs.find(id).orElseThrow().eventsRead() > 0);
            assertThat(jobs.requestCancel(id, "erin")).isTrue();
            ReplayJob job = awaitState(id, JobState.CANCELLED);
            assertThat(job.eventsRead()).isLessThan(job.eventsTotal());
            assertThat(job.detail()).isEqualTo("cancelled; the shadow table was dropped, the live table is untouched");
            assertThat(job.leaseOwner()).isNull();
        }
        assertThat(ReplayFixtures.strings(ds, "SELECT to_regclass('" + ShadowTables.shadowSpec(s.spec(), id).table() + "')::text"))
                .containsExactly((String) null);
        assertThat(ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()))).isEqualTo(before);
        assertThat(ReplayFixtures.strings(ds, "SELECT actor || ' ' || action FROM dimstream.admin_audit WHERE target = 'replay_job:" + id
                + "' ORDER BY id")).containsExactly("dave replay.submit", "erin replay.cancel");
    }

    @Test
    void aNoSwapShadowJobStopsReadyWithTheLiveTableUntouchedItsPreviewIsTheModelsDifferenceAndItsSwapMakesTheTableTheModel()
            throws Exception {
        Setup s = setup("noswap", 900);
        // the live table saw the older half of the topic; the rebuild reads all of it
        List<Event> older = s.produced().subList(0, 450).stream().map(ReplayFixtures.Produced::event)
                .filter(java.util.Objects::nonNull).toList();
        new Scd2Writer(ds).apply(s.spec(), older);
        List<String> before = ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()));
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.SHADOW, true, "ivan");
        EntitySpec shadow = ShadowTables.shadowSpec(s.spec(), id);
        try (ReplayWorker w = worker(s, "w-noswap", fast(200, Duration.ZERO, Duration.ofSeconds(30)))) {
            ReplayJob job = awaitState(id, JobState.READY);
            assertFinishedWholeRange(s, job);
            assertThat(List.of(String.valueOf(job.leaseOwner()), job.detail())).isEqualTo(List.of("null", "shadow table " + shadow.table()
                    + " filled to the end offsets; waiting for a swap or a discard (the live table is untouched)"));
            assertThat(ReplayFixtures.wholeRows(ds, ReplayFixtures.table(s.spec()))).isEqualTo(before);
            assertThat(EntityTableReader.rows(ds, shadow)).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
            // a READY job is nobody's: no worker claims it again
            assertThat(jobs.claim("w-other", List.of(s.spec().name()), Duration.ofSeconds(30))).isEmpty();

            // the preview: per key, the model's versions of all events against those of the older half
            io.dimstream.db.jobs.ShadowPreviews previews = new io.dimstream.db.jobs.ShadowPreviews(ds);
            io.dimstream.db.read.ShadowDiff diff = previews.preview(id, s.spec(), 10_000).diff();
            Map<Object, List<io.dimstream.db.write.ExpectedRow>> was = byKey(new ReferenceModel(s.spec()).rows(older));
            Map<Object, List<io.dimstream.db.write.ExpectedRow>> will = byKey(new ReferenceModel(s.spec()).rows(s.events()));
            List<String> expected = new ArrayList<>();
            java.util.TreeSet<Object> keys = new java.util.TreeSet<>(will.keySet());
            keys.addAll(was.keySet());
            for (Object k : keys) {
                List<io.dimstream.db.write.ExpectedRow> a = new ArrayList<>(will.getOrDefault(k, List.of()));
                List<io.dimstream.db.write.ExpectedRow> r = new ArrayList<>(was.getOrDefault(k, List.of()));
                a.removeAll(was.getOrDefault(k, List.of()));
                r.removeAll(will.getOrDefault(k, List.of()));
                if (!a.isEmpty() || !r.isEmpty()) {
                    expected.add(k + " " + (!was.containsKey(k) ? "ADDED" : !will.containsKey(k) ? "REMOVED" : "CHANGED") + " +" + a + " -" + r);
                }
            }
            List<String> actual = diff.keys().stream().map(kd -> kd.key().get("customer_id") + " " + kd.kind() + " +"
                    + kd.versionsAdded().stream().map(ReplayWorkerIT::expectedRow).toList() + " -"
                    + kd.versionsRemoved().stream().map(ReplayWorkerIT::expectedRow).toList()).toList();
            assertThat(actual).isEqualTo(expected);
            assertThat(expected).hasSizeGreaterThan(5);
            assertThat(diff.truncated()).isFalse();
            assertThat(List.of(diff.keysAdded() + diff.keysRemoved() + diff.keysChanged())).isEqualTo(List.of((long) expected.size()));

            ReplayJob swapped = previews.swap(id, s.spec(), "ivan");
            assertThat(swapped.state()).isEqualTo(JobState.SUCCEEDED);
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
        assertThat(ReplayFixtures.wholeRows(ds, ShadowTables.retiredTable(s.spec(), id))).isEqualTo(before);
        assertThat(ReplayFixtures.strings(ds, "SELECT actor || ' ' || action FROM dimstream.admin_audit WHERE target = 'replay_job:" + id
                + "' ORDER BY id")).containsExactly("ivan replay.submit", "ivan replay.swap");
    }

    private static Map<Object, List<io.dimstream.db.write.ExpectedRow>> byKey(List<io.dimstream.db.write.ExpectedRow> rows) {
        Map<Object, List<io.dimstream.db.write.ExpectedRow>> out = new TreeMap<>();
        rows.forEach(r -> out.computeIfAbsent(r.key().get("customer_id"), k -> new ArrayList<>()).add(r));
        return out;
    }

    private static io.dimstream.db.write.ExpectedRow expectedRow(io.dimstream.db.read.VersionRow v) {
        return new io.dimstream.db.write.ExpectedRow(v.key(), v.attributes(), v.validFrom(), v.validTo(), v.current(), v.deleted(),
                v.recordHash());
    }

    @Test
    void twoWorkersNeverRunOneJob() throws Exception {
        Setup s = setup("two", 400);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, "frank"));
        }
        try (ReplayWorker a = worker(s, "w-a", fast(50, Duration.ofMillis(20), Duration.ofSeconds(30)));
             ReplayWorker b = worker(s, "w-b", fast(50, Duration.ofMillis(20), Duration.ofSeconds(30)))) {
            for (long id : ids) {
                awaitState(id, JobState.SUCCEEDED);
            }
            List<Long> both = new ArrayList<>(a.claimed());
            both.addAll(b.claimed());
            assertThat(both).containsExactlyInAnyOrderElementsOf(ids);
            for (long id : ids) {
                assertFinishedWholeRange(s, jobs.find(id).orElseThrow());
            }
        }
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
    }

    @Test
    void aJobOnATopicThatDoesNotExistFailsNamingItAndCreatesNothing() throws Exception {
        Setup s = setup("missing", 10);
        long id = jobs.submit(s.spec().name(), "crm.no_such_topic", ReplaySource.earliest(), ReplayTarget.LIVE, "ivy");
        try (ReplayWorker w = worker(s, "w-missing", fast(100, Duration.ZERO, Duration.ofSeconds(30)))) {
            ReplayJob job = awaitState(id, JobState.FAILED);
            assertThat(List.of(job.error(), job.eventsRead())).isEqualTo(List.of("topic crm.no_such_topic does not exist", 0L));
        }
        try (var admin = kafka.admin()) {
            assertThat(admin.listTopics().names().get()).doesNotContain("crm.no_such_topic");
        }
    }

    @Test
    void explicitOffsetsReplayOnlyTheListedPartitionsFromThere() throws Exception {
        Setup s = setup("offsets", 300);
        Map<Integer, Long> ends = endOffsets(s);
        long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.parse("1:5"), ReplayTarget.LIVE, "gina");
        try (ReplayWorker w = worker(s, "w-off", fast(100, Duration.ZERO, Duration.ofSeconds(30)))) {
            awaitState(id, JobState.SUCCEEDED);
        }
        assertThat(jobs.progress(id)).containsExactly(new PartitionProgress(1, 5, ends.get(1), ends.get(1)));
        List<Event> expected = s.produced().stream().filter(p -> p.partition() == 1 && p.offset() >= 5 && p.event() != null)
                .map(ReplayFixtures.Produced::event).toList();
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(expected));
    }
}
