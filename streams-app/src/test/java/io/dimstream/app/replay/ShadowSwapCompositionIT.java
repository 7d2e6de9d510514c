package io.dimstream.app.replay;

import io.dimstream.app.testing.CustomerConfigs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.Event;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
 * Features that meet in a shadow rebuild, through the real pipeline: a source that starts sending a
 * field while running ({@code schema-evolution: lenient}, {@code new-columns: tracked}: the column is
 * added last to the live table, while a rebuild's shadow has it among the tracked columns, before
 * {@code last_login}), a view a user built on the table (what a dbt view model compiles to) with a
 * grant, and a shadow replay with its swap; then a widening of a column that arrives while a shadow
 * replay runs. The swap succeeds, the table equals the one before it row for row (every column but
 * when each row was written) and the reference model, keeps its column order, and the user's view
 * reads it.
 */
class ShadowSwapCompositionIT {

    /** The test JVM's shared broker: topics, groups and application ids here are this class's own. */
    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    private static final String FIELD = CustomerFeed.NEW_FIELD;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DataSource ds = TestPostgres.dataSource();
    private final ReplayJobs jobs = new ReplayJobs(ds);


    @Test
    void aShadowRebuildAfterAColumnWasAddedWhileRunningSwapsInTheSameTableAndTheUsersViewReadsIt(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_swc";
        String topic = "crm.customers_swc";
        String table = "dim_customer_swc";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, table, "P30D",
                "schema-evolution: lenient", "new-columns: tracked");
        EntitySpec configured = config.entity(entity).toEntitySpec();
        EntitySpec evolved = configured.withEvolvedColumn(FIELD, ColumnType.TEXT, true);
        // the source sends preferred_channel from its 300th record on
        List<CustomerFeed.FeedRecord> feed = withoutOldResends(new CustomerFeed(23, 40, T0, 300).next(900), 300);
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "shadow-swap-composition-it", 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 200, Duration.ZERO));

        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<ReplayFixtures.Produced> produced = new ArrayList<>(ReplayFixtures.produce(kafka.bootstrapServers(), topic, evolved,
                    feed.subList(0, 600)));
            awaitModel(configured, evolved, produced);
            assertThat(EvolvedColumns.withCatalog(ds, configured)).isEqualTo(evolved);
            List<String> columns = columns(table);
            assertThat(columns.subList(columns.size() - 2, columns.size())).as("added while running: last")
                    .isEqualTo(List.of("end_known_from", FIELD));
            exec("CREATE SCHEMA analytics_swc", "CREATE VIEW analytics_swc.v_hist AS SELECT * FROM " + table,
                    "GRANT SELECT ON " + table + " TO PUBLIC");
            List<String> before = rowsButWhenWritten(table);

            long job = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.SHADOW, "alice");
            ReplayJob done = awaitFinished(job);

            assertThat(List.of(done.state(), String.valueOf(done.error()))).isEqualTo(List.of(JobState.SUCCEEDED, "null"));
            assertThat(rowsButWhenWritten(table)).isEqualTo(before);
            assertThat(columns(table)).isEqualTo(columns);
            assertThat(ReplayFixtures.strings(ds, "SELECT to_jsonb(v)::text FROM analytics_swc.v_hist v ORDER BY customer_id, valid_from"))
                    .isEqualTo(ReplayFixtures.wholeRows(ds, table));
            assertThat(ReplayFixtures.strings(ds, "SELECT DISTINCT d.refobjid::regclass::text FROM pg_depend d JOIN pg_rewrite r "
                    + "ON r.oid = d.objid WHERE r.ev_class = 'analytics_swc.v_hist'::regclass AND d.refclassid = 'pg_class'::regclass "
                    + "AND d.refobjid <> r.ev_class")).isEqualTo(List.of(table));
            assertThat(ReplayFixtures.strings(ds, "SELECT has_table_privilege('public', '" + table + "', 'SELECT')::text"))
                    .isEqualTo(List.of("true"));

            // the pipeline writes on into it, and the view shows that too
            produced.addAll(ReplayFixtures.produce(kafka.bootstrapServers(), topic, evolved, feed.subList(600, feed.size())));
            awaitModel(configured, evolved, renumbered(produced));
            assertThat(ReplayFixtures.strings(ds, "SELECT to_jsonb(v)::text FROM analytics_swc.v_hist v ORDER BY customer_id, valid_from"))
                    .isEqualTo(ReplayFixtures.wholeRows(ds, table));
        }
    }

    @Test
    void aWideningThatArrivesWhileAShadowReplayRunsReachesTheSwappedInTable(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String entity = "customer_swd";
        String topic = "crm.customers_swd";
        String table = "dim_customer_swd";
        kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
        DimstreamConfig config = CustomerConfigs.config(kafka.bootstrapServers(), entity, topic, table, "P30D",
                "schema-evolution: lenient", "new-columns: tracked");
        EntitySpec configured = config.entity(entity).toEntitySpec();
        EntitySpec evolved = configured.withEvolvedColumn(FIELD, ColumnType.TEXT, true);
        EntitySpec widened = evolved.withColumnType("last_login", TypeWidening.ColumnDef.of(ColumnType.NUMERIC));
        List<CustomerFeed.FeedRecord> feed = withoutOldResends(new CustomerFeed(29, 40, T0, 200).next(600), 200);
        // a slow replay (batches of 10, 150 ms apart: 60 of them): the widening arrives while it runs
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "shadow-swap-widening-it", 3, Duration.ofHours(1))
                .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 10, Duration.ofMillis(150)));

        try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry())) {
            List<ReplayFixtures.Produced> produced = new ArrayList<>(ReplayFixtures.produce(kafka.bootstrapServers(), topic, widened, feed));
            awaitModel(configured, evolved, produced);
            exec("CREATE VIEW " + table + "_names AS SELECT customer_id, full_name, valid_from FROM " + table);

            long job = jobs.submit(entity, topic, ReplaySource.earliest(), ReplayTarget.SHADOW, "alice");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                    .until(() -> jobs.find(job).orElseThrow().eventsRead() > 0);
            // the source sends a last_login beyond bigint: the live sink widens the column to numeric
            CustomerFeed.FeedRecord wide = beyondBigint(feed);
            produced.addAll(ReplayFixtures.produce(kafka.bootstrapServers(), topic, widened, List.of(wide)));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> ReplayFixtures.strings(ds,
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '" + table + "'::regclass "
                            + "AND attname = 'last_login'").equals(List.of("numeric")));
            assertThat(jobs.find(job).orElseThrow().state()).as("the widening arrived while the replay ran").isEqualTo(JobState.RUNNING);
            ReplayJob done = awaitFinished(job);

            assertThat(List.of(done.state(), String.valueOf(done.error()))).isEqualTo(List.of(JobState.SUCCEEDED, "null"));
            List<ReplayFixtures.Produced> all = renumbered(produced);
            assertThat(EntityTableReader.rows(ds, EvolvedColumns.withCatalog(ds, configured)))
                    .isEqualTo(new ReferenceModel(widened).rows(ReplayFixtures.events(all)));
            assertThat(ReplayFixtures.strings(ds, "SELECT last_login::text FROM " + table + "_current WHERE customer_id = '"
                    + JSON.readTree(wide.valueText()).get("data").get("customer_id").asText() + "'")).isEqualTo(List.of("100000000000000000000"));
            assertThat(ReplayFixtures.strings(ds, "SELECT concat_ws(' ', customer_id, full_name, valid_from) FROM " + table + "_names ORDER BY 1"))
                    .isEqualTo(ReplayFixtures.strings(ds, "SELECT concat_ws(' ', customer_id, full_name, valid_from) FROM " + table + " ORDER BY 1"));
        }
    }

    // ---- helpers --------------------------------------------------------------------------

    /** Waits until the table (read with the catalog's columns, which must be {@code expected}'s) equals the model of the events. */
    private void awaitModel(EntitySpec configured, EntitySpec expected, List<ReplayFixtures.Produced> produced) {
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            EntitySpec now = EvolvedColumns.withCatalog(ds, configured);
            assertThat(now.columns().keySet()).isEqualTo(expected.columns().keySet());
            assertThat(EntityTableReader.rows(ds, now)).isEqualTo(new ReferenceModel(now).rows(ReplayFixtures.events(produced)));
        });
    }

    private ReplayJob awaitFinished(long id) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> jobs.find(id).orElseThrow(), j -> j.state().finished());
    }

    /** Records produced in several calls, their events' seq the rank over all of them (ReplayFixtures.produce numbers each call from 1). */
    private static List<ReplayFixtures.Produced> renumbered(List<ReplayFixtures.Produced> produced) {
        List<ReplayFixtures.Produced> out = new ArrayList<>();
        for (int i = 0; i < produced.size(); i++) {
            ReplayFixtures.Produced p = produced.get(i);
            out.add(p.event() == null ? p : new ReplayFixtures.Produced(p.partition(), p.offset(), new Event(
                    p.event().op(), p.event().eventTime(), p.event().data(), i + 1, p.event().source(), null)));
        }
        return out;
    }

    /**
     * The feed without its exact re-sends, from {@code from} on, of records sent before the new
     * field: the live path stamps such a re-send's offset as its version's lineage (source_offset),
     * where a replay keeps the first arrival's, as the duplicate rule says (a discrepancy of the live
     * path with schema evolution, reported apart; records re-sent before the column leave the lineage
     * alone). Every other record stays, the other duplicates, late events and deletes included.
     */
    private static List<CustomerFeed.FeedRecord> withoutOldResends(List<CustomerFeed.FeedRecord> feed, int from) {
        List<CustomerFeed.FeedRecord> out = new ArrayList<>();
        for (int i = 0; i < feed.size(); i++) {
            CustomerFeed.FeedRecord r = feed.get(i);
            if (i < from || !r.kind().equals("duplicate") || r.value() == null || r.valueText().contains("\"" + FIELD + "\"")) {
                out.add(r);
            }
        }
        return out;
    }

    /** The last upsert of the feed again, a day after the feed's end, its last_login beyond bigint. */
    private static CustomerFeed.FeedRecord beyondBigint(List<CustomerFeed.FeedRecord> feed) throws Exception {
        for (int i = feed.size() - 1; i >= 0; i--) {
            CustomerFeed.FeedRecord r = feed.get(i);
            if (r.value() == null || !r.valueText().contains("\"upsert\"") || !r.kind().contains("change") && !r.kind().equals("create")) {
                continue;
            }
            ObjectNode v = (ObjectNode) JSON.readTree(r.valueText());
            v.put("event_time", Instant.parse(v.get("event_time").asText()).plus(Duration.ofDays(30)).toString());
            ((ObjectNode) v.get("data")).put("last_login", new BigDecimal("100000000000000000000"));
            return new CustomerFeed.FeedRecord(r.key(), JSON.writeValueAsBytes(v), "type-1 change");
        }
        throw new IllegalStateException("no upsert in the feed");
    }

    /**
     * Every column of every row but when it was written (loaded_at; event_seq: a rebuilt row's is the replay's arrival order;
     * known_from, end_known_from: a swapped-in row that differs is learned at the swap).
     */
    private List<String> rowsButWhenWritten(String table) throws SQLException {
        return ReplayFixtures.strings(ds, "SELECT (to_jsonb(t) - 'loaded_at' - 'event_seq' - 'known_from' - 'end_known_from')::text FROM " + table
                + " t ORDER BY customer_id, valid_from");
    }

    private List<String> columns(String table) throws SQLException {
        return ReplayFixtures.strings(ds, "SELECT attname::text FROM pg_attribute WHERE attrelid = '" + table + "'::regclass "
                + "AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
    }

    private void exec(String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
