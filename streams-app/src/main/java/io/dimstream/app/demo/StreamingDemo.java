package io.dimstream.app.demo;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.TableSummary;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sink.SinkBatches;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The streaming demo: the whole pipeline on embedded parts, fed by {@link CustomerFeed}.
 * Produces a first burst of events, waits until the table has caught up, prints what happened
 * and where to look; then (unless told to exit) keeps producing a trickle until stopped.
 *
 * <p>Half-way through the burst the source starts sending a new field ({@link CustomerFeed#NEW_FIELD}):
 * the entity, configured {@code schema-evolution: lenient} with {@code new-columns: tracked}, gets it
 * as a column while running, and the summary says when and from which record, and how many versions
 * hold a value.
 */
public final class StreamingDemo {

    /** The feed's seed: the same burst, so the same table, on every run. */
    public static final long SEED = 2025;
    /** Customers the feed draws from. */
    public static final int CUSTOMERS = 50;
    /** The feed's first event time. */
    public static final Instant START = Instant.parse("2025-08-01T00:00:00Z");
    /** Partitions of the demo's topics. */
    public static final int PARTITIONS = 3;

    private final DimstreamConfig config;
    private final Path dataDir;
    private final MeterRegistry registry;

    public StreamingDemo(DimstreamConfig config, Path dataDir, MeterRegistry registry) {
        this.config = config;
        this.dataDir = dataDir;
        this.registry = registry;
    }

    /** Runs the burst; returns the running pipeline (the caller closes it) and the feed to go on with. */
    public Running start(PrintWriter out, int events) throws InterruptedException {
        out.println("starting an embedded Kafka broker, an embedded PostgreSQL and the pipeline ...");
        out.flush();
        Instant startedAt = Instant.now();
        DimstreamService service = DimstreamService.start(config, new ServiceOptions(dataDir, "dimstream-demo", PARTITIONS, Duration.ofHours(1)), registry);
        String topic = service.pipelines().get(0).sourceTopic();
        CustomerFeed feed = feed(events);
        KafkaProducer<byte[], byte[]> producer = producer(service.bootstrapServers());
        out.println("producing " + events + " generated customer events to " + topic + " ...");
        out.flush();
        produce(producer, topic, feed.next(events));
        if (!service.awaitCaughtUp(events, Duration.ofMinutes(5))) {
            out.println("warning: the pipeline had not caught up after 5 minutes");
        }
        return new Running(service, producer, feed, topic, startedAt);
    }

    /** The demo's feed for a burst of {@code events}: the source starts sending {@link CustomerFeed#NEW_FIELD} half-way through. */
    public static CustomerFeed feed(int events) {
        return new CustomerFeed(SEED, CUSTOMERS, START, events / 2);
    }

    /**
     * The demo after its first burst.
     *
     * @param startedAt when the demo started: the sink's batches since then are the burst's
     */
    public record Running(DimstreamService service, KafkaProducer<byte[], byte[]> producer, CustomerFeed feed, String topic,
                          Instant startedAt) implements AutoCloseable {

        /** Produces {@code perSecond} events a second until interrupted. */
        public void trickle(int perSecond) throws InterruptedException {
            while (!Thread.currentThread().isInterrupted()) {
                produce(producer, topic, feed.next(perSecond));
                Thread.sleep(1000);
            }
        }

        @Override
        public void close() {
            producer.close(Duration.ofSeconds(5));
            service.close();
        }
    }

    /**
     * What the burst did: its events by class as the sink applied them (the admin dashboard's
     * figures) and those that never reached the sink (the topology's), the table's shape, one
     * key's history, where to look.
     */
    public void report(PrintWriter out, Running running, int metricsPort) throws SQLException {
        EntitySpec customer = config.entities().get(0).toEntitySpec();
        DataSource ds = running.service().database().dataSource();
        out.println("events by class, as the sink applied them to PostgreSQL (the admin dashboard's figures): "
                + SinkBatches.summary(ds, customer.name(), running.startedAt()).byClass());
        out.println("events that never reached the sink, as the topology counted them (Prometheus dimstream_events_total): "
                + neverReachedTheSink());
        TableSummary summary = new TableSummary(ds);
        TableSummary.Shape shape = summary.shape(customer);
        out.printf(Locale.ROOT, "table %s: %d versions, %d current rows, %d deleted keys%n", customer.table(), shape.versions(),
                shape.currentRows(), shape.deletedKeys());
        List<EvolvedColumns.Column> catalog = EvolvedColumns.list(ds, customer.name());
        customer = EvolvedColumns.merge(customer, catalog);
        reportSchemaChange(out, running, customer, catalog, summary);
        List<VersionRow> history = new HistoryQueries(ds).history(customer, List.of("C0001"));
        out.println("history of C0001:");
        for (VersionRow v : history) {
            out.printf(Locale.ROOT, "  %s .. %-27s %-8s %s%n", v.validFrom(), v.validTo() == null ? "" : v.validTo(),
                    v.deleted() ? "deleted" : v.current() ? "current" : "", v.attributes());
        }
        out.println("where to look:");
        out.println("  PostgreSQL: " + running.service().database().jdbcUrl() + "  (tables " + customer.table() + ", "
                + customer.currentView() + ", function " + customer.asOfFunction() + "(timestamptz))");
        out.println("  Kafka: " + running.service().bootstrapServers() + "  topics " + running.topic() + " (source), "
                + running.service().pipelines().get(0).dlqTopic() + " (bad records), " + running.service().pipelines().get(0).changesTopic()
                + " (changes)");
        if (metricsPort >= 0) {
            out.println("  metrics: http://localhost:" + metricsPort + "/metrics  health: http://localhost:" + metricsPort
                    + "/health/ready");
        }
        out.flush();
    }

    /**
     * The topology's counts of the source records it did not pass to the sink as events: exact
     * duplicates it dropped, records it sent to the DLQ, and any other class that is not a
     * {@link ChangeClass} (skipped, control, truncate, message). The change classes are left out:
     * the sink judges those events again against PostgreSQL, and its classes are the ones the
     * summary and the dashboard show.
     */
    private Map<String, Long> neverReachedTheSink() {
        Set<String> changeClasses = new HashSet<>();
        for (ChangeClass c : ChangeClass.values()) {
            changeClasses.add(c.name().toLowerCase(Locale.ROOT));
        }
        Map<String, Long> byClass = new TreeMap<>();
        for (Counter c : registry.find("dimstream.events").counters()) {
            String cls = c.getId().getTag("class");
            if (!changeClasses.contains(cls)) {
                byClass.merge(cls, (long) c.count(), Long::sum);
            }
        }
        return byClass;
    }

    /**
     * The schema change of the burst: which field the source started sending at which event, and
     * whether the column was added (from the catalog: when, its type and role, the record that first
     * carried it) and how many versions hold a value.
     */
    private static void reportSchemaChange(PrintWriter out, Running running, EntitySpec customer, List<EvolvedColumns.Column> catalog,
                                           TableSummary summary) throws SQLException {
        int from = running.feed().newFieldFrom();
        if (from == CustomerFeed.NEVER) {
            return;
        }
        String field = CustomerFeed.NEW_FIELD;
        out.printf(Locale.ROOT, "schema change: from event %d on, the source also sends %s (NULL for customers without one)%n",
                from + 1, field);
        Optional<EvolvedColumns.Column> added = catalog.stream().filter(c -> c.column().equals(field)).findFirst();
        if (added.isEmpty()) {
            out.println("  no record has given " + field + " a value yet: no column added");
            return;
        }
        EvolvedColumns.Column c = added.get();
        out.printf(Locale.ROOT, "  column %s %s (%s) added to %s while running at %s, first carried by %s%n", c.column(),
                c.type().sqlName(), c.role(), customer.table(), c.addedAt(), c.firstSource());
        out.printf(Locale.ROOT, "  %d versions hold a %s; a customer whose %s is NULL got no version for it%n",
                summary.versionsWithValue(customer, field), field, field);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void produce(KafkaProducer<byte[], byte[]> producer, String topic, List<CustomerFeed.FeedRecord> records) {
        for (CustomerFeed.FeedRecord r : records) {
            producer.send(new ProducerRecord<>(topic, r.key(), r.value()));
        }
        producer.flush();
    }
}
