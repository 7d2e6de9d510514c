package io.dimstream.app.compose;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.replay.ReplaySettings;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repair under live traffic: the whole pipeline streams a generated customer feed (five days of
 * events); the table is damaged by hand on three keys (a key's rows
 * deleted, values changed, an open version deleted); a repair of those keys (a live replay restricted
 * to them) is submitted to the service's own replay worker while the feed goes on, with events of the
 * repaired keys and of others. At the end the table equals the reference model of every event, every
 * column but {@code loaded_at}; nothing is quarantined or rejected.
 */
class RepairUnderTrafficIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Set<String> REPAIRED = Set.of("C0003", "C0007", "C0011");
    private final DataSource ds = TestPostgres.dataSource();

    /** The feed spans five days, inside the default lateness horizon (30 days). */
    @Test
    void repairingDamagedKeysWhileTheirEventsKeepArrivingEndsAsTheModelOfAllEvents(@TempDir Path dir) throws Exception {
        repairUnderTraffic(dir, "customer_rut", "P30D");
    }

    /**
     * The same with a horizon of one day: the keys' history is longer than the horizon. Fails: once
     * the repair has cleared the keys, the sink's first new event of a key is its newest, and the
     * replay's events of it older than that by more than a day go to quarantine instead of back
     * into the table (here 44 of 965 rows missing). docs/replay.md states it ("with a lateness
     * horizon, a replayed event older than them by more than it is quarantined"); see the
     * composition suite's report for the fix it needs.
     */
    @Test
    void aRepairUnderTrafficKeepsTheRepairedKeysHistoryLongerThanTheHorizon(@TempDir Path dir) throws Exception {
        repairUnderTraffic(dir, "customer_rut_horizon", "P1D");
    }

    private void repairUnderTraffic(Path dir, String entity, String horizon) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String application = "compose-repair-it-" + entity;
        String topic = "crm.compose-repair-it." + entity;
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, "dim_" + entity, horizon);
        EntitySpec spec = config.entity(entity).toEntitySpec();
        // without the feed's exact repeats (see LoadWhileStreamingIT); 1400 events of 20 keys: five days
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(31, 20, Instant.parse("2025-08-01T00:00:00Z")).next(1400).stream()
                .filter(r -> !r.kind().equals("duplicate")).toList();
        int half = feed.size() / 2;
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), application, 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(10), 10, Duration.ofMillis(100)));
        ReplayJobs jobs = new ReplayJobs(ds);
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<FeedFixtures.Located> produced = new ArrayList<>(FeedFixtures.produceLocated(kafka.bootstrapServers(), topic, spec,
                    feed.subList(0, half)));
            assertThat(pipeline.awaitCaughtUp(half, Duration.ofMinutes(3))).isTrue();
            assertThat(differences(application, spec, produced, Set.of())).isEmpty();

            damage(spec, "DELETE FROM {T} WHERE customer_id = 'C0003'",
                    "UPDATE {T} SET city = 'Nowhere', email = 'x@y' WHERE customer_id = 'C0007'",
                    "DELETE FROM {T} WHERE customer_id = 'C0011' AND valid_to IS NULL");
            assertThat(differences(application, spec, produced, Set.of())).isNotEmpty();

            // the feed goes on while the repair runs, and after
            Future<List<FeedFixtures.Located>> streamed = producer.submit(() -> {
                List<FeedFixtures.Located> more = new ArrayList<>();
                for (int from = half; from < feed.size(); from += 20) {
                    more.addAll(FeedFixtures.produceLocated(kafka.bootstrapServers(), topic, spec, feed.subList(from, Math.min(from + 20, feed.size()))));
                    Thread.sleep(100);
                }
                return more;
            });
            long id = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE,
                    ReplayKeys.parseKeys("--keys", String.join(",", REPAIRED), spec), "alice");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> jobs.find(id).orElseThrow().state().finished());
            produced.addAll(streamed.get());
            assertThat(pipeline.awaitCaughtUp(feed.size(), Duration.ofMinutes(3))).isTrue();
            ReplayJob job = jobs.find(id).orElseThrow();
            Map<Integer, Long> ends = jobs.progress(id).stream().collect(Collectors.toMap(PartitionProgress::partition, PartitionProgress::endOffset));
            // the replay's rejects: the range's records that are no event at all, and the invalid events of the repaired keys
            // (kept in the sink's rejects under the job's group); the sink itself refused nothing
            List<String> replayRejects = new ArrayList<>();
            for (int i = 0; i < produced.size(); i++) {
                FeedFixtures.Located l = produced.get(i);
                Event parsed = NativeEventJson.parse(feed.get(i).valueText(), 0, Source.kafka(topic, l.partition(), l.offset())).event();
                if (l.event() == null && l.offset() < ends.get(l.partition())
                        && (parsed == null || REPAIRED.contains(String.valueOf(parsed.data().get("customer_id"))))) {
                    replayRejects.add("replay-" + id + " " + topic + "-" + l.partition() + "@" + l.offset());
                }
            }
            replayRejects.sort(null);
            assertThat(List.of(job.state(), job.eventsRejected())).as(String.valueOf(job.error()))
                    .isEqualTo(List.of(JobState.SUCCEEDED, (long) replayRejects.size()));
            assertThat(ComposeFixtures.strings(ds, "SELECT consumer_group || ' ' || topic || '-' || partition || '@' || \"offset\" "
                    + "FROM dimstream.sink_rejects WHERE entity = ? ORDER BY 1", entity)).isEqualTo(replayRejects);

            // the sink committed while the repair ran, and wrote events of the repaired keys past the repair's range
            assertThat(ComposeFixtures.strings(ds, "SELECT count(*)::text FROM dimstream.sink_batches WHERE entity = ? "
                    + "AND finished_at > ? AND finished_at < ?", entity, job.startedAt().atOffset(ZoneOffset.UTC),
                    job.finishedAt().atOffset(ZoneOffset.UTC))).isNotEqualTo(List.of("0"));
            assertThat(produced.stream().filter(l -> l.event() != null && REPAIRED.contains((String) l.event().data().get("customer_id"))
                    && l.offset() >= ends.get(l.partition()))).isNotEmpty();

            assertThat(differences(application, spec, produced, REPAIRED)).isEmpty();
            assertThat(ComposeFixtures.quarantine(ds, entity)).isEmpty();
        } finally {
            producer.shutdownNow();
        }
    }

    /**
     * How the table differs from the model of the produced events, every column but loaded_at. A row of
     * a key in {@code repaired} may carry the replay's seq of the event that starts it instead of the
     * sink's: whichever of the two paths wrote that event first after the repair cleared the key keeps
     * its seq (the other's copy is the same content); it must be the seq of that same source record
     * (a replay's: the source offset minus 2^62, as {@link ArrivalSeq} documents it).
     */
    private List<String> differences(String application, EntitySpec spec, List<FeedFixtures.Located> produced, Set<String> repaired) throws SQLException {
        List<Event> arrivals = ChangesLog.read(KAFKA.get().bootstrapServers(), ChangeTopics.name(application, spec.name()))
                .arrivals(produced.stream().map(FeedFixtures.Located::event).filter(Objects::nonNull).toList(), spec.key());
        Map<Source, Long> sinkSeq = arrivals.stream().collect(Collectors.toMap(Event::source, Event::seq));
        List<WholeRows.Row> table = new ArrayList<>();
        for (WholeRows.Row r : WholeRows.table(ds, spec)) {
            boolean replayed = repaired.contains((String) r.row().key().get("customer_id")) && r.sourceOffset() != null
                    && Objects.equals(r.eventSeq(), r.sourceOffset() - (1L << 62));
            table.add(replayed ? r.withEventSeq(sinkSeq.get(r.source())) : r);
        }
        return WholeRows.differences(table, WholeRows.expected(spec, arrivals));
    }

    private void damage(EntitySpec spec, String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                assertThat(st.executeUpdate(sql.replace("{T}", Sql.table(spec.table())))).as(sql).isPositive();
            }
        }
    }
}
