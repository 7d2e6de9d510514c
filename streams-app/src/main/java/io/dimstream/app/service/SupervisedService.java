package io.dimstream.app.service;

import io.dimstream.app.connect.ConnectorDiscovery;
import io.dimstream.app.connect.ConnectorWatch;
import io.dimstream.app.health.HealthMonitor;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.db.schema.ConnectorTables;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service as {@code dimstream run} runs it: a {@link DimstreamService}, restarted inside the
 * process when a connector's new table is found ({@link ConnectorWatch}), so the table gets its
 * history without anyone restarting anything. The restart closes the service (Kafka Streams leaves
 * its group or, with an instance id, stays in it; the sink's last batch commits) and starts it again
 * with the config resolved anew: every entity pauses for that time (a few seconds), none loses an
 * event (each resumes from its committed offsets). A config without connectors is one
 * {@link DimstreamService}, never restarted.
 */
public final class SupervisedService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SupervisedService.class);

    /** The pause between two attempts to start the pipeline again. */
    private static final Duration RETRY = Duration.ofSeconds(5);

    private final DimstreamConfig config;
    private final ServiceOptions options;
    private final MeterRegistry registry;
    private volatile DimstreamService current;
    private ConnectorWatch watch;
    private volatile boolean closed;

    private SupervisedService(DimstreamConfig config, ServiceOptions options, MeterRegistry registry, DimstreamService first) {
        this.config = config;
        this.options = options;
        this.registry = registry;
        this.current = first;
    }

    /**
     * Starts the service and, when the config has connectors, the watch for their new tables. A
     * config of connectors only, none of whose tables has a record yet, waits for the first one
     * (looking every {@code discovery-interval}, a line in the log each time), then starts.
     */
    public static SupervisedService start(DimstreamConfig config, ServiceOptions options, MeterRegistry registry) {
        SupervisedService s = new SupervisedService(config, options, registry, null);
        if (config.entities().isEmpty() && !config.connectors().isEmpty()) {
            s.awaitFirstTable();
        }
        s.current = DimstreamService.start(config, options, registry);
        s.watch = ConnectorWatch.start(config, KafkaClients.of(s.current.bootstrapServers(), config.kafka().orElseThrow()),
                () -> s.current.database().dataSource(), s::restartFor);
        return s;
    }

    /** Waits until a connector's table has a record that types it; the start fails when interrupted (SIGTERM). */
    private void awaitFirstTable() {
        KafkaConfig kafka = config.kafka().orElseThrow();
        ConnectorDiscovery discovery = new ConnectorDiscovery(KafkaClients.of(kafka.bootstrapServers(), kafka), () -> null);
        Duration every = config.connectors().stream().map(ConnectorConfig::discoveryInterval).min(Duration::compareTo).orElseThrow();
        while (!discovery.anyTable(config)) {
            LOG.warn("no table of the connectors ({}) has a record on {} yet: looking again in {} (a connector writes a table's "
                    + "topic at its snapshot or its first change)", config.connectors().stream().map(ConnectorConfig::name)
                    .collect(Collectors.joining(", ")), kafka.bootstrapServers(), every);
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("stopped while waiting for the connectors' first table", e);
            }
        }
    }

    /** The running service (another one after a restart). */
    public DimstreamService current() {
        return current;
    }

    /** The running service's health. */
    public HealthMonitor health() {
        return current.health();
    }


    private synchronized void restartFor(List<ConnectorTables.Found> found) {
        if (closed) {
            return;
        }
        LOG.info("restarting the pipeline for {} new table(s) of the connectors: {}", found.size(),
                found.stream().map(ConnectorTables.Found::topic).collect(Collectors.joining(", ")));
        long t0 = System.nanoTime();
        current.close();
        forgetBoundMeters();
        current = startAgain();
        LOG.info("pipeline restarted in {} ms with {} entities", (System.nanoTime() - t0) / 1_000_000, current.pipelines().size());
    }

    /**
     * The service started again, tried every {@link #RETRY} until it starts (the database or the
     * broker away at that moment): the closed one never stays in place. Meanwhile the health
     * endpoints answer for the closed service (down), which a restart policy may act on.
     */
    private DimstreamService startAgain() {
        while (true) {
            try {
                return DimstreamService.start(config, options, registry);
            } catch (RuntimeException e) {
                LOG.error("restarting the pipeline failed, trying again in {}: {}", RETRY, e.getMessage(), e);
                forgetBoundMeters();
            }
            try {
                Thread.sleep(RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("stopped while restarting the pipeline", e);
            }
        }
    }

    /**
     * Removes the meters that read the closed service's objects (gauges, function counters, Kafka's
     * client metrics): the new service registers its own. Counters, timers and summaries stay: they
     * count on across the restart.
     */
    private void forgetBoundMeters() {
        for (Meter m : registry.getMeters()) {
            if (!(m instanceof Counter || m instanceof Timer || m instanceof DistributionSummary || m instanceof LongTaskTimer)) {
                registry.remove(m);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        if (watch != null) {
            watch.close(); // outside the lock: a restart under way finishes first
        }
        synchronized (this) {
            current.close();
        }
    }
}
