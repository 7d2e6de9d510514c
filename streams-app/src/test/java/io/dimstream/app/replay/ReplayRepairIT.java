package io.dimstream.app.replay;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Repair of some keys (a replay restricted to keys, into the live table) against a real broker and
 * PostgreSQL: a table written from the whole topic is damaged by hand on a few keys (rows deleted,
 * values changed); the repair restores exactly the listed keys (every column but {@code loaded_at},
 * lineage and surrogate keys included, and equal to the reference model) and leaves every other row
 * as it was, damaged ones included, {@code loaded_at} included. Also: an event the live path
 * quarantined stays quarantined once (the same row, whole) after a replay re-reads it.
 */
class ReplayRepairIT {

    /** The test JVM's shared broker: topics and tables here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final AtomicInteger N = new AtomicInteger();
    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    private record Setup(EntityPipeline pipeline, EntitySpec spec, String topic, List<ReplayFixtures.Produced> produced) {
        List<Event> events() {
            return ReplayFixtures.events(produced);
        }
    }

    /** A fresh topic (3 partitions) and table holding the reference model of the whole feed, written by the writer as the sink would. */
    private Setup setup(int records) throws Exception {
        int n = N.incrementAndGet();
        String entity = "repair_" + n;
        String topic = "crm.replay-repair-it." + entity;
        String bootstrap = KAFKA.get().bootstrapServers();
        KAFKA.get().createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(bootstrap, entity, topic, "dim_" + entity, "unlimited");
        EntityPipeline pipeline = ReplayFixtures.pipeline(config, entity);
        EntityTables.ensure(ds, pipeline.entity());
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(400 + n, 30, Instant.parse("2025-08-01T00:00:00Z")).next(records);
        Setup s = new Setup(pipeline, pipeline.entity(), topic, ReplayFixtures.produce(bootstrap, topic, pipeline.entity(), feed));
        // as the live path writes it: a producer's exact repeat is dropped by the topology's dedup (the first arrival's lineage stays)
        new Scd2Writer(ds).apply(s.spec(), ReplayPoll.withoutExactDuplicates(s.events(), new HashMap<>()));
        assertThat(EntityTableReader.rows(ds, s.spec())).isEqualTo(new ReferenceModel(s.spec()).rows(s.events()));
        return s;
    }

    /**
     * Every column of every row of the keys {@code which} selects, as JSON; or all but when and in which
     * arrival each row was written (loaded_at, event_seq: a repair's rows carry a replay's seq; known_from,
     * end_known_from: a repair is a new belief, learned when it ran).
     */
    private List<String> rows(Setup s, Predicate<String> which, boolean withLoadedAt) throws SQLException {
        String json = withLoadedAt ? "to_jsonb(t)" : "to_jsonb(t) - " + Sql.literal(s.spec().system().loadedAt()) + " - "
                + Sql.literal(s.spec().system().eventSeq()) + " - " + Sql.literal(s.spec().system().knownFrom()) + " - "
                + Sql.literal(s.spec().system().endKnownFrom());
        return ReplayFixtures.strings(ds, "SELECT customer_id || ' ' || (" + json + ")::text FROM " + ReplayFixtures.table(s.spec())
                + " t ORDER BY customer_id, valid_from").stream().filter(r -> which.test(r.substring(0, r.indexOf(' ')))).toList();
    }

