package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.demo.StreamingDemo;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sink.SinkBatches;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream demo --exit}: an embedded broker and PostgreSQL, the pipeline, a generated
 * burst of 300 events whose second half carries a field the config does not declare
 * ({@link CustomerFeed#NEW_FIELD}); the printed summary is compared whole (addresses, ports, the
 * time the column was added, the record that first carried it and the writer's classes masked),
 * then the demo's PostgreSQL is started again on its data folder, the writer's classes are compared
 * with the sink's batches there, and the table is compared whole with the reference model of the
 * same feed. The feed is seeded and a key's events keep their order through the pipeline, so the
 * topology's counts and the table are the same on every run.
 */
class DemoStreamingIT {

    private static final String TOPIC = "crm.customers";
    private static final int EVENTS = 300;
    private static final String FIELD = CustomerFeed.NEW_FIELD;
    private static final String APPLIED_LINE = "events by class, as the sink applied them to PostgreSQL (the admin dashboard's figures): ";
    /** The writer's classes: how a late event is judged within a batch depends on the batching, checked against PostgreSQL below. */
    private static final Pattern APPLIED = Pattern.compile(Pattern.quote(APPLIED_LINE) + "(\\{.*})$", Pattern.MULTILINE);
    private static final Pattern ADDED = Pattern.compile(
            "column " + FIELD + " text \\(tracked\\) added to dim_customer while running at (\\S+), first carried by (\\S+)\n");

    @Test
    void theStreamingDemoAddsTheNewSourceFieldAsAColumnWhileRunningAndSaysWhereToLook(@TempDir Path dir) throws Exception {
        Instant before = Instant.now();
        CliRun run = CliRun.of("demo", "--events", String.valueOf(EVENTS), "--exit", "--metrics-port", "-1",
                "--data-dir", dir.toString());
        Instant after = Instant.now();

        assertThat(run.exitCode()).as(run.err()).isZero();
        EntitySpec configured = demoEntity();
        EntitySpec evolved = configured.withEvolvedColumn(FIELD, ColumnType.TEXT, true);
        List<CustomerFeed.FeedRecord> feed = StreamingDemo.feed(EVENTS).next(EVENTS);
        List<ExpectedRow> model = new ReferenceModel(evolved).rows(validEvents(evolved, feed));
        long versions = model.size();
        long current = model.stream().filter(ExpectedRow::current).count();
        long deletedKeys = model.stream().filter(r -> r.deleted() && r.validTo() == null).count();
        long withValue = model.stream().filter(r -> r.attrs().get(FIELD) != null).count();

        Matcher added = ADDED.matcher(run.out());
        assertThat(added.find()).as(run.out()).isTrue();
        Instant addedAt = Instant.parse(added.group(1));
        String firstSource = added.group(2);
        Matcher applied = APPLIED.matcher(run.out());
        assertThat(applied.find()).as(run.out()).isTrue();
        String out = run.out()
                .replace(added.group(1), "<time>").replace(firstSource, "<record>")
                .replace(applied.group(0), APPLIED_LINE + "<classes>")
                .replaceAll("jdbc:postgresql://localhost:\\d+/", "jdbc:postgresql://localhost:<port>/")
                .replaceAll("127\\.0\\.0\\.1:\\d+", "127.0.0.1:<port>");
        assertThat(out).isEqualTo("""
                starting an embedded Kafka broker, an embedded PostgreSQL and the pipeline ...
                producing 300 generated customer events to crm.customers ...
                events by class, as the sink applied them to PostgreSQL (the admin dashboard's figures): <classes>
                events that never reached the sink, as the topology counted them (Prometheus dimstream_events_total): {dlq=6, duplicate=3}
                table dim_customer: %d versions, %d current rows, %d deleted keys
                schema change: from event 151 on, the source also sends preferred_channel (NULL for customers without one)
                  column preferred_channel text (tracked) added to dim_customer while running at <time>, first carried by <record>
                  %d versions hold a preferred_channel; a customer whose preferred_channel is NULL got no version for it
                history of C0001:
                  2025-08-01T04:27:11Z .. 2025-08-01T05:34:01Z                 {email=omar.haddad@example.com, full_name=Omar Haddad, country=JP, city=Osaka, loyalty_tier=bronze, preferred_channel=null, last_login=1754022431}
                  2025-08-01T05:34:01Z .. 2025-08-01T07:32:30Z        deleted  {email=omar.haddad@example.com, full_name=Omar Haddad, country=JP, city=Osaka, loyalty_tier=bronze, preferred_channel=null, last_login=1754022431}
                  2025-08-01T07:32:30Z .. 2025-08-01T08:04:28Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=DE, city=Berlin, loyalty_tier=silver, preferred_channel=null, last_login=1754033550}
                  2025-08-01T08:04:28Z .. 2025-08-01T16:17:14Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=silver, preferred_channel=null, last_login=1754036768}
                  2025-08-01T16:17:14Z .. 2025-08-01T19:09:57Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=platinum, preferred_channel=null, last_login=1754066782}
                  2025-08-01T19:09:57Z .. 2025-08-01T21:29:39Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=gold, preferred_channel=null, last_login=1754075397}
                  2025-08-01T21:29:39Z .. 2025-08-02T00:52:01Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=bronze, preferred_channel=null, last_login=1754083779}
                  2025-08-02T00:52:01Z ..                             current  {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=US, city=Austin, loyalty_tier=bronze, preferred_channel=null, last_login=1754095921}
                where to look:
                  PostgreSQL: jdbc:postgresql://localhost:<port>/postgres?user=postgres  (tables dim_customer, dim_customer_current, function dim_customer_as_of(timestamptz))
                  Kafka: 127.0.0.1:<port>  topics crm.customers (source), dimstream-demo.customer.dlq (bad records), dimstream-demo.customer.changes (changes)
                """.formatted(versions, current, deletedKeys, withValue));
        assertThat(withValue).as("versions holding a value").isPositive();

        try (Databases.Handle db = Databases.embedded(dir.resolve("postgres"))) {
            List<EvolvedColumns.Column> catalog = EvolvedColumns.list(db.dataSource(), "customer");
            assertThat(catalog).extracting(c -> List.of(c.entity(), c.column(), c.type(), c.role()))
                    .containsExactly(List.of("customer", FIELD, ColumnType.TEXT, "tracked"));
            assertThat(catalog.get(0).addedAt()).isEqualTo(addedAt).isBetween(before, after);
            assertThat(catalog.get(0).firstSource()).isEqualTo(firstSource);
            assertFirstCarriedTheField(feed, firstSource);

            // the writer's classes as the sink's batches recorded them, every event that reached the sink once
            // (the 300 records less the 6 sent to the DLQ and the 3 duplicates the topology dropped)
            Map<String, Long> byClass = SinkBatches.summary(db.dataSource(), "customer", before).byClass();
            assertThat(applied.group(1)).isEqualTo(byClass.toString());
            assertThat(byClass.values().stream().mapToLong(Long::longValue).sum()).as(byClass.toString()).isEqualTo(EVENTS - 6 - 3);

            List<ExpectedRow> table = EntityTableReader.rows(db.dataSource(), EvolvedColumns.withCatalog(db.dataSource(), configured));
            assertThat(table).isEqualTo(model);
            assertThat(spuriousVersions(configured, table)).isEmpty();
        }
    }

    /** The feed as the pipeline reads it: its valid events in produce order (a key's records share a partition). */
    private static List<Event> validEvents(EntitySpec spec, List<CustomerFeed.FeedRecord> feed) {
        EventValidator validator = new EventValidator(spec);
        List<Event> valid = new ArrayList<>();
        Map<Integer, Integer> offsets = new HashMap<>();
        for (int i = 0; i < feed.size(); i++) {
            int partition = partition(feed.get(i));
            int offset = offsets.merge(partition, 1, Integer::sum) - 1;
            NativeEventJson.Parsed p = NativeEventJson.parse(feed.get(i).valueText(), i, Source.kafka(TOPIC, partition, offset));
            if (p.event() != null && validator.validate(p.event()).ok()) {
                valid.add(p.event());
            }
        }
        return valid;
    }

    /**
     * The catalog's first source ({@code topic-partition@offset}) is a record that carries the new
     * field, at or after the first record of its partition that gives it a value: the decode task of
     * a partition passes the field through from its first value on (before it, a NULL says nothing of
     * the type), and which partition's change reaches the sink first is the broker's timing.
     */
    private static void assertFirstCarriedTheField(List<CustomerFeed.FeedRecord> feed, String firstSource) {
        Matcher m = Pattern.compile(Pattern.quote(TOPIC) + "-(\\d+)@(\\d+)").matcher(firstSource);
        assertThat(m.matches()).as(firstSource).isTrue();
        int partition = Integer.parseInt(m.group(1));
        int offset = Integer.parseInt(m.group(2));
        List<CustomerFeed.FeedRecord> ofPartition = feed.stream().filter(r -> partition(r) == partition).toList();
        assertThat(offset).isLessThan(ofPartition.size());
        assertThat(ofPartition.get(offset).valueText()).as("the record at " + firstSource).contains("\"" + FIELD + "\":");
        assertThat(ofPartition.subList(0, offset + 1)).as("records of partition %d up to %d", partition, offset)
                .anyMatch(r -> r.valueText() != null && r.valueText().contains("\"" + FIELD + "\":\""));
    }

    /**
     * The versions without a value in the new column that no configured column explains: a first
     * version, a delete or a resurrection, or a change of a configured tracked column all make one;
     * a NULL new column never does.
     */
    private static List<ExpectedRow> spuriousVersions(EntitySpec configured, List<ExpectedRow> table) {
        List<ExpectedRow> spurious = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            ExpectedRow r = table.get(i);
            ExpectedRow prev = i == 0 || !table.get(i - 1).key().equals(r.key()) ? null : table.get(i - 1);
            if (r.attrs().get(FIELD) != null || prev == null || prev.deleted() != r.deleted()) {
                continue;
            }
            boolean configuredChange = configured.tracked().stream().anyMatch(c -> !Objects.equals(prev.attrs().get(c),
                    r.attrs().get(c)));
            if (!configuredChange) {
                spurious.add(r);
            }
        }
        return spurious;
    }

    /** The demo's source partition of a record: the producer's default partitioner for a keyed record. */
    private static int partition(CustomerFeed.FeedRecord r) {
        return Utils.toPositive(Utils.murmur2(r.key())) % StreamingDemo.PARTITIONS;
    }

    private static EntitySpec demoEntity() throws IOException {
        try (InputStream in = DemoStreamingIT.class.getResourceAsStream("/" + DemoCommand.CONFIG)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return DimstreamConfig.parse(text, "config " + DemoCommand.CONFIG, Map.of()).entity("customer").toEntitySpec();
        }
    }
}
