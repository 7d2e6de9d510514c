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
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running service executes admin actions kept in PostgreSQL: on a table the streaming
 * pipeline built from a generated feed, a live replay of the whole topic changes nothing (every
 * column of every row, surrogate keys, lineage and load times included); a shadow rebuild swapped
 * in equals the table it replaces (the view and the as-of function included) and the pipeline goes
 * on writing into it; the DLQ is mirrored with its reasons and a re-drive sends a record back
 * through the pipeline (where, still malformed, it lands in the DLQ again).
 */
class ReplayPipelineIT {

    /** The test JVM's shared broker: topics, groups and application ids here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);

    @Test
    void liveReplayIsANoOpShadowRebuildEqualsTheLiveTableAndDlqRoundTrips(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_rp";
        String topic = "crm.customers_rp";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, "dim_customer_rp", "P30D");
        EntitySpec spec = config.entity(entity).toEntitySpec();
        String table = ReplayFixtures.table(spec);
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(7, 40, Instant.parse("2025-08-01T00:00:00Z")).next(1200);
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "replay-pipeline-it", 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 300, Duration.ZERO));

        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<ReplayFixtures.Produced> produced = ReplayFixtures.produce(kafka.bootstrapServers(), topic, spec, feed);
            List<String> malformed = produced.stream().filter(p -> p.event() == null)
                    .map(p -> feed.get(produced.indexOf(p)).valueText()).toList();
            var expected = new ReferenceModel(spec).rows(ReplayFixtures.events(produced));
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expected));
            List<String> before = ReplayFixtures.wholeRows(ds, table);

            // 1. a replay of the whole topic into the live table changes nothing
            long live = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
            ReplayJob liveJob = awaitFinished(live);
            assertThat(liveJob.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(List.of(liveJob.eventsRead(), liveJob.eventsRejected(), liveJob.rowsChanged()))
                    .isEqualTo(List.of((long) feed.size(), (long) malformed.size(), 0L));
            assertThat(ReplayFixtures.wholeRows(ds, table)).isEqualTo(before);

            // 2. a shadow rebuild swapped in equals the live table it replaces (but for when and in which
            // arrival each row was written: loaded_at, and event_seq, a replay's seq for the rebuilt rows)
            var withKeys = EntityTableReader.withSurrogateKeys(ds, spec);
            String asOf = "2025-08-03T00:00:00Z";
            List<String> currentBefore = ReplayFixtures.strings(ds, "SELECT (to_jsonb(v) - 'loaded_at' - 'event_seq')::text FROM dim_customer_rp_current v ORDER BY customer_id");
            List<String> asOfBefore = ReplayFixtures.strings(ds, "SELECT (to_jsonb(f) - 'loaded_at' - 'event_seq')::text FROM dim_customer_rp_as_of('" + asOf + "') f ORDER BY customer_id");
            long shadow = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.SHADOW, "bob");
            ReplayJob shadowJob = awaitFinished(shadow);
            assertThat(shadowJob.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(shadowJob.detail()).startsWith("swapped in; the replaced table is kept as dim_customer_rp_replaced_" + shadow);
            assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(withKeys);
            assertThat(ReplayFixtures.strings(ds, "SELECT (to_jsonb(v) - 'loaded_at' - 'event_seq')::text FROM dim_customer_rp_current v ORDER BY customer_id"))
                    .isEqualTo(currentBefore).isNotEmpty();
            assertThat(ReplayFixtures.strings(ds, "SELECT (to_jsonb(f) - 'loaded_at' - 'event_seq')::text FROM dim_customer_rp_as_of('" + asOf + "') f ORDER BY customer_id"))
                    .isEqualTo(asOfBefore).isNotEmpty();
            assertThat(ReplayFixtures.wholeRows(ds, "dim_customer_rp_replaced_" + shadow)).isEqualTo(before);

            // the pipeline goes on writing into the swapped-in table
            List<CustomerFeed.FeedRecord> more = new CustomerFeed(7, 40, Instant.parse("2025-08-01T00:00:00Z")).next(1400)
                    .subList(1200, 1400);
            List<ReplayFixtures.Produced> producedMore = ReplayFixtures.produce(kafka.bootstrapServers(), topic, spec, more);
            List<io.dimstream.db.event.Event> all = new java.util.ArrayList<>(ReplayFixtures.events(produced));
            // the model's arrival order: the second batch after the first
            producedMore.stream().map(ReplayFixtures.Produced::event).filter(java.util.Objects::nonNull)
                    .map(e -> new io.dimstream.db.event.Event(e.op(), e.eventTime(), e.data(), e.seq() + feed.size(), e.source(), null))
                    .forEach(all::add);
            var expectedAll = new ReferenceModel(spec).rows(all);
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(expectedAll));

            // 3. the DLQ is mirrored with reasons; a re-drive goes back through the pipeline
            DlqRecords dlq = new DlqRecords(ds);
            long malformedTotal = malformed.size() + producedMore.stream().filter(p -> p.event() == null).count();
            await().atMost(Duration.ofMinutes(1)).until(() -> dlq.page(entity, null, 1000).size() == malformedTotal);
            List<DlqRecords.DlqRecord> mirrored = dlq.page(entity, null, 1000);
            assertThat(mirrored.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList())
                    .containsAll(malformed);
            assertThat(mirrored).allSatisfy(r -> {
                assertThat(r.error()).isNotBlank();
                assertThat(List.of(r.sourceTopic(), r.dlqTopic(), r.redriveState())).isEqualTo(List.of(topic, "replay-pipeline-it." + entity + ".dlq", "none"));
            });
            DlqRecords.DlqRecord one = mirrored.get(mirrored.size() - 1);
            assertThat(dlq.requestRedrive(List.of(one.id()), "carol")).containsExactly(one.id());
            await().atMost(Duration.ofMinutes(1)).until(() -> dlq.page(entity, null, 1000).size() == malformedTotal + 1);
            List<DlqRecords.DlqRecord> after = dlq.page(entity, null, 1000);
            DlqRecords.DlqRecord redriven = after.stream().filter(r -> r.id() == one.id()).findFirst().orElseThrow();
            assertThat(List.of(redriven.redriveState(), redriven.redriveRequestedBy())).isEqualTo(List.of("done", "carol"));
            DlqRecords.DlqRecord again = after.get(0);
            assertThat(again.id()).isGreaterThan(one.id());
            assertThat(List.of(again.value(), again.key(), again.error(), again.sourceTopic()))
                    .usingRecursiveComparison().isEqualTo(List.of(one.value(), one.key(), one.error(), topic));
            assertThat(again.sourceOffset()).isNotEqualTo(one.sourceOffset());
            assertThat(ReplayFixtures.strings(ds, "SELECT actor || ' ' || action || ' ' || target FROM dimstream.admin_audit "
                    + "WHERE action = 'dlq.redrive' AND target = 'dlq_records:[" + one.id() + "]'"))
                    .containsExactly("carol dlq.redrive dlq_records:[" + one.id() + "]");
        }
    }

    private ReplayJob awaitFinished(long id) throws java.sql.SQLException {
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> jobs.find(id).orElseThrow().state().finished());
        return jobs.find(id).orElseThrow();
    }
}