    private void damage(Setup s, String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                assertThat(st.executeUpdate(sql.replace("{T}", ReplayFixtures.table(s.spec())))).as(sql).isPositive();
            }
        }
    }

    private ReplayJob repair(Setup s, ReplayKeys keys) throws Exception {
        ReplaySettings settings = new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(30), 100, Duration.ZERO);
        try (ReplayWorker w = new ReplayWorker("w-repair", List.of(s.pipeline()), ds, KAFKA.get().bootstrapServers(), settings).start()) {
            long id = jobs.submit(s.spec().name(), s.topic(), ReplaySource.earliest(), ReplayTarget.LIVE, keys, "alice");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                    .until(() -> jobs.find(id).orElseThrow().state().finished());
            ReplayJob job = jobs.find(id).orElseThrow();
            assertThat(job.state()).as(String.valueOf(job.error())).isEqualTo(JobState.SUCCEEDED);
            // every record of the range was read; the other keys' were skipped
            assertThat(List.of(job.eventsTotal(), job.eventsRead())).isEqualTo(List.of((long) s.produced().size(), (long) s.produced().size()));
            assertThat(jobs.keys(id)).contains(keys);
            return job;
        }
    }

    private List<ExpectedRow> model(Setup s, Set<String> ids) {
        return new ReferenceModel(s.spec()).rows(s.events()).stream().filter(r -> ids.contains((String) r.key().get("customer_id"))).toList();
    }

    private List<ExpectedRow> table(Setup s, Set<String> ids) throws SQLException {
        return EntityTableReader.rows(ds, s.spec()).stream().filter(r -> ids.contains((String) r.key().get("customer_id"))).toList();
    }

    @Test
    void repairingListedKeysRestoresExactlyThoseAndLeavesEveryOtherRowAsItWas() throws Exception {
        Setup s = setup(900);
        Set<String> repaired = Set.of("C0003", "C0007", "C0011");
        List<String> intact = rows(s, repaired::contains, false);
        assertThat(intact.stream().map(r -> r.substring(0, 5)).distinct().sorted().toList()).isEqualTo(List.of("C0003", "C0007", "C0011"));
        assertThat(intact.stream().filter(r -> r.startsWith("C0007")).count()).isGreaterThan(1);

        damage(s, "DELETE FROM {T} WHERE customer_id = 'C0003'",                                         // a key gone
                "UPDATE {T} SET city = 'Nowhere', email = 'x@y' WHERE customer_id = 'C0007'",            // values changed
                "DELETE FROM {T} WHERE customer_id = 'C0011' AND valid_to IS NULL",                       // its open version gone
                "UPDATE {T} SET city = 'Damaged too' WHERE customer_id = 'C0020'");                      // damaged, not listed
        List<String> othersBefore = rows(s, id -> !repaired.contains(id), true);
        assertThat(table(s, repaired)).isNotEqualTo(model(s, repaired));

        repair(s, ReplayKeys.parseKeys("--keys", "C0003, C0007,C0011", s.spec()));

        assertThat(rows(s, repaired::contains, false)).isEqualTo(intact);
        assertThat(table(s, repaired)).isEqualTo(model(s, repaired));
        assertThat(rows(s, id -> !repaired.contains(id), true)).isEqualTo(othersBefore);
        assertThat(othersBefore).anyMatch(r -> r.startsWith("C0020") && r.contains("\"city\": \"Damaged too\""));
    }

    @Test
    void repairingAKeyPrefixRestoresTheKeysStartingWithItOnly() throws Exception {
        Setup s = setup(600);
        Predicate<String> prefixed = id -> id.startsWith("C001");
        List<String> intact = rows(s, prefixed, false);
        damage(s, "DELETE FROM {T} WHERE customer_id IN ('C0012', 'C0015')",
                "UPDATE {T} SET loyalty_tier = 'broken' WHERE customer_id = 'C0018'",
                "DELETE FROM {T} WHERE customer_id = 'C0025'");                                          // not under the prefix
        List<String> othersBefore = rows(s, prefixed.negate(), true);

        repair(s, ReplayKeys.parsePrefix("--key-prefix", "C001", s.spec()));

        assertThat(rows(s, prefixed, false)).isEqualTo(intact);
        assertThat(rows(s, prefixed.negate(), true)).isEqualTo(othersBefore);
        assertThat(othersBefore).noneMatch(r -> r.startsWith("C0025"));
    }

    @Test
    void anEventTheLivePathQuarantinedIsStillQuarantinedOnceAfterAReplayReadsItAgain() throws Exception {
        readAgainAfterTheLivePathQuarantinedIt(false);
    }

    /**
     * A repair places its keys' events with the lateness horizon lifted (the live sink's newer events
     * go on meanwhile), and leaves out what the live path quarantined: it makes the live path's
     * decision again instead of applying the event.
     */
    @Test
    void aRepairLeavesOutAnEventTheLivePathQuarantined() throws Exception {
        readAgainAfterTheLivePathQuarantinedIt(true);
    }

    private void readAgainAfterTheLivePathQuarantinedIt(boolean repair) throws Exception {
        int n = N.incrementAndGet();
        String entity = "requarantine_" + n;
        String topic = "crm.replay-repair-it." + entity;
        String bootstrap = KAFKA.get().bootstrapServers();
        KAFKA.get().createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(bootstrap, entity, topic, "dim_" + entity, "P1D");
        EntityPipeline pipeline = ReplayFixtures.pipeline(config, entity);
        EntityTables.ensure(ds, pipeline.entity());
        // a newer event of K1, then one ten days older: beyond the one-day horizon
        List<CustomerFeed.FeedRecord> feed = List.of(record("K1", "2025-08-11T00:00:00Z", "new@x.io"), record("K1", "2025-08-01T00:00:00Z", "old@x.io"));
        Setup s = new Setup(pipeline, pipeline.entity(), topic, ReplayFixtures.produce(bootstrap, topic, pipeline.entity(), feed));
        // the live path, one batch each: the old event arrives after the newer one is remembered
        assertThat(new Scd2Writer(ds).apply(s.spec(), s.events().subList(0, 1)).quarantined()).isZero();
        assertThat(new Scd2Writer(ds).apply(s.spec(), s.events().subList(1, 2)).quarantined()).isEqualTo(1);
        String quarantine = "SELECT to_jsonb(q)::text FROM dimstream.quarantine q WHERE entity = '" + entity + "' ORDER BY id";
        List<String> before = ReplayFixtures.strings(ds, quarantine);
        assertThat(before).hasSize(1);
        assertThat(before.get(0)).contains("\"status\": \"pending\"").contains("\"source_offset\": 1").contains("old@x.io");
        // a repair rebuilds the key's rows: they carry the replay's arrival order and a new loaded_at
        List<String> table = rows(s, id -> true, !repair);

        ReplaySettings settings = new ReplaySettings(Duration.ofMillis(100), Duration.ofSeconds(30), 100, Duration.ZERO);
        try (ReplayWorker w = new ReplayWorker("w-requarantine", List.of(pipeline), ds, bootstrap, settings).start()) {
            long id = repair ? jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE,
                    ReplayKeys.parseKeys("--keys", "K1", pipeline.entity()), "alice")
                    : jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                    .until(() -> jobs.find(id).orElseThrow().state().finished());
            assertThat(jobs.find(id).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        }

        assertThat(ReplayFixtures.strings(ds, quarantine)).isEqualTo(before);   // the whole row: id, seq, quarantined_at included
        assertThat(rows(s, id -> true, !repair)).isEqualTo(table);
    }

    private static CustomerFeed.FeedRecord record(String id, String time, String email) {
        String v = "{\"op\":\"upsert\",\"event_time\":\"" + time + "\",\"data\":{\"customer_id\":\"" + id + "\",\"email\":\"" + email
                + "\",\"full_name\":\"A\",\"country\":\"NO\",\"city\":\"Oslo\",\"loyalty_tier\":\"gold\",\"last_login\":1}}";
        return new CustomerFeed.FeedRecord(id.getBytes(java.nio.charset.StandardCharsets.UTF_8), v.getBytes(java.nio.charset.StandardCharsets.UTF_8), "upsert");
    }
}
