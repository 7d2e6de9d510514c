package io.dimstream.app.replay;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays run while the streaming pipeline keeps writing the same table: a shadow rebuild (swapped
 * in while records still arrive) and a live replay (serialized with the sink's batches) lose
 * nothing and double nothing: the table ends equal to the reference model of every event.
 */
class ReplayWhileStreamingIT {

    /** The test JVM's shared broker: topics, groups and application ids here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    @Test
    void shadowSwapAndLiveReplayBesideTheRunningSinkEndAsTheReferenceModel(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_ws";
        String topic = "crm.customers_ws";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, "dim_customer_ws", "P30D");
        EntitySpec spec = config.entity(entity).toEntitySpec();
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(11, 40, Instant.parse("2025-08-01T00:00:00Z")).next(2000);
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "replay-streaming-it", 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 100, Duration.ofMillis(20)));

        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<ReplayFixtures.Produced> produced = new ArrayList<>(
                    ReplayFixtures.produce(kafka.bootstrapServers(), topic, spec, feed.subList(0, 1000)));
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(modelEvents(produced))));

            long shadow = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.SHADOW, "alice");
            long live = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "bob");
            // records keep arriving while both jobs run, and after
            for (int from = 1000; from < 2000; from += 50) {
                produced.addAll(ReplayFixtures.produce(kafka.bootstrapServers(), topic, spec, feed.subList(from, from + 50)));
                Thread.sleep(100);
            }
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                    .until(() -> jobs.find(live).orElseThrow().state().finished());
            assertThat(List.of(jobs.find(shadow).orElseThrow().state(), jobs.find(live).orElseThrow().state()))
                    .isEqualTo(List.of(JobState.SUCCEEDED, JobState.SUCCEEDED));

            List<Event> all = modelEvents(produced);
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(all)));
            assertThat(ReplayFixtures.strings(ds, "SELECT count(*)::text FROM dim_customer_ws_current"))
                    .isEqualTo(ReplayFixtures.strings(ds, "SELECT count(*)::text FROM dim_customer_ws WHERE is_current"));
        }
    }

    /** The valid events in produce order; seq = the produce rank (ReplayFixtures.produce numbers each call from 1). */
    private static List<Event> modelEvents(List<ReplayFixtures.Produced> produced) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < produced.size(); i++) {
            Event e = produced.get(i).event();
            if (e != null) {
                out.add(new Event(e.op(), e.eventTime(), e.data(), i + 1, e.source(), null));
            }
        }
        return out;
    }
}
