package io.dimstream.app.demo;

import io.dimstream.app.pipeline.Pipeline;
import io.dimstream.app.pipeline.PipelineOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.sql.Sql;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The streaming demo: the whole pipeline on embedded parts, fed by {@link CustomerFeed}.
 * Produces a first burst of events, waits until the table has caught up, prints what happened
 * and where to look; then (unless told to exit) keeps producing a trickle until stopped.
 */
public final class StreamingDemo {

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
        Pipeline pipeline = Pipeline.start(config, new PipelineOptions(dataDir, "dimstream-demo", 3, Duration.ofHours(1)), registry);
        String topic = pipeline.pipelines().get(0).sourceTopic();
        CustomerFeed feed = new CustomerFeed(2025, 50, Instant.parse("2025-08-01T00:00:00Z"));
        KafkaProducer<byte[], byte[]> producer = producer(pipeline.bootstrapServers());
        out.println("producing " + events + " generated customer events to " + topic + " ...");
        out.flush();
        produce(producer, topic, feed.next(events));
        if (!pipeline.awaitCaughtUp(events, Duration.ofMinutes(5))) {
            out.println("warning: the pipeline had not caught up after 5 minutes");
        }
        return new Running(pipeline, producer, feed, topic);
    }

    /** The demo after its first burst. */
    public record Running(Pipeline pipeline, KafkaProducer<byte[], byte[]> producer, CustomerFeed feed, String topic)
            implements AutoCloseable {

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
            pipeline.close();
        }
    }

    /** What the burst did: events by class, the table's shape, one key's history, where to look. */
    public void report(PrintWriter out, Running running, int metricsPort) throws SQLException {
        EntitySpec customer = config.entities().get(0).toEntitySpec();
        TreeMap<String, Long> byClass = new TreeMap<>();
        registry.find("dimstream.events").counters().forEach(c -> byClass.merge(c.getId().getTag("class"), (long) c.count(), Long::sum));
        out.println("events by class: " + byClass);
        try (Connection c = running.pipeline().database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE " + Sql.ident(customer.system().isCurrent())
                     + "), count(*) FILTER (WHERE " + Sql.ident(customer.system().isDeleted()) + " AND "
                     + Sql.ident(customer.system().validTo()) + " IS NULL) FROM " + Sql.table(customer.table()))) {
            rs.next();
            out.printf(Locale.ROOT, "table %s: %d versions, %d current rows, %d deleted keys%n", customer.table(), rs.getLong(1),
                    rs.getLong(2), rs.getLong(3));
        }
        List<VersionRow> history = new HistoryQueries(running.pipeline().database().dataSource()).history(customer, List.of("C0001"));
        out.println("history of C0001:");
        for (VersionRow v : history) {
            out.printf(Locale.ROOT, "  %s .. %-27s %-8s %s%n", v.validFrom(), v.validTo() == null ? "" : v.validTo(),
                    v.deleted() ? "deleted" : v.current() ? "current" : "", v.attributes());
        }
        out.println("where to look:");
        out.println("  PostgreSQL: " + running.pipeline().database().jdbcUrl() + "  (tables " + customer.table() + ", "
                + customer.currentView() + ", function " + customer.asOfFunction() + "(timestamptz))");
        out.println("  Kafka: " + running.pipeline().bootstrapServers() + "  topics " + running.topic() + " (source), "
                + running.topic() + ".dlq (bad records), " + running.pipeline().pipelines().get(0).changesTopic() + " (changes)");
        if (metricsPort >= 0) {
            out.println("  metrics: http://localhost:" + metricsPort + "/metrics  health: http://localhost:" + metricsPort
                    + "/health/ready");
        }
        out.flush();
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
